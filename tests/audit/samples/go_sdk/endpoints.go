package runpod

import (
	"context"
	"fmt"
	"net/http"
)

// Endpoint is a serverless endpoint.
type Endpoint struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	TemplateID  string   `json:"templateId"`
	GpuTypeIDs  []string `json:"gpuTypeIds"`
	WorkersMin  int      `json:"workersMin"`
	WorkersMax  int      `json:"workersMax"`
	IdleTimeout int      `json:"idleTimeout"`
}

const endpointsPath = "/endpoints"

// ListEndpoints returns every serverless endpoint.
func (c *Client) ListEndpoints(ctx context.Context) ([]Endpoint, error) {
	var eps []Endpoint
	return eps, c.do(ctx, http.MethodGet, endpointsPath, nil, &eps)
}

// ScaleEndpoint sets the worker bounds.
func (c *Client) ScaleEndpoint(ctx context.Context, id string, min, max int) (*Endpoint, error) {
	var ep Endpoint
	body := map[string]int{"workersMin": min, "workersMax": max}
	err := c.do(ctx, http.MethodPatch, fmt.Sprintf("%s/%s", endpointsPath, id), body, &ep)
	return &ep, err
}

// DeleteEndpoint deletes an endpoint.
func (c *Client) DeleteEndpoint(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, endpointsPath+"/"+id, nil, nil)
}

// SpendPerDay returns the serverless spend of one endpoint per day.
func (c *Client) SpendPerDay(ctx context.Context, endpointID string) (float64, error) {
	var records []struct {
		Amount float64 `json:"amount"`
	}
	path := fmt.Sprintf("/billing/endpoints?bucketSize=day&endpointId=%s", endpointID)
	if err := c.do(ctx, http.MethodGet, path, nil, &records); err != nil {
		return 0, err
	}
	total := 0.0
	for _, r := range records {
		total += r.Amount
	}
	return total, nil
}
