package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A run whose local disk fills must still end "failed" with the cause, not
// stay "running" (the review's full disk left the manifest so): rewriting
// the manifest needs a few free blocks, and a full disk has none. So a run
// sets aside reserveSize bytes in its directory (Reserve), and FinishManifest,
// the run's last word, gives them up to write the end when the disk is
// full. The reserve is removed once the run has ended, either way.
const (
	reserveFile = ".orch-reserve"
	reserveSize = 256 << 10
)

// Reserve writes the reserve file; a disk too full for it is found later.
func (d *Dir) Reserve() {
	p := filepath.Join(d.path, reserveFile)
	if err := os.WriteFile(p, make([]byte, reserveSize), copyPerm); err != nil {
		os.Remove(p)
	}
}

// releaseReserve removes the reserve, reporting whether there was one.
func (d *Dir) releaseReserve() bool {
	return os.Remove(filepath.Join(d.path, reserveFile)) == nil
}

// FinishManifest records how the run ended (status and err; the end time
// already recorded is kept, else now) as the manifest's last update. On a
// full disk it spends the reserve and tries again, so that the manifest
// never stays "running"; the reserve is gone afterwards in any case.
func (d *Dir) FinishManifest(status Status, runErr error) error {
	update := func() error {
		return d.UpdateManifest(func(m *Manifest) error {
			end := m.End
			if end.IsZero() {
				end = time.Now()
			}
			m.Finish(end, status, runErr)
			return nil
		})
	}
	err := update()
	if err != nil && IsNoSpace(err) && d.releaseReserve() {
		err = update()
	}
	d.releaseReserve()
	if err != nil {
		return fmt.Errorf("manifest: record the end (%s): %w", status, err)
	}
	return nil
}

// IsNoSpace reports whether err is a full disk (or quota).
func IsNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
