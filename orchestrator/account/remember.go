package account

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/orch-bench/orch/orchestrator/atomicfile"
	"github.com/orch-bench/orch/topology"
)

// The state directory keeps a copy of what orch recorded on each server
// (OwnedFile, one "HOST KIND NAME" line each), for the user to read and
// for the day a server's record is lost; the servers' own records decide.

var rememberMu sync.Mutex

// OwnedFile is the copy's name in the cluster's state directory.
const OwnedFile = "owned"

// Remember adds items recorded on host to the state directory's copy,
// for a cluster whose accounts orch manages (the others keep no state here).
func Remember(inv *topology.Inventory, host string, items []Item) error {
	if len(items) == 0 || len(managedFiles(inv)) == 0 {
		return nil
	}
	rememberMu.Lock() // hosts record in parallel
	defer rememberMu.Unlock()
	dir, err := StateDir(inv)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := topology.CheckPrivateNoFollow("orch state directory", dir); err != nil {
		return err
	}
	path := filepath.Join(dir, OwnedFile)
	lines := map[string]bool{}
	if b, err := topology.ReadPrivate("orch state file", path); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" {
				lines[l] = true
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, it := range items {
		lines[host+" "+string(it.Kind)+" "+it.Name] = true
	}
	out := make([]string, 0, len(lines))
	for l := range lines {
		out = append(out, l)
	}
	sort.Strings(out)
	return atomicfile.Write(path, bytes.NewReader([]byte(strings.Join(out, "\n")+"\n")), 0o600)
}

// forgetOwned removes the copy (down --purge).
func forgetOwned(inv *topology.Inventory) error {
	dir, err := StateDir(inv)
	if err != nil {
		return nil
	}
	if err := os.Remove(filepath.Join(dir, OwnedFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	os.Remove(dir) // only when empty
	return nil
}
