package runpod

// RegistryAuth is a saved container registry credential.
type RegistryAuth struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ListRegistryAuths returns every saved registry credential.
func (c *Client) ListRegistryAuths() ([]RegistryAuth, error) {
	var out []RegistryAuth
	err := c.Get("/containerregistryauth", &out)
	return out, err
}

// CreateRegistryAuth saves a registry credential.
func (c *Client) CreateRegistryAuth(name, user, pass string) (*RegistryAuth, error) {
	in := map[string]string{"name": name, "username": user, "password": pass}
	var out RegistryAuth
	if err := c.Post("/containerregistryauth", in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteRegistryAuth removes one.
func (c *Client) DeleteRegistryAuth(id string) error {
	return c.Delete("/containerregistryauth/" + id)
}
