package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/topology"
)

// clientFile is one client's raw run output in the run directory
// (clientLocal), when it started, and how to read it.
type clientFile struct {
	name, local string
	start       time.Time
	parse       func(name string, r io.Reader) (bench.Result, error)
}

// mergeClients parses every client's output (the .part file of one that
// was interrupted). The result of one client is the run's, as it parsed,
// with its parse error. Several are merged, the merge saved beside them
// (rundir.BenchmarkRunMerged); nil when some client has no sysbench
// result. The problems met come with it ("" when none).
func mergeClients(d *rundir.Dir, files []clientFile) (bench.Result, string) {
	if len(files) == 1 {
		out, err := parseClientFile(d, files[0])
		if err != nil {
			return out, err.Error()
		}
		return out, ""
	}
	var runs []bench.ClientRun
	var problems []string
	for _, c := range files {
		out, err := parseClientFile(d, c)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", c.name, err))
		}
		if sb, ok := out.(*bench.Sysbench); ok && sb != nil {
			runs = append(runs, bench.ClientRun{Name: c.name, Start: c.start, Result: sb})
		}
	}
	problem := func() string { return topology.CapJoin(problems, topology.MaxListedHosts, "; ") }
	if len(runs) != len(files) {
		return nil, problem()
	}
	m, err := bench.MergeSysbench(runs)
	if err == nil {
		err = d.WriteJSON(rundir.BenchmarkRunMerged, m)
	}
	if err != nil {
		problems = append(problems, err.Error())
	}
	if m == nil {
		return nil, problem() // no typed nil inside the interface
	}
	return m, problem()
}

func parseClientFile(d *rundir.Dir, c clientFile) (bench.Result, error) {
	local := c.local
	p, err := d.Confined(local)
	if err != nil {
		return nil, err
	}
	if _, err := d.Confined(local + rundir.PartSuffix); err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		f, err = os.Open(p + rundir.PartSuffix) // interrupted: what came
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return c.parse(local, f)
}

// inWorkdir reports whether remote is a file in a working directory the
// benchmark had on host (the first load box's or another client's).
func inWorkdir(m *rundir.Manifest, host, remote string) bool {
	for _, rem := range append([]*rundir.Remote{m.Remote}, m.ClientRemotes...) {
		if rem != nil && rem.Host == host && strings.HasPrefix(remote, rem.Dir+"/") {
			return true
		}
	}
	return false
}

// clientsRunning reports whether the benchmark still runs on any load box
// but the first (whose state Collect reads itself).
func clientsRunning(ctx context.Context, hosts map[string]executor.Executor, m *rundir.Manifest) (bool, error) {
	for _, rem := range m.ClientRemotes {
		ex := hosts[rem.Host]
		if rem.Removed || ex == nil {
			continue
		}
		running, _, err := remoteState(ctx, ex, rem)
		if err != nil || running {
			return running, err
		}
	}
	return false, nil
}

// reparseClients is reparse for a run driven from several load boxes:
// once every client's output is in, results.json's benchmark becomes their
// merge, each client aligned on the recorded common start (orch was not
// there to read when each really started). Other keys are kept.
func reparseClients(d *rundir.Dir, m *rundir.Manifest) (bool, error) {
	res, err := readResults(d)
	if err != nil || complete(res.Benchmark.JSON()) {
		return false, err
	}
	var files []clientFile
	for _, rem := range append([]*rundir.Remote{m.Remote}, m.ClientRemotes...) {
		if rem == nil {
			continue
		}
		if _, err := os.Stat(path.Join(d.Path(), rundir.ClientRun(rem.Host))); err != nil {
			return false, nil // not collected (yet): nothing to merge
		}
		files = append(files, clientFile{name: rem.Host, local: rundir.ClientRun(rem.Host), start: rem.StartAt, parse: bench.ParseAuto})
	}
	merged, problem := mergeClients(d, files)
	if merged == nil {
		return false, nil
	}
	b, err := json.Marshal(merged)
	if err != nil {
		return false, err
	}
	if sameJSON(b, res.Benchmark.JSON()) {
		return false, nil
	}
	var w struct{ Name, Tool string }
	json.Unmarshal(m.Workload, &w)
	res.Workload, res.Tool = w.Name, w.Tool
	res.Benchmark = schema.Benchmark{Result: merged}
	res.ParseError = problem
	return true, d.WriteResults(res)
}

// cleanClientWorkdirs removes the other load boxes' working directories
// once everything from them is in (cleanWorkdir does the first one's).
func cleanClientWorkdirs(ctx context.Context, d *rundir.Dir, hosts map[string]executor.Executor, m *rundir.Manifest) error {
	var errs []error
	for _, rem := range m.ClientRemotes {
		host := rem.Host
		_, err := cleanRemote(ctx, d, hosts[host], func(m *rundir.Manifest) *rundir.Remote {
			for _, r := range m.ClientRemotes {
				if r.Host == host {
					return r
				}
			}
			return nil
		})
		errs = append(errs, err)
	}
	return orchestrator.Aggregate(errs)
}
