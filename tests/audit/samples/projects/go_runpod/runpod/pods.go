package runpod

// Pod as the API returns it.
type Pod struct {
	ID       string  `json:"id"`
	Name     string  `json:"name"`
	ImageName string `json:"image"`
	CostPerHr float64 `json:"costPerHr"`
}

// ListPods returns every pod of the account.
func (c *Client) ListPods() ([]Pod, error) {
	var pods []Pod
	if err := c.Get("/pods", &pods); err != nil {
		return nil, err
	}
	return pods, nil
}

// StopPod stops a running pod.
func (c *Client) StopPod(id string) error {
	return c.Post("/pods/"+id+"/stop", nil, nil)
}

// DeletePod terminates a pod.
func (c *Client) DeletePod(id string) error {
	return c.Delete("/pods/" + id)
}
