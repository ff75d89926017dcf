package runpod

import "fmt"

// NetworkVolume is a persistent volume in one data center.
type NetworkVolume struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Size         int    `json:"size"`
	DataCenterID string `json:"dataCenterId"`
}

func (c *Client) ListVolumes() ([]NetworkVolume, error) {
	var out []NetworkVolume
	return out, c.Get("/networkvolumes", &out)
}

func (c *Client) GetVolume(volumeID string) (*NetworkVolume, error) {
	var v NetworkVolume
	if err := c.Get("/networkvolumes/"+volumeID, &v); err != nil {
		return nil, fmt.Errorf("get volume %s: %w", volumeID, err)
	}
	return &v, nil
}

func (c *Client) ResizeVolume(volumeID string, size int) error {
	return c.Patch(fmt.Sprintf("/networkvolumes/%s", volumeID), map[string]int{"size": size}, nil)
}
