package runpod

import (
	"encoding/json"
	"fmt"
)

// APIError is an error answer of the API: {"message": "..."}.
type APIError struct {
	Status  int    `json:"-"`
	Message string `json:"message"`
}

func (e *APIError) Error() string { return fmt.Sprintf("runpod: %d: %s", e.Status, e.Message) }

func decodeError(status int, raw []byte) error {
	e := &APIError{Status: status}
	if json.Unmarshal(raw, e) != nil || e.Message == "" {
		e.Message = string(raw)
	}
	return e
}

// IsNotFound reports whether err is a 404 from the API.
func IsNotFound(err error) bool {
	apiErr, ok := err.(*APIError)
	return ok && apiErr.Status == 404
}
