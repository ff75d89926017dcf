// Package runpod is a small client for the pod management REST API.
package runpod

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/acme/runpod-go/internal/retry"
)

// DefaultBaseURL is the REST API the client talks to unless WithBaseURL is given.
const DefaultBaseURL = "https://rest.runpod.io/v1"

const userAgent = "runpod-go/0.7.1"

// Client calls the REST API. The zero value is not usable; use New.
type Client struct {
	baseURL    string
	apiKey     string
	httpClient *http.Client
	retries    int
}

// Option configures a Client.
type Option func(*Client)

// WithBaseURL points the client at another API base (a proxy, a mock server).
func WithBaseURL(u string) Option {
	return func(c *Client) { c.baseURL = strings.TrimRight(u, "/") }
}

// WithHTTPClient replaces the default *http.Client.
func WithHTTPClient(h *http.Client) Option {
	return func(c *Client) { c.httpClient = h }
}

// WithRetries sets how many times idempotent requests are retried.
func WithRetries(n int) Option {
	return func(c *Client) { c.retries = n }
}

// New returns a client for apiKey.
func New(apiKey string, opts ...Option) *Client {
	c := &Client{
		baseURL:    DefaultBaseURL,
		apiKey:     apiKey,
		httpClient: &http.Client{Timeout: 30 * time.Second},
		retries:    2,
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// do sends method path (relative to the base URL) with an optional JSON body
// and decodes the answer into out when it is not nil.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("runpod: encode %s %s: %w", method, path, err)
		}
	}
	return retry.Do(ctx, c.retries, method, func() (bool, error) {
		req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, bytes.NewReader(payload))
		if err != nil {
			return false, err
		}
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
		req.Header.Set("User-Agent", userAgent)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := c.httpClient.Do(req)
		if err != nil {
			return true, err
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 400 {
			return resp.StatusCode >= 500 || resp.StatusCode == 429, decodeError(resp.StatusCode, raw)
		}
		if out != nil && len(raw) > 0 {
			return false, json.Unmarshal(raw, out)
		}
		return false, nil
	})
}
