module github.com/example/go-runpod

go 1.22
