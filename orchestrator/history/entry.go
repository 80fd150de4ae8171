package history

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/report"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/runs"
)

// Entry is one recorded run: its identity, when and in which campaign it
// ran, its figure and where its run directory is.
type Entry struct {
	// Key names the run across imports: its start and its directory's
	// name, so that recording it again (or from a moved folder) adds
	// nothing.
	Key      string
	Identity Identity
	Start    time.Time
	// Campaign is the matrix the run was a cell of, else the run itself
	// (a directory name); Label its configuration there.
	Campaign string
	Label    string
	Dir      string
	// Value is the run's steady-state figure in Identity.Metric, NaN when
	// the report leaves the run out of its statistics; LowerIsBetter for a
	// time (mysqlslap).
	Value         float64
	LowerIsBetter bool
	State         string
	// Figures are the run's results.csv columns (latency, replicas, costs,
	// noise).
	Figures map[string]string
	// Context is what may explain a change without splitting a series:
	// the hosts, kernels, orch's version, the master's option file.
	Context map[string]string
}

// Extract reads run and matrix directories into entries, with the
// report's own figures (report.RunRecords). A run without a start (parse
// output) has no place in a history and is left out.
func Extract(dirs []string) ([]Entry, error) {
	var out []Entry
	for _, d := range dirs {
		es, err := extractOne(d)
		if err != nil {
			return nil, err
		}
		out = append(out, es...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out, nil
}

// extractOne reads one directory. A matrix cell is read through its
// matrix, which knows its configuration, its fate and its warm-up: its
// figure is the one the matrix's report gives it.
func extractOne(dir string) ([]Entry, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	m := filepath.Dir(filepath.Dir(abs))
	if filepath.Base(filepath.Dir(abs)) != "cells" || !runs.IsMatrix(m) {
		return extract([]string{dir})
	}
	all, err := extract([]string{m})
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, e := range all {
		if same(e.Dir, abs) {
			out = append(out, e)
		}
	}
	return out, nil
}

func same(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return a == b || (err1 == nil && err2 == nil && ra == rb)
}

func extract(dirs []string) ([]Entry, error) {
	recs, err := report.RunRecords(dirs)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, rec := range recs {
		r := rec.Run
		if r.Dir == "" || r.Evidence == nil || r.Evidence.Start.IsZero() {
			continue
		}
		dir, err := filepath.Abs(r.Dir)
		if err != nil {
			return nil, err
		}
		start := r.Evidence.Start.UTC()
		e := Entry{
			Key:      start.Format(time.RFC3339Nano) + " " + filepath.Base(dir),
			Identity: identityOf(rec), Start: start, Campaign: campaignOf(dir), Label: r.Label, Dir: dir,
			Value: rec.Steady, LowerIsBetter: rec.LowerIsBetter, State: r.State, Figures: rec.Figures,
			Context: contextOf(r.Evidence),
		}
		if r.State == "" || r.State == "pending" || r.State == "running" || r.State == "skipped" {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// campaignOf is the matrix directory a cell directory sits in (its
// name), else the run directory's own name.
func campaignOf(dir string) string {
	parent := filepath.Dir(dir)
	if filepath.Base(parent) == "cells" {
		parent = filepath.Dir(parent)
	}
	if runs.IsMatrix(parent) {
		return filepath.Base(parent)
	}
	return filepath.Base(dir)
}

// contextOf keeps the facts that name what else changed at a change
// point: hosts, operating system and kernel, orch's version, and the
// option file orch gave the master.
func contextOf(ev *load.Evidence) map[string]string {
	c := map[string]string{"orch": ev.OrchVersion}
	var hosts []string
	for h := range ev.Roles {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	c["hosts"] = strings.Join(hosts, ", ")
	for _, key := range []string{"kernel", "os"} {
		vals := map[string]string{}
		for _, h := range ev.Facts {
			for _, kv := range h.Facts {
				if kv[0] == key {
					vals[h.Host] = kv[1]
				}
			}
		}
		c[key] = distinct(vals)
	}
	for h, role := range ev.Roles {
		if role == "master" {
			c["master config"] = strings.Join(ev.Config[h], "\n")
		}
	}
	return c
}

// Usable reports whether the entry has a figure for the statistics.
func (e Entry) Usable() bool { return !math.IsNaN(e.Value) && !math.IsInf(e.Value, 0) }

// String is the entry in one line.
func (e Entry) String() string {
	return fmt.Sprintf("%s %s %s", e.Start.Format(time.RFC3339), e.Campaign, e.Label)
}
