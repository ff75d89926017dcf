package networkvolumes

import (
	"fmt"
	"net/http"

	"example.com/sdk/networkvolumes"
)

const Base = "https://api.runpod.io/v2"

// List was GET /networkvolumes in v1.
func List() (*http.Response, error) {
	_ = networkvolumes.Version
	return http.Get(fmt.Sprintf("%s/network-volumes", Base))
}
