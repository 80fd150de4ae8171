package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/shell"
)

// BenchmarkCommands archives the exact client command lines of a run, one
// block per phase, so that a reader can rerun the benchmark by hand.
const BenchmarkCommands = "benchmark/commands.txt"

// AppendCommand adds one client command to benchmark/commands.txt: a
// comment naming the phase and host, then the environment orch exports
// (never the password, which reaches the client on stdin) and the command
// line, with every secret redacted.
func (d *Dir) AppendCommand(phase, host, command string, env map[string]string, secrets ...string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s on %s\n", phase, host)
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := shell.Quote(env[k])
		if secretName(k) {
			v = Mask
		}
		b.WriteString(k + "=" + v + " ")
	}
	b.WriteString(command + "\n")
	line := RedactLine(b.String(), secrets...)
	p, err := d.Abs(BenchmarkCommands)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(p), dirPerm); err != nil {
		return fmt.Errorf("run directory: %s: %w", BenchmarkCommands, err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, filePerm)
	if err != nil {
		return fmt.Errorf("run directory: %s: %w", BenchmarkCommands, err)
	}
	_, werr := f.WriteString(line)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("run directory: %s: %w", BenchmarkCommands, err)
	}
	return nil
}
