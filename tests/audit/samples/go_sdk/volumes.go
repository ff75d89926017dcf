package runpod

import "context"

// NetworkVolume is a network volume.
type NetworkVolume struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Size         int    `json:"size"`
	DataCenterID string `json:"dataCenterId"`
}

// ListNetworkVolumes returns the account's network volumes.
func (c *Client) ListNetworkVolumes(ctx context.Context) ([]NetworkVolume, error) {
	var vols []NetworkVolume
	err := c.do(ctx, "GET", "/networkvolumes", nil, &vols)
	return vols, err
}

// CreateNetworkVolume creates a network volume in a data center.
func (c *Client) CreateNetworkVolume(ctx context.Context, name string, sizeGB int, dataCenterID string) (*NetworkVolume, error) {
	var vol NetworkVolume
	err := c.do(ctx, "POST", "/networkvolumes", NetworkVolume{Name: name, Size: sizeGB, DataCenterID: dataCenterID}, &vol)
	return &vol, err
}

// ListRegistryAuths returns the container registry credentials (names only).
func (c *Client) ListRegistryAuths(ctx context.Context) ([]struct{ ID, Name string }, error) {
	var out []struct{ ID, Name string }
	return out, c.do(ctx, "GET", "/containerregistryauth", nil, &out)
}
