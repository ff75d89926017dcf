module github.com/acme/runpod-go

go 1.22
