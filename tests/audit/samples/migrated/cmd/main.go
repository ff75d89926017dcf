package main

import (
	"fmt"
	"net/http"
)

const base = "https://api.runpod.io/v2"

func deleteEndpoint(id string) (*http.Response, error) {
	req, _ := http.NewRequest("DELETE", fmt.Sprintf("%s/serverless/%s", base, id), nil)
	return http.DefaultClient.Do(req)
}
