package runpod

import (
	"context"
	"fmt"
	"net/url"
)

// Pod is a pod as the API returns it.
type Pod struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	Image         string            `json:"image"`
	DesiredStatus string            `json:"desiredStatus"`
	CostPerHr     float64           `json:"costPerHr"`
	PublicIP      string            `json:"publicIp"`
	PortMappings  map[string]int    `json:"portMappings"`
	Env           map[string]string `json:"env"`
}

// CreatePodInput is the body of a pod create.
type CreatePodInput struct {
	Name              string            `json:"name"`
	ImageName         string            `json:"imageName"`
	GpuTypeIDs        []string          `json:"gpuTypeIds,omitempty"`
	GpuCount          int               `json:"gpuCount,omitempty"`
	CloudType         string            `json:"cloudType,omitempty"`
	ContainerDiskInGb int               `json:"containerDiskInGb,omitempty"`
	VolumeInGb        int               `json:"volumeInGb"`
	VolumeMountPath   string            `json:"volumeMountPath,omitempty"`
	NetworkVolumeID   string            `json:"networkVolumeId,omitempty"`
	Ports             []string          `json:"ports,omitempty"`
	Env               map[string]string `json:"env,omitempty"`
	Interruptible     bool              `json:"interruptible,omitempty"`
}

// ListPods returns every pod of the account.
func (c *Client) ListPods(ctx context.Context) ([]Pod, error) {
	var pods []Pod
	err := c.do(ctx, "GET", "/pods", nil, &pods)
	return pods, err
}

// GetPod returns one pod.
func (c *Client) GetPod(ctx context.Context, id string) (*Pod, error) {
	var pod Pod
	if err := c.do(ctx, "GET", "/pods/"+url.PathEscape(id), nil, &pod); err != nil {
		return nil, err
	}
	return &pod, nil
}

// CreatePod creates a pod.
func (c *Client) CreatePod(ctx context.Context, in CreatePodInput) (*Pod, error) {
	var pod Pod
	if err := c.do(ctx, "POST", "/pods", in, &pod); err != nil {
		return nil, err
	}
	return &pod, nil
}

// podAction calls one of the per-verb routes: start, stop, restart, reset.
func (c *Client) podAction(ctx context.Context, id, action string) error {
	return c.do(ctx, "POST", fmt.Sprintf("/pods/%s/%s", url.PathEscape(id), action), nil, nil)
}

// StartPod starts (or resumes) a pod.
func (c *Client) StartPod(ctx context.Context, id string) error { return c.podAction(ctx, id, "start") }

// StopPod stops a pod.
func (c *Client) StopPod(ctx context.Context, id string) error { return c.podAction(ctx, id, "stop") }

// ResetPod resets a pod.
func (c *Client) ResetPod(ctx context.Context, id string) error { return c.podAction(ctx, id, "reset") }

// UpdatePod changes a pod in place.
func (c *Client) UpdatePod(ctx context.Context, id string, fields map[string]any) (*Pod, error) {
	var pod Pod
	path := fmt.Sprintf("/pods/%s/update", id)
	if err := c.do(ctx, "POST", path, fields, &pod); err != nil {
		return nil, err
	}
	return &pod, nil
}

// DeletePod terminates a pod.
func (c *Client) DeletePod(ctx context.Context, id string) error {
	return c.do(ctx, "DELETE", "/pods/"+id, nil, nil)
}
