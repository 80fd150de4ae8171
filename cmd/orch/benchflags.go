package main

import (
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/stacks"
)

// benchFlags are the flags of orch run and orch matrix alike: the workload
// and its overrides, where run directories go, and how each run is
// watched.
type benchFlags struct {
	workload, root, stacks string
	sets                   []string
	short                  map[string]*string
	keepRemote             bool
	stallLimit             time.Duration
}

// shortOverrides are the workload options that have a flag of their own
// (--threads 16 for --set threads=16).
var shortOverrides = []string{"threads", "time", "tables", "table-size", "events", "concurrency", "iterations"}

// register defines the flags; what is "the run" or "a cell".
func (b *benchFlags) register(f *pflag.FlagSet, defaultWorkload, what string) {
	f.StringVar(&b.workload, "workload", defaultWorkload, "workload: an embedded name ("+strings.Join(bench.BuiltinWorkloads(), ", ")+") or a YAML file")
	f.StringArrayVar(&b.sets, "set", nil, "workload option override KEY=VALUE (repeatable), e.g. concurrency=4,8")
	b.short = map[string]*string{}
	for _, k := range shortOverrides {
		b.short[k] = f.String(k, "", "workload override: "+k)
	}
	f.StringVar(&b.root, "runs", "runs", "directory that holds run directories")
	f.BoolVar(&b.keepRemote, "keep-remote", false, "keep the benchmark's working directory on the load box (removed once collected)")
	f.DurationVar(&b.stallLimit, "stall-limit", 60*time.Second, "stop "+what+" when the master makes no progress this long")
	f.StringVar(&b.stacks, "stacks", "auto", "thread stacks of the master and a slave, taken in a profiling tail after the run's load and checks "+
		"(a few seconds more of the same workload that no figure reads), never inside the measured load: off, perf, "+
		"gdb (stops the server for each snapshot; the stop is measured), or auto (perf where perf record works, else off)")
}

// allowUnsafeFlag defines --allow-unsafe-knob, which lets one setting orch
// refuses (server.CheckUnsafe) through with a warning.
func allowUnsafeFlag(f *pflag.FlagSet, p *[]string) {
	f.StringArrayVar(p, "allow-unsafe-knob", nil, "set NAME although orch refuses it as opening the cluster to anyone or cutting "+
		"its replicas off (skip_grant_tables, skip_networking, secure_file_priv emptied...; the refusal names it); repeatable; warns")
}

// overrides merges the short flags and --set KEY=VALUE into one map.
func (b *benchFlags) overrides() (map[string]string, error) {
	over := map[string]string{}
	for k, v := range b.short {
		if *v != "" {
			over[k] = *v
		}
	}
	for _, s := range b.sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, usagef("--set %q: want KEY=VALUE", s)
		}
		over[k] = v
	}
	return over, nil
}

// stackMode is --stacks; command names the command in its error.
func (b *benchFlags) stackMode(command string) (stacks.Mode, error) {
	m, err := stacks.ParseMode(b.stacks)
	if err != nil {
		return m, usagef("%s: %v", command, err)
	}
	return m, nil
}
