package runner

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/monitor"
	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/orchestrator/stacks"
)

// The profiling tail. Thread stacks explain a result (what the server
// waits on), but taking them costs the server: a gdb snapshot stops it
// for a second or more, and perf slows it. So they are never taken inside
// the measured load: after the load and the run's checks, the runner
// starts the same workload again from the first load box, for a few
// seconds, into its own output file (benchmark/profile.txt, which nothing
// parses), samples the stacks under it, stops it, and waits for the slaves
// to apply it so that the next run starts from quiet servers. Events
// profile_start and profile_end bracket it, after load_end, where no figure
// looks. The run's results are written before it starts and nothing in it
// fails the run: a Ctrl-C there loses the stacks, never the run.

const (
	// tailPhase names the tail's files in the working directory.
	tailPhase bench.Phase = "profile"
	// tailOutput is the tail's output in the run directory.
	tailOutput = "benchmark/profile.txt"
	// tailRamp is how long the tail's load runs before sampling starts:
	// the client connects its threads and the servers are loaded again.
	tailRamp = 2 * time.Second
)

// tailIgnoreErrors is sysbench's --mysql-ignore-errors for the tail: its
// own default (deadlocks, lock waits) and duplicate keys, because the
// tail's random ids (oltp_insert with auto_inc=off) can meet the rows the
// run just wrote, and a client that stops there samples nothing.
const tailIgnoreErrors = "--mysql-ignore-errors=1213,1020,1205,1062"

// tailWorkload is the workload the tail runs: the run's own, bounded by
// time to d, duplicate keys ignored (unless the workload says which errors
// to ignore itself). Only a client that runs for a given time can carry
// one; why says why not.
func tailWorkload(w *bench.Workload, d time.Duration) (tw *bench.Workload, why string) {
	if why := w.Spec().Tail; why != "" {
		return nil, why
	}
	c := *w
	secs := int(math.Ceil(d.Seconds()))
	c.Options.TimeS = &secs
	c.Options.Events = nil // bounded by time only
	own := false
	for _, a := range w.ExtraArgs {
		own = own || strings.HasPrefix(a, "--mysql-ignore-errors")
	}
	if !own {
		c.ExtraArgs = append(slices.Clone(w.ExtraArgs), tailIgnoreErrors)
	}
	return &c, ""
}

// profileTail samples the servers' stacks after the run (see above). It
// records what it did in res.Instruments and events; it never fails.
func (r *run) profileTail(ctx context.Context, res *schema.Results) {
	mode := cmp.Or(r.cfg.Stacks, stacks.Auto)
	if mode == stacks.Off {
		return
	}
	p, err := monitor.NewProfiler(r.dir.Path(), monitor.StackConfig{Mode: mode}, r.db.DB())
	if err != nil {
		r.logf("run: no stack samples: %v", err)
		return
	}
	defer p.Close()
	if _, why := tailWorkload(r.cfg.Workload, time.Second); why != "" {
		p.Mark(monitor.KindProfileStart, "skipped")
		p.Mark(monitor.KindProfileEnd, "skipped: "+why)
		r.logf("run: no stack samples: %s", why)
		return
	}
	got := p.Resolve(ctx)
	res.Instruments.Stacks = string(got)
	if got == stacks.Off {
		r.logf("run: no stack samples: no working sampler for --stacks=%s (stacks_error in events.jsonl)", mode)
		return
	}
	res.Instruments.StacksIn = "tail"
	// The run is complete: its results are on disk before the tail starts.
	if err := r.writeResults(res); err != nil {
		r.logf("run: %v", err)
	}
	d := tailRamp + p.Budget() + time.Second
	w, _ := tailWorkload(r.cfg.Workload, d)
	driver, err := bench.NewDriver(w)
	if err != nil {
		r.logf("run: no stack samples: %v", err)
		return
	}
	p.Mark(monitor.KindProfileStart, fmt.Sprintf("%s stacks under %d s of the same workload from %s (%s; no figure reads it)",
		got, *w.Options.TimeS, r.bhost, tailOutput))
	start := time.Now()
	profiles, detail := r.tailLoad(ctx, driver, func(ctx context.Context, until time.Time) []*stacks.Profile {
		return p.Sample(ctx, until)
	}, start.Add(d))
	p.Mark(monitor.KindProfileEnd, fmt.Sprintf("%d profile(s) in %.1f s; %s", len(profiles), time.Since(start).Seconds(), detail))
	if res.Monitor != nil && len(profiles) > 0 {
		res.Monitor.Stacks = monitor.TopStacks(profiles)
	}
	var hosts []string
	for _, pr := range profiles {
		line := fmt.Sprintf("%s %d %s stacks", pr.Host, pr.Samples, pr.Mode)
		if pr.MaxPauseMs != nil {
			line += fmt.Sprintf(" (longest stop %.0f ms)", *pr.MaxPauseMs)
		}
		hosts = append(hosts, line)
	}
	r.logf("run: stacks from the profiling tail: %s", cmp.Or(strings.Join(hosts, ", "), "none"))
}

// tailLoad launches the tail's client, tracked like the run's own (its
// marker: Settle and collect find it), runs sample under it once it has
// ramped up, stops it and waits for the slaves to apply what it wrote. It
// returns the profiles and how the load ended.
func (r *run) tailLoad(ctx context.Context, driver bench.Driver, sample func(context.Context, time.Time) []*stacks.Profile, until time.Time) ([]*stacks.Profile, string) {
	step, err := driver.Step(bench.PhaseRun, r.target())
	if err != nil {
		return nil, "no load: " + err.Error()
	}
	step.Phase = tailPhase
	if err := r.dir.AppendCommand(string(tailPhase), r.bhost, step.String(), step.Env, r.secrets...); err != nil {
		r.logf("run: %v", err)
	}
	target := targetOf(r.target())
	if err := checkAlone(ctx, r.bexec, target); err != nil {
		return nil, "no load: " + err.Error()
	}
	f, err := r.dir.Create(tailOutput)
	if err != nil {
		return nil, "no load: " + err.Error()
	}
	defer f.Close()
	rem, err := Launch(ctx, r.bexec, r.remote, marked(step, r.marker, target))
	if err != nil {
		return nil, "no load: " + err.Error()
	}
	r.logf("%s: profiling tail: %s for up to %s (%s)", r.bhost, step.Name, time.Until(until).Round(time.Second), path.Join(r.remote, string(tailPhase)+".out"))
	followed := make(chan int, 1)
	go func() {
		code, _ := rem.Follow(ctx, f, nil, r.cfg.Reattach, r.logf)
		followed <- code
	}()
	var profiles []*stacks.Profile
	ended := ""
	select {
	case <-ctx.Done():
	case code := <-followed:
		ended = fmt.Sprintf("the load ended before sampling (exit %d; see %s)", code, tailOutput)
		followed <- code
	case <-time.After(tailRamp):
		profiles = sample(ctx, until)
	}
	// Stop it now, sampled or not (with a fresh context after a Ctrl-C):
	// it must never outlive the run. No grace: its output is read by no
	// one, and sysbench 1.0 ignores the SIGINT Stop sends first.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := rem.Stop(sctx, 0); err != nil {
		r.logf("%s: stop the profiling tail: %v", r.bhost, err)
	}
	select {
	case <-followed:
	case <-sctx.Done():
	}
	switch {
	case ctx.Err() != nil:
		return profiles, "interrupted"
	case ended != "":
		return profiles, ended
	}
	// The tail wrote to the master: the slaves apply it now, not during
	// whatever runs next. Not a figure; a failure is only said.
	cu, err := r.waitCaughtUp(ctx, r.db.Master, r.db.Slaves, time.Now(), "replicas applying the profiling tail")
	if err != nil {
		r.logf("run: after the profiling tail: %v", err)
		return profiles, "slaves not caught up after it: " + err.Error()
	}
	var parts []string
	for _, s := range cu.Slaves {
		parts = append(parts, fmt.Sprintf("%s %s", s.Host, s.Waited.Round(time.Millisecond)))
	}
	return profiles, "slaves applied it after " + strings.Join(parts, ", ")
}
