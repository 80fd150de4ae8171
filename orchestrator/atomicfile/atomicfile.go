// Package atomicfile replaces files so that a reader sees the old content
// or the new, never a torn one, and a crash leaves no half-written file:
// the content goes to a temporary file in the same directory, is synced,
// and is renamed over the target. Run directories, reports and local
// uploads all write this way.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write streams r into path with the given permissions, creating missing
// parent directories (0755). The directory is synced after the rename so
// the new name survives a crash too.
func Write(path string, r io.Reader, mode os.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := io.Copy(f, r); err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
