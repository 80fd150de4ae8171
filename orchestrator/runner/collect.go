package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/topology"
)

// CollectResult is what `orch collect` did to a run directory.
type CollectResult struct {
	Report *rundir.CollectReport
	// StillRunning is set when the benchmark had not ended: its output was
	// left for a later collect.
	StillRunning bool
	// Parsed is set when results.json was (re)written from collected output.
	Parsed bool
	// RemovedRemote is set when the benchmark's working directory was
	// removed from its host.
	RemovedRemote bool
}

// ErrForeignSource marks a manifest that names files orch did not put
// there: bad input, refused before any host is contacted.
var ErrForeignSource = errors.New("refused")

// Collect completes a run directory from the hosts: the benchmark's output
// once it has ended, error log slices, and anything else the manifest
// expects but the directory lacks. It is idempotent. It fetches only what a
// run of c's inventory put there (see rundir.Sources): a manifest naming
// anything else is refused with ErrForeignSource. After a complete collect
// the benchmark's working directory is removed, unless keepRemote.
func Collect(ctx context.Context, d *rundir.Dir, c *cluster.Cluster, keepRemote bool) (*CollectResult, error) {
	if err := CheckSources(d, c.Inventory); err != nil {
		return nil, err
	}
	m, err := d.LoadManifest()
	if err != nil {
		return nil, err
	}
	hosts := map[string]executor.Executor{rundir.LocalHost: c.Local(rundir.LocalHost)}
	for _, h := range c.Hosts {
		if ex, err := c.Executor(h); err == nil {
			hosts[h.Name] = ex
		}
	}
	res := &CollectResult{}
	if rem := m.Remote; rem != nil && !rem.Removed {
		if ex := hosts[rem.Host]; ex != nil {
			running, code, err := remoteState(ctx, ex, rem)
			if err != nil {
				return nil, err
			}
			res.StillRunning = running
			if others, err := clientsRunning(ctx, hosts, m); err != nil {
				return nil, err
			} else if others {
				res.StillRunning = true
			}
			if !running && m.Status == rundir.StatusRunning {
				// orch itself stopped (a crash) while the benchmark went on.
				err := fmt.Errorf("orch stopped before the run ended; the benchmark ended on its own (exit %d) and was collected later; replicas were not checked", code)
				if err := d.UpdateManifest(func(m *rundir.Manifest) error {
					m.Finish(time.Now().UTC(), rundir.StatusInterrupted, err)
					return nil
				}); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := confirmErrorLogs(ctx, c, m, hosts); err != nil {
		return res, err
	}
	if res.StillRunning {
		// Fetch everything but the benchmark's own output, which is not
		// complete yet: a complete-looking partial file would be wrong.
		hosts = withoutRemoteFiles(hosts, m)
	}
	res.Report, err = rundir.Collect(ctx, d, hosts)
	if res.StillRunning && res.Report != nil {
		err = waitingForBenchmark(res.Report, m, err)
	}
	if err != nil {
		return res, err
	}
	if !res.StillRunning {
		if len(m.ClientRemotes) > 0 {
			res.Parsed, err = reparseClients(d, m)
		} else {
			res.Parsed, err = reparse(d, m)
		}
		if err != nil {
			return res, err
		}
		if m.Remote != nil && !keepRemote {
			res.RemovedRemote, err = cleanWorkdir(ctx, d, hosts[m.Remote.Host])
			if err == nil {
				err = cleanClientWorkdirs(ctx, d, hosts, m)
			}
		}
	}
	return res, err
}

// CheckSources validates d's manifest against what a run of inv may have
// put on its hosts, without contacting any: the error wraps
// ErrForeignSource when the manifest names anything else.
func CheckSources(d *rundir.Dir, inv *topology.Inventory) error {
	m, err := d.LoadManifest()
	if err != nil {
		return err
	}
	if err := sources(inv, path.Base(d.Path())).Check(m); err != nil {
		return fmt.Errorf("%s: %w: %w", d.Path(), ErrForeignSource, err)
	}
	return nil
}

// Waiting is the outcome of a benchmark file left for a later collect
// because the benchmark still writes it.
const Waiting rundir.FileOutcome = "waiting"

// waitingForBenchmark turns the failures of the running benchmark's own
// files into Waiting; err stands only if another file failed.
func waitingForBenchmark(rep *rundir.CollectReport, m *rundir.Manifest, err error) error {
	others := false
	for i := range rep.Files {
		f := &rep.Files[i]
		switch {
		case f.Outcome == rundir.Failed && inWorkdir(m, f.Host, f.Remote):
			f.Outcome, f.Error = Waiting, "the benchmark is still running"
		case f.Outcome == rundir.Failed:
			others = true
		}
	}
	if !others {
		return nil
	}
	return err
}

// remoteState tells whether the benchmark still runs (see RunningProcs),
// or its exit status.
func remoteState(ctx context.Context, ex executor.Executor, rem *rundir.Remote) (running bool, code int, err error) {
	procs, err := RunningProcs(ctx, ex, rem)
	if err != nil {
		return false, -1, err
	}
	script := "d=" + shell.Quote(rem.Dir) + `
for f in "$d"/*.exit; do [ -e "$f" ] || continue; echo "exit $(basename "$f" .exit) $(cat "$f")"; done`
	out, err := ex.Run(ctx, executor.Command{Script: script, Timeout: 30 * time.Second})
	if err != nil {
		return false, -1, fmt.Errorf("%s: benchmark state: %w", ex.Name(), err)
	}
	code = -1
	for _, line := range strings.Split(string(out.Stdout), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "exit" && f[1] == string(bench.PhaseRun) {
			code, _ = strconv.Atoi(f[2])
		}
	}
	return len(procs) > 0, code, nil
}

// withoutRemoteFiles hides the benchmark host from Collect when the only
// files it would fetch there are the running benchmark's.
func withoutRemoteFiles(hosts map[string]executor.Executor, m *rundir.Manifest) map[string]executor.Executor {
	out := map[string]executor.Executor{}
	for name, ex := range hosts {
		keep := true
		for _, f := range m.Expected {
			if f.Host == name && inWorkdir(m, name, f.Remote) {
				keep = false
			}
		}
		if keep {
			out[name] = ex
		}
	}
	return out
}

// reparse fills results.json's benchmark from benchmark/run.txt when it
// has no complete benchmark result yet (an interrupted or detached run),
// keeping everything else it has (and its schema version).
func reparse(d *rundir.Dir, m *rundir.Manifest) (bool, error) {
	runPath, err := d.Confined(rundir.BenchmarkRun)
	if err != nil {
		return false, err
	}
	f, err := os.Open(runPath)
	if err != nil {
		return false, nil // nothing to parse (yet)
	}
	defer f.Close()
	res, err := readResults(d)
	if err != nil || complete(res.Benchmark.JSON()) {
		return false, err
	}
	var w struct{ Name, Tool string }
	json.Unmarshal(m.Workload, &w)
	out, perr := bench.ParseAuto(rundir.BenchmarkRun, f)
	if b, err := json.Marshal(out); err == nil && sameJSON(b, res.Benchmark.JSON()) {
		return false, nil // the same (incomplete) output as last time
	}
	res.Workload, res.Tool = w.Name, w.Tool
	res.Benchmark = schema.Benchmark{Result: out}
	res.ParseError = ""
	if perr != nil {
		res.ParseError = perr.Error()
	}
	return true, d.WriteResults(res)
}

// readResults reads d's results.json, or starts a new one when there is
// none yet.
func readResults(d *rundir.Dir) (*schema.Results, error) {
	res, ok, err := schema.ReadResults(path.Join(d.Path(), rundir.FileResults))
	if err != nil || !ok {
		return schema.NewResults(), err
	}
	return res, nil
}

// complete reports whether a results.json benchmark value is a full result.
func complete(b json.RawMessage) bool {
	if len(b) == 0 || string(b) == "null" {
		return false
	}
	var probe struct {
		Complete *bool `json:"complete"`
	}
	if json.Unmarshal(b, &probe) != nil || probe.Complete == nil {
		return true // mysqlslap blocks (an array) have no complete flag
	}
	return *probe.Complete
}

// sameJSON compares two JSON texts whatever their indentation.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}
