// Package runpod is a small client for the RunPod REST API.
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
)

// DefaultBaseURL is the REST API root; override it with WithBaseURL.
const DefaultBaseURL = "https://rest.runpod.io/v1"

// Client talks to the API with one API key.
type Client struct {
	baseURL string
	apiKey  string
	hc      *http.Client
}

// Option configures a Client.
type Option func(*Client)

// WithBaseURL points the client at another API root (tests, proxies).
func WithBaseURL(u string) Option {
	return func(c *Client) { c.baseURL = strings.TrimRight(u, "/") }
}

// WithHTTPClient replaces the default http.Client.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) { c.hc = hc }
}

// New returns a client for apiKey.
func New(apiKey string, opts ...Option) *Client {
	c := &Client{baseURL: DefaultBaseURL, apiKey: apiKey, hc: &http.Client{Timeout: 30 * time.Second}}
	for _, o := range opts {
		o(c)
	}
	return c
}

type apiError struct {
	Status  int
	Message string `json:"message"`
}

func (e *apiError) Error() string { return fmt.Sprintf("runpod: %d: %s", e.Status, e.Message) }

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		e := &apiError{Status: resp.StatusCode}
		_ = json.NewDecoder(resp.Body).Decode(e)
		return e
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Get, Post, Patch and Delete are the verbs the resource files use.
func (c *Client) Get(path string, out any) error {
	return c.do(context.Background(), http.MethodGet, path, nil, out)
}

func (c *Client) Post(path string, in, out any) error {
	return c.do(context.Background(), http.MethodPost, path, in, out)
}

func (c *Client) Patch(path string, in, out any) error {
	return c.do(context.Background(), http.MethodPatch, path, in, out)
}

func (c *Client) Delete(path string) error {
	return c.do(context.Background(), http.MethodDelete, path, nil, nil)
}
