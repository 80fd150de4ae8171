package rundir

import (
	"encoding/json"
	"fmt"
)

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
	if len(m.Inventory) == 0 {
		return nil, fmt.Errorf("manifest: no inventory recorded")
	}
	var r RecordedInventory
	if err := json.Unmarshal(m.Inventory, &r); err != nil {
		return nil, fmt.Errorf("manifest: inventory: %w", err)
	}
	if r.Source == "" {
		return nil, fmt.Errorf("manifest: the recorded inventory names no file")
	}
	return &r, nil
}
