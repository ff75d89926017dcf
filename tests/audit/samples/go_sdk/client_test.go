package runpod

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestStopPodCallsTheStopRoute(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Method + " " + r.URL.Path
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()

	c := New("test-key", WithBaseURL(srv.URL+"/v1"))
	if err := c.StopPod(context.Background(), "pod123"); err != nil {
		t.Fatal(err)
	}
	if got != "POST /v1/pods/pod123/stop" {
		t.Fatalf("unexpected request %q", got)
	}
}

func TestAPIErrorMessage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]string{"message": "pod not found"})
	}))
	defer srv.Close()

	_, err := New("k", WithBaseURL(srv.URL)).GetPod(context.Background(), "nope")
	if !IsNotFound(err) {
		t.Fatalf("want a 404, got %v", err)
	}
}
