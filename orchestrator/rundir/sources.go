package rundir

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// The benchmark's working directory on its host is private to one run:
// WorkdirName(runID) plus a random suffix (mktemp -d), in the SSH user's
// home, mode 0700. It is recorded as Manifest.Remote.Dir.
const (
	workdirPrefix = "orch-run-"
	// WorkdirSuffixLen is the length of the random suffix after the '.'.
	WorkdirSuffixLen = 10
)

// WorkdirName is the fixed part of a run's working directory name: the
// mktemp template is WorkdirName(runID) + "." + WorkdirSuffixLen X's.
func WorkdirName(runID string) string {
	id := Sanitize(runID)
	if len(id) > 80 {
		id = id[:80]
	}
	return workdirPrefix + id
}

var suffixRE = regexp.MustCompile(`^[A-Za-z0-9]{` + fmt.Sprint(WorkdirSuffixLen) + `}$`)

// ValidWorkdir checks that dir is a working directory orch made for the
// run runID: absolute, clean, named WorkdirName(runID) plus the random
// suffix. Where it sits (the SSH user's home) is checked on the host.
func ValidWorkdir(dir, runID string) error {
	base := path.Base(dir)
	prefix := WorkdirName(runID) + "."
	switch {
	case !path.IsAbs(dir) || path.Clean(dir) != dir:
		return fmt.Errorf("remote directory %q is not a clean absolute path", dir)
	case !strings.HasPrefix(base, prefix) || !suffixRE.MatchString(strings.TrimPrefix(base, prefix)):
		return fmt.Errorf("remote directory %q is not this run's (want .../%sXXXXXXXXXX)", dir, prefix)
	}
	return nil
}

// MarkerLen is the length of a benchmark marker: 32 lowercase hex digits
// (128 random bits, so no two runs share one).
const MarkerLen = 32

var markerRE = regexp.MustCompile(`^[0-9a-f]{` + fmt.Sprint(MarkerLen) + `}$`)

// ValidMarker reports whether s has the shape of a marker orch makes: it
// is spliced (quoted) into the scripts that look for the benchmark, and a
// manifest is input.
func ValidMarker(s string) bool { return markerRE.MatchString(s) }

// LocalHost is the host name of the control machine when it is the
// benchmark host (a legacy ips.txt naming one existing server).
const LocalHost = "local"

// Sources are what orch itself asks a run's hosts for, derived from the
// run's id and the inventory: Check refuses a manifest naming anything
// else, so an edited manifest cannot make `orch collect` read /etc/shadow
// (as root, for a log slice) or a file of this machine.
type Sources struct {
	RunID string
	// DB maps each database host's inventory name to where its error log
	// may be.
	DB map[string]LogSource
	// Bench are the hosts the benchmark may have run on: the load box, the
	// master (run_on: master), LocalHost when the inventory has no load box.
	Bench map[string]bool
}

// LogSource is where a database host's error log may be: the inventory's
// mysql.error_log when set, else a .err or .log file in the datadir or
// under /var/log (the server's own log_error, as detected at run time).
type LogSource struct {
	ErrorLog string
	Datadir  string
}

// Check validates the manifest's remote directory and every expected file.
func (s Sources) Check(m *Manifest) error {
	for _, rem := range m.Remotes() {
		if !s.Bench[rem.Host] {
			return fmt.Errorf("manifest: benchmark host %q is not one of the inventory's", rem.Host)
		}
		if err := ValidWorkdir(rem.Dir, s.RunID); err != nil {
			return fmt.Errorf("manifest: %w", err)
		}
		if m.Remote.Marker != "" && !ValidMarker(m.Remote.Marker) {
			return fmt.Errorf("manifest: benchmark marker %q is not one orch makes", m.Remote.Marker)
		}
	}
	for _, f := range m.Expected {
		if err := s.checkFile(m, f); err != nil {
			return fmt.Errorf("manifest: expected file %s:%s: %w; orch fetches only what it put there", f.Host, f.Remote, err)
		}
	}
	return nil
}

// benchmarkFiles maps each local benchmark output to its file in the
// working directory.
var benchmarkFiles = map[string]string{
	BenchmarkPrepare: "prepare.out",
	BenchmarkRun:     "run.out",
	BenchmarkCleanup: "cleanup.out",
}

func (s Sources) checkFile(m *Manifest, f ExpectedFile) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if f.Kind == KindFile {
		name, ok := benchmarkFiles[f.Local]
		if f.Local == ClientRun(f.Host) {
			name, ok = benchmarkFiles[BenchmarkRun], true
		}
		switch {
		case !ok:
			return fmt.Errorf("local %s is not a benchmark output", f.Local)
		case m.Remote == nil:
			return errors.New("no recorded working directory")
		}
		rem := m.RemoteOf(f.Host)
		if rem == nil {
			rem = m.Remote
		}
		switch {
		case f.Host != rem.Host || f.Remote != path.Join(rem.Dir, name) || f.Sudo:
			return fmt.Errorf("not %s:%s, the run's own output", rem.Host, path.Join(rem.Dir, name))
		}
		return nil
	}
	src, ok := s.DB[f.Host]
	switch {
	case !ok:
		return errors.New("a log slice from a host that is not a database host of the inventory")
	case f.Local != HostFile(f.Host, HostErrorLog):
		return fmt.Errorf("local %s is not the host's error log slice", f.Local)
	case path.Clean(f.Remote) != f.Remote:
		return errors.New("not a clean path")
	case src.ErrorLog != "":
		if f.Remote != src.ErrorLog {
			return fmt.Errorf("not the inventory's mysql.error_log %s", src.ErrorLog)
		}
		return nil
	case !strings.HasSuffix(f.Remote, ".err") && !strings.HasSuffix(f.Remote, ".log"):
		return errors.New("an error log ends in .err or .log")
	case !under(f.Remote, src.Datadir) && !under(f.Remote, "/var/log"):
		return fmt.Errorf("an error log is in the datadir %s or under /var/log", src.Datadir)
	}
	return nil
}

// under reports whether p is inside dir.
func under(p, dir string) bool {
	return dir != "" && strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
