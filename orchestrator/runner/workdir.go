package runner

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/topology"
)

// workdirTimeout bounds the commands that make and remove the directory.
const workdirTimeout = 30 * time.Second

// makeWorkdir creates the run's working directory on the benchmark host,
// as the SSH user: `mktemp -d` in that user's home, so the name has a
// random part, the directory is created with mode 0700 by one mkdir that
// fails on anything already there (a symlink included), and no other
// run, matrix or user shares it. A predictable shared path such as
// /var/tmp/orch/<run> would let another user of the load box plant a
// symlink or read the benchmark's files.
func makeWorkdir(ctx context.Context, ex executor.Executor, runID string) (string, error) {
	template := rundir.WorkdirName(runID) + "." + strings.Repeat("X", rundir.WorkdirSuffixLen)
	script := `umask 077
h=$HOME
case "$h" in /*) ;; *) echo "the SSH user's home directory ($h) is not an absolute path" >&2; exit 1 ;; esac
if [ ! -d "$h" ] || [ ! -O "$h" ]; then echo "$h is not a directory owned by $(id -un)" >&2; exit 1; fi
mktemp -d "${h%/}"/` + shell.Quote(template)
	res, err := ex.Run(ctx, executor.Command{Script: script, Timeout: workdirTimeout})
	if err != nil {
		return "", fmt.Errorf("%s: make the run's working directory: %w", ex.Name(), err)
	}
	dir := strings.TrimSpace(string(res.Stdout))
	if err := rundir.ValidWorkdir(dir, runID); err != nil {
		return "", fmt.Errorf("%s: mktemp: %w", ex.Name(), err)
	}
	return dir, nil
}

// removeWorkdir deletes the working directory after checking, on the host,
// that it is still the one orch made: a directory (not a symlink) in the
// SSH user's home, owned by that user. Anything else is left in place.
func removeWorkdir(ctx context.Context, ex executor.Executor, dir string) error {
	script := "d=" + shell.Quote(dir) + `
if [ ! -e "$d" ] && [ ! -L "$d" ]; then exit 0; fi
if [ "$(dirname -- "$d")" != "${HOME%/}" ] && [ "$(dirname -- "$d")" != "$HOME" ] || [ -L "$d" ] || [ ! -d "$d" ] || [ ! -O "$d" ]; then
  echo "$d is not orch's working directory in $HOME: left in place" >&2; exit 1
fi
rm -rf -- "$d"`
	if _, err := ex.Run(ctx, executor.Command{Script: script, Timeout: workdirTimeout}); err != nil {
		return fmt.Errorf("%s: remove %s: %w", ex.Name(), dir, err)
	}
	return nil
}

// cleanWorkdir removes the run's working directory once the run directory
// holds everything from it: the benchmark has ended and every file
// expected from the directory is complete. It reports whether it did.
func cleanWorkdir(ctx context.Context, d *rundir.Dir, ex executor.Executor) (bool, error) {
	return cleanRemote(ctx, d, ex, func(m *rundir.Manifest) *rundir.Remote { return m.Remote })
}

// cleanRemote is cleanWorkdir for the working directory pick finds in the
// manifest (one of several load boxes').
func cleanRemote(ctx context.Context, d *rundir.Dir, ex executor.Executor, pick func(*rundir.Manifest) *rundir.Remote) (bool, error) {
	m, err := d.LoadManifest()
	if err != nil {
		return false, err
	}
	rem := pick(m)
	if rem == nil || rem.Removed || ex == nil {
		return false, nil
	}
	for _, f := range m.Expected {
		if f.Host == rem.Host && strings.HasPrefix(f.Remote, rem.Dir+"/") && !f.Done {
			return false, nil
		}
	}
	if err := rundir.ValidWorkdir(rem.Dir, path.Base(d.Path())); err != nil {
		return false, err
	}
	if running, _, err := remoteState(ctx, ex, rem); err != nil || running {
		return false, err
	}
	if err := removeWorkdir(ctx, ex, rem.Dir); err != nil {
		return false, err
	}
	return true, d.UpdateManifest(func(m *rundir.Manifest) error {
		if rem := pick(m); rem != nil {
			rem.Removed = true
		}
		return nil
	})
}

// sources are what a run of inv may have asked its hosts for, for
// checking a manifest before collecting from it.
func sources(inv *topology.Inventory, runID string) rundir.Sources {
	s := rundir.Sources{RunID: runID, DB: map[string]rundir.LogSource{}, Bench: map[string]bool{}}
	for _, h := range inv.DBHosts() {
		s.DB[h.Name] = rundir.LogSource{ErrorLog: h.MySQL.ErrorLog, Datadir: h.MySQL.Datadir}
	}
	for _, lb := range inv.LoadBoxes() {
		s.Bench[lb.Name] = true
	}
	if len(inv.LoadBoxes()) == 0 {
		s.Bench[rundir.LocalHost] = true
	}
	if m := inv.Master(); m != nil {
		s.Bench[m.Name] = true // workloads with run_on: master
	}
	return s
}

// removeStale removes the working directory an earlier attempt at this run
// directory left (a matrix cell redone after a crash), once nothing runs in
// it: its output is not wanted, the cell starts again from a clean state.
func (r *run) removeStale(ctx context.Context) {
	r.removeStaleOn(ctx, r.bhost, r.bexec, r.stale)
}

// removeStaleOn removes old, an earlier attempt's working directory, when
// it is on host and nothing runs in it.
func (r *run) removeStaleOn(ctx context.Context, host string, ex executor.Executor, old *rundir.Remote) {
	if old == nil || old.Removed || old.Host != host || rundir.ValidWorkdir(old.Dir, path.Base(r.dir.Path())) != nil {
		return
	}
	running, _, err := remoteState(ctx, ex, old)
	switch {
	case err != nil:
		r.logf("run: %v", err)
	case running:
		r.logf("run: %s: the last attempt's benchmark (pid %d) still runs in %s: left alone", host, old.PID, old.Dir)
	default:
		if err := removeWorkdir(ctx, ex, old.Dir); err != nil {
			r.logf("run: %v", err)
		}
	}
}
