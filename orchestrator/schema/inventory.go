package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Inventory is the manifest's record of the inventory: the JSON the
// normalised inventory (a *topology.Inventory) marshalled to, kept whole,
// and the parts readers of a run directory use, decoded from it.
type Inventory struct {
	// Name is the inventory's name (the cluster's, in a matrix over
	// several clusters).
	Name string
	// Hosts are its hosts in inventory order.
	Hosts []InventoryHost
	raw   json.RawMessage
}

// InventoryHost is one host of the recorded inventory.
type InventoryHost struct {
	Name string `json:"name"`
	// Role is master, slave or loadbox.
	Role string `json:"role"`
}

// Raw is the recorded JSON (nil when none was recorded).
func (i Inventory) Raw() json.RawMessage { return i.raw }

// IsZero reports whether no inventory was recorded.
func (i Inventory) IsZero() bool { return len(i.raw) == 0 }

// MarshalJSON writes the recorded JSON back as it was.
func (i Inventory) MarshalJSON() ([]byte, error) {
	if len(i.raw) == 0 {
		return []byte("null"), nil
	}
	return i.raw, nil
}

// UnmarshalJSON keeps b whole and decodes its name and hosts; an inventory
// of another shape (an older orch) keeps its JSON with no name or hosts.
func (i *Inventory) UnmarshalJSON(b []byte) error {
	*i = Inventory{}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if !json.Valid(b) {
		return fmt.Errorf("inventory: not JSON")
	}
	i.raw = append(json.RawMessage(nil), b...)
	var v struct {
		Name  string          `json:"name"`
		Hosts []InventoryHost `json:"hosts"`
	}
	if json.Unmarshal(b, &v) == nil {
		i.Name, i.Hosts = v.Name, v.Hosts
	}
	return nil
}

// RecordedInventory is what a run directory knows of the inventory it
// ran with: the file, and the SSH settings an ips.txt took from the
// command line (which the file cannot hold), so collect needs no -i.
type RecordedInventory struct {
	Source string `json:"source"`
	Format string `json:"format"`
	Hosts  []struct {
		SSH struct {
			User          string   `json:"user"`
			Port          int      `json:"port"`
			IdentityFiles []string `json:"identity_files"`
		} `json:"ssh"`
	} `json:"hosts"`
	KnownHostsFile string `json:"known_hosts_file"`
}

// RecordedInventory reads the manifest's record of the inventory.
func (m *Manifest) RecordedInventory() (*RecordedInventory, error) {
	if m.Inventory.IsZero() {
		return nil, fmt.Errorf("manifest: no inventory recorded")
	}
	var r RecordedInventory
	if err := json.Unmarshal(m.Inventory.Raw(), &r); err != nil {
		return nil, fmt.Errorf("manifest: inventory: %w", err)
	}
	if r.Source == "" {
		return nil, fmt.Errorf("manifest: the recorded inventory names no file")
	}
	return &r, nil
}
