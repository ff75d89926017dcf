// Package runpod is a small client for the pod API.
package runpod

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// DefaultBaseURL is the REST API the client talks to.
const DefaultBaseURL = "https://rest.runpod.io/v1"

type Client struct {
	baseURL string
	http    *http.Client
}

type Option func(*Client)

// WithBaseURL points the client at another base (a proxy, a test server).
func WithBaseURL(u string) Option { return func(c *Client) { c.baseURL = u } }

func New(opts ...Option) *Client {
	c := &Client{baseURL: DefaultBaseURL, http: http.DefaultClient}
	for _, o := range opts {
		o(c)
	}
	return c
}

type Pod struct {
	ID            string  `json:"id"`
	DesiredStatus string  `json:"desiredStatus"`
	CostPerHr     float64 `json:"costPerHr"`
}

func (c *Client) GetPod(ctx context.Context, id string) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+"/pods/"+url.PathEscape(id), nil)
}

func (c *Client) StopPod(ctx context.Context, id string) (*http.Request, error) {
	u := fmt.Sprintf("%s/pods/%s/stop", c.baseURL, id)
	return http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
}

func (c *Client) DeleteVolume(ctx context.Context, id string) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodDelete, c.baseURL+"/networkvolumes/"+id, nil)
}
