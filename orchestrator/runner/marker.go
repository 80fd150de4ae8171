package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/shell"
)

// Every process of a run's benchmark (the detached wrapper, the step's
// shell, sysbench) carries two variables in its environment, inherited from
// the launch: the run's marker, a random value recorded in the manifest, and
// the database the benchmark loads. orch finds a run's processes by the
// marker, and any orch benchmark loading the same database by the target,
// in /proc/PID/environ, which only the processes' owner (or root) can read.
// A process name would match another user's sysbench, and a PID file names
// whatever process got that number after a reboot.
const (
	envMarker = "ORCH_BENCH_MARKER"
	envTarget = "ORCH_BENCH_TARGET"
)

// newMarker makes a run's marker.
func newMarker() (string, error) {
	b := make([]byte, rundir.MarkerLen/2)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("benchmark marker: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// marked returns step with the run's marker and target in its environment.
func marked(step bench.Step, marker, target string) bench.Step {
	env := maps.Clone(step.Env)
	if env == nil {
		env = map[string]string{}
	}
	env[envMarker], env[envTarget] = marker, target
	step.Env = env
	return step
}

// targetOf names the database a benchmark loads, as its marker records it.
func targetOf(t bench.Target) string { return t.Host + ":" + strconv.Itoa(t.Port) }

// Proc is a benchmark process found by its environment.
type Proc struct {
	PID    int
	Marker string // its run's marker
	Cmd    string // its command line, for the message that names it
}

func (p Proc) String() string {
	cmd := p.Cmd
	if len(cmd) > 100 {
		cmd = cmd[:100] + "..."
	}
	return fmt.Sprintf("pid %d: %s", p.PID, cmd)
}

// describe names a benchmark by the process that does the work (sysbench,
// not the shells that wrap it) and how many processes it has.
func describe(procs []Proc) string {
	if len(procs) == 0 {
		return "none"
	}
	p := procs[0]
	for _, q := range procs {
		if !strings.HasPrefix(q.Cmd, "sh ") {
			p = q
			break
		}
	}
	if len(procs) == 1 {
		return p.String()
	}
	return fmt.Sprintf("%s, %d processes", p, len(procs))
}

// pidsScript sets $pids to the processes whose environment holds the line
// in $k. grep -z reads NUL-separated entries, -x -F matches one whole
// entry literally; unreadable environments (other users') are skipped.
// The script's own shell and grep do not hold $k: it is not exported.
// An environment is anyone's to set, and root reads every user's: only a
// process of the SSH user whose working directory is one of orch's
// private run directories (launch starts the benchmark there) counts.
const pidsScript = `pids() {
  for f in $(grep -lzxF -e "$k" /proc/[0-9]*/environ 2>/dev/null); do
    p=${f#/proc/}; p=${p%/environ}; [ "$p" = "$$" ] && continue
    [ -O "/proc/$p" ] || continue
    case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in "${HOME%/}"/orch-run-*) echo "$p";; esac
  done
}
`

// findProcs lists the processes on ex whose environment has key=value.
func findProcs(ctx context.Context, ex executor.Executor, key, value string) ([]Proc, error) {
	script := "k=" + shell.Quote(key+"="+value) + "\n" + pidsScript + `for p in $(pids); do
  m=$(tr '\0' '\n' < /proc/$p/environ 2>/dev/null | sed -n 's/^` + envMarker + `=//p')
  c=$(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null)
  [ -n "$c" ] && echo "$p ${m:--} $c"
done
exit 0`
	res, err := ex.Run(ctx, executor.Command{Script: script, Timeout: 30 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("%s: look for benchmark processes: %w", ex.Name(), err)
	}
	return parseProcs(string(res.Stdout)), nil
}

// parseProcs reads findProcs' lines: PID MARKER CMDLINE.
func parseProcs(out string) []Proc {
	var procs []Proc
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(strings.TrimSpace(line), " ", 3)
		if len(f) < 3 {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil || pid <= 1 {
			continue
		}
		procs = append(procs, Proc{PID: pid, Marker: f[1], Cmd: strings.TrimSpace(f[2])})
	}
	return procs
}

// RunningProcs lists what still runs of the benchmark rem records, by its
// marker. A run recorded without a marker (an older orch) is looked for by
// its session leader's PID, which proves less.
func RunningProcs(ctx context.Context, ex executor.Executor, rem *rundir.Remote) ([]Proc, error) {
	if rem.Marker != "" {
		if !rundir.ValidMarker(rem.Marker) {
			return nil, fmt.Errorf("%s: benchmark marker %q is not one orch makes", ex.Name(), rem.Marker)
		}
		return findProcs(ctx, ex, envMarker, rem.Marker)
	}
	if rem.PID <= 1 {
		// No PID yet (the run stopped before launching): nothing runs.
		// `kill -0 0` would signal this shell's own group and say yes.
		return nil, nil
	}
	script := "if kill -0 " + strconv.Itoa(rem.PID) + " 2>/dev/null; then echo running; fi"
	res, err := ex.Run(ctx, executor.Command{Script: script, Timeout: 30 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("%s: benchmark state: %w", ex.Name(), err)
	}
	if strings.TrimSpace(string(res.Stdout)) == "running" {
		return []Proc{{PID: rem.PID, Cmd: "(recorded without a marker)"}}, nil
	}
	return nil, nil
}

// stopMarked stops every process carrying marker: SIGINT, SIGTERM after
// grace, SIGKILL as the last resort. It fails if any is still there, so
// that nothing starts beside it.
func stopMarked(ctx context.Context, ex executor.Executor, marker string, grace time.Duration) error {
	if !rundir.ValidMarker(marker) {
		return fmt.Errorf("%s: benchmark marker %q is not one orch makes", ex.Name(), marker)
	}
	ticks := strconv.Itoa(int(grace / (100 * time.Millisecond)))
	script := "k=" + shell.Quote(envMarker+"="+marker) + "\n" + pidsScript + `stop() {
  ps=$(pids); [ -n "$ps" ] || exit 0
  kill -$1 $ps 2>/dev/null; i=0
  while [ -n "$(pids)" ] && [ $i -lt $2 ]; do sleep 0.1; i=$((i+1)); done
}
stop INT ` + ticks + `
stop TERM 50
stop KILL 50
echo "still running: $(pids | tr '\n' ' ')" >&2
exit 1`
	if _, err := ex.Run(ctx, executor.Command{Script: script, Timeout: grace + time.Minute}); err != nil {
		return fmt.Errorf("%s: stop the benchmark: %w", ex.Name(), err)
	}
	return nil
}

// waitMarked waits until no process carries rem's marker, saying every
// `every` that it still waits (no silent minute).
func waitMarked(ctx context.Context, ex executor.Executor, rem *rundir.Remote, every time.Duration, logf func(string, ...any)) error {
	start, said := time.Now(), time.Now()
	for {
		procs, err := RunningProcs(ctx, ex, rem)
		if err != nil || len(procs) == 0 {
			return err
		}
		if time.Since(said) >= every {
			said = time.Now()
			logf("%s: the benchmark still runs (%s), waited %s", ex.Name(), describe(procs), time.Since(start).Round(time.Second))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// ErrBusy marks a benchmark host where another orch benchmark loads the
// same database.
var ErrBusy = fmt.Errorf("another benchmark runs")

// checkAlone refuses to start a benchmark on ex while another orch
// benchmark loads the same database: two would share its tables (their
// random ids collide) and each other's throughput.
func checkAlone(ctx context.Context, ex executor.Executor, target string) error {
	procs, err := findProcs(ctx, ex, envTarget, target)
	if err != nil {
		return err
	}
	if len(procs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w against %s (%s): wait for it or stop it (orch collect DIR tells its run's state)", ex.Name(), ErrBusy, target, describe(procs))
}
