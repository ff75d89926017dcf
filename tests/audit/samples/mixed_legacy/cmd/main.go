package main

import (
	"fmt"
	"net/http"
)

const base = "https://rest.runpod.io/v1"

func deleteEndpoint(id string) (*http.Response, error) {
	req, _ := http.NewRequest("DELETE", fmt.Sprintf("%s/endpoints/%s", base, id), nil)
	return http.DefaultClient.Do(req)
}
