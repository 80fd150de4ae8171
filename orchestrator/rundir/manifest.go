package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/orch-bench/orch/orchestrator/schema"
)

// manifest.json's types are the run directory's plain data
// (orchestrator/schema); rundir reads and writes the file.
type (
	Status        = schema.Status
	Manifest      = schema.Manifest
	Remote        = schema.Remote
	FileKind      = schema.FileKind
	ExpectedFile  = schema.ExpectedFile
	Inventory     = schema.Inventory
	InventoryHost = schema.InventoryHost
	// RecordedInventory is what a run directory knows of its inventory.
	RecordedInventory = schema.RecordedInventory
)

const (
	StatusRunning     = schema.StatusRunning
	StatusOK          = schema.StatusOK
	StatusFailed      = schema.StatusFailed
	StatusInterrupted = schema.StatusInterrupted
	KindFile          = schema.KindFile
	KindLogSlice      = schema.KindLogSlice
	// SchemaVersion is the version of the run directory's JSON files this
	// orch writes (schema.SchemaVersion).
	SchemaVersion = schema.SchemaVersion
)

// OptionText formats a workload option as the workload files write it
// (schema.OptionText).
func OptionText(v any) string { return schema.OptionText(v) }

// SaveManifest writes m to manifest.json atomically.
func (d *Dir) SaveManifest(m *Manifest) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	return d.WriteJSON(FileManifest, m)
}

// LoadManifest reads manifest.json.
func (d *Dir) LoadManifest() (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(d.path, FileManifest))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no %s: not a run directory, or the run never started", d.path, FileManifest)
	}
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(d.path, FileManifest), err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(d.path, FileManifest), err)
	}
	return &m, nil
}

// UpdateManifest loads the manifest, lets fn change it and saves it, under
// the Dir's lock, so concurrent updaters in one process do not lose changes.
func (d *Dir) UpdateManifest(fn func(m *Manifest) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, err := d.LoadManifest()
	if err != nil {
		return err
	}
	if err := fn(m); err != nil {
		return err
	}
	return d.SaveManifest(m)
}

// WriteResults saves r as d's results.json, atomically.
func (d *Dir) WriteResults(r *schema.Results) error {
	return d.WriteJSON(FileResults, r)
}
