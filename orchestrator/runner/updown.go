package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/replication"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/orchestrator/up"
	"github.com/orch-bench/orch/topology"
)

// The use cases of `orch up`, `orch down` and `orch status` over one or
// several clusters (each cluster at once, its lines prefixed with its name
// when there are several): the command line only parses their flags into
// these options, calls them and maps their errors to exit statuses.

// ClusterOptions is what up, down and status share.
type ClusterOptions struct {
	Clusters []*topology.Inventory
	// Connect dials the given hosts of a cluster with the command's SSH
	// settings.
	Connect func(ctx context.Context, inv *topology.Inventory, hosts []*topology.Host) *cluster.Cluster
	// LogPath: every command and statement sent goes to this file, one
	// JSON object per line, secrets redacted ("": none).
	LogPath  string
	Out, Err io.Writer
	Verbose  bool
}

// DefaultVerifyTimeout is how long replication may take to prove itself
// unless --verify-timeout says otherwise.
const DefaultVerifyTimeout = up.DefaultVerifyTimeout

// UpOptions is `orch up`.
type UpOptions struct {
	ClusterOptions
	Engine, ProfileDir string
	Knobs              []string
	// DryRun prints each host's files and statements for FlavorHint's
	// server (or the inventory's mysql.flavor); nothing is contacted.
	DryRun        bool
	FlavorHint    string
	FixTHP, JSON  bool
	AdoptAccounts bool
	VerifyTimeout time.Duration
	// AllowUnsafe names settings orch refuses (server.CheckUnsafe) that
	// the user sets anyway (--allow-unsafe-knob), each with a warning.
	AllowUnsafe []string
}

// Up is one `orch up`: NewUp checks its input, Run converges the clusters
// and Unfinished says, while it runs, which hosts are mid-step (what a
// second Ctrl-C leaves behind).
type Up struct {
	o        UpOptions
	desired  server.Desired
	trackers map[string]*step.Tracker
}

// NewUp checks the request before any host is contacted: every fault is
// bad input (orchestrator.IsBadInput), naming the flag or cluster.
func NewUp(o UpOptions) (*Up, error) {
	if err := orchestrator.ValidateClusters(o.Clusters); err != nil {
		return nil, err
	}
	kv, err := server.ParseKnobs(o.Knobs)
	if err != nil {
		return nil, orchestrator.BadInput(err)
	}
	profileDir, err := topology.LocalPath(o.ProfileDir)
	if err != nil {
		return nil, orchestrator.BadInput(fmt.Errorf("--profile-dir: %w", err))
	}
	if o.FlavorHint != "" {
		if !o.DryRun {
			return nil, orchestrator.BadInput(errors.New("--flavor is for --dry-run: a real up reads the flavour from each server"))
		}
		if _, _, err := flavor.ParseHint(o.FlavorHint); err != nil {
			return nil, orchestrator.BadInput(fmt.Errorf("--flavor %s: %w", o.FlavorHint, err))
		}
	}
	u := &Up{o: o, trackers: map[string]*step.Tracker{},
		desired: server.Desired{Engine: o.Engine, Knobs: kv, ProfileDir: profileDir, FixTHP: o.FixTHP}}
	for _, inv := range o.Clusters {
		if err := server.CheckDesiredAs(inv, u.desired, "--engine", o.FlavorHint); err != nil {
			return nil, orchestrator.BadInput(err)
		}
		if err := warnUnsafe(o.Err, inv, kv, o.AllowUnsafe); err != nil {
			return nil, err
		}
		if o.DryRun {
			// A dry run renders for the named flavour: without one it is
			// bad input, said before anything is printed.
			for i, h := range inv.DBHosts() {
				t, err := server.OfflineTarget(h, inv, o.FlavorHint)
				if err != nil {
					return nil, orchestrator.BadInput(err)
				}
				if note := server.OfflineNamesNote(t); i == 0 && note != "" && o.Err != nil && len(kv)+len(inv.Profile.Vars) > 0 {
					fmt.Fprintln(o.Err, note)
				}
			}
		}
		u.trackers[inv.Name] = &step.Tracker{}
	}
	return u, nil
}

// Unfinished lists, over every cluster, the hosts mid-step.
func (u *Up) Unfinished() []string {
	var left []string
	for _, inv := range u.o.Clusters {
		left = append(left, u.trackers[inv.Name].Unfinished()...)
	}
	return left
}

// Run brings every cluster to the engine and knobs asked for, wires and
// proves replication, and prints each cluster's report. An up stopped by
// Ctrl-C is ErrInterrupted to errors.Is.
func (u *Up) Run(ctx context.Context) error {
	o := u.o
	if o.DryRun {
		return orchestrator.OnClusters(ctx, o.Clusters, o.Out, o.Err, func(_ context.Context, inv *topology.Inventory, out, _ io.Writer) error {
			return up.DryRun(out, inv, u.desired, o.FlavorHint)
		})
	}
	return o.withLog("up", func(log *rundir.CommandLog) error {
		err := onClusters(o.JSON)(ctx, o.Clusters, o.Out, o.Err, func(ctx context.Context, inv *topology.Inventory, out, errOut io.Writer) error {
			// The load box too: up proves it can log in before a restart.
			c := o.Connect(ctx, inv, inv.Hosts)
			// Closing sends too (the lock is released on the hosts).
			defer o.logCommands(c, log, inv)()
			defer c.Close()
			if err := c.Lock(ctx, "orch up"); err != nil {
				return err
			}
			events := &step.Stream{}
			stop := Watch(ctx, events, u.trackers[inv.Name], errOut, "up", o.Verbose)
			rep, err := up.Up(ctx, c, up.Options{Desired: u.desired, VerifyTimeout: o.VerifyTimeout, CheckPaths: true,
				Events: events, AdoptAccounts: o.AdoptAccounts})
			stop()
			if rep == nil {
				return err
			}
			if o.JSON {
				if jerr := writeJSON(out, rep); jerr != nil {
					return jerr
				}
				return err
			}
			for _, w := range rep.Warnings {
				fmt.Fprintf(errOut, "up: WARNING %s\n", w)
			}
			if rep.Status != nil {
				fmt.Fprintln(out)
				replication.WriteTable(out, rep.Status)
			}
			if len(rep.Timings) > 0 && o.Verbose {
				fmt.Fprintln(out)
				writeTimings(out, rep.Timings, rep.Total)
			}
			return err
		})
		var intr *up.Interrupted
		if errors.As(err, &intr) {
			return interruptedErr{err}
		}
		return err
	})
}

// Down undoes up on every cluster; purge also drops what orch made.
func Down(ctx context.Context, o ClusterOptions, purge bool) error {
	if err := orchestrator.ValidateClusters(o.Clusters); err != nil {
		return err
	}
	return o.withLog("down", func(log *rundir.CommandLog) error {
		return orchestrator.OnClusters(ctx, o.Clusters, o.Out, o.Err, func(ctx context.Context, inv *topology.Inventory, out, errOut io.Writer) error {
			c := o.Connect(ctx, inv, inv.DBHosts())
			// Closing sends too (the lock is released on the hosts).
			defer o.logCommands(c, log, inv)()
			defer c.Close()
			if err := c.Lock(ctx, "orch down"); err != nil {
				return err
			}
			down := up.Down
			if purge {
				down = up.Purge
			}
			events := &step.Stream{}
			stop := Watch(ctx, events, &step.Tracker{}, errOut, "down", o.Verbose)
			rep, err := down(ctx, c, events)
			stop()
			if rep != nil {
				for _, l := range rep.Purged {
					fmt.Fprintln(errOut, "down: "+l)
				}
				if len(rep.Timings) > 0 && o.Verbose {
					writeTimings(out, rep.Timings, 0)
				}
			}
			if err == nil && !purge {
				fmt.Fprintln(errOut, "down: left "+up.Left(inv))
			}
			return err
		})
	})
}

// Status prints every cluster's replication, semi-sync, lag and what orch
// laid down on each host, as a table or JSON; replication or semi-sync not
// as up left it is an error.
func Status(ctx context.Context, o ClusterOptions, asJSON bool) error {
	return onClusters(asJSON)(ctx, o.Clusters, o.Out, o.Err, func(ctx context.Context, inv *topology.Inventory, out, _ io.Writer) error {
		c := o.Connect(ctx, inv, inv.DBHosts())
		defer c.Close()
		st, err := up.Status(ctx, c)
		if err != nil {
			return err
		}
		if asJSON {
			if err := writeJSON(out, st); err != nil {
				return err
			}
		} else {
			if err := replication.WriteTable(out, st.Status); err != nil {
				return err
			}
			fmt.Fprintln(out)
			up.WriteApplied(out, inv.DBHosts(), st.Applied)
		}
		if problems := st.Problems(); len(problems) > 0 {
			return fmt.Errorf("status: %s", topology.CapJoin(problems, topology.MaxListedHosts, "; "))
		}
		return nil
	})
}

// withLog runs fn with the --log file open (nil without one); a path that
// cannot be written is bad input, found before any host is contacted.
func (o ClusterOptions) withLog(cmd string, fn func(*rundir.CommandLog) error) error {
	if o.LogPath == "" {
		return fn(nil)
	}
	l, err := rundir.OpenCommandLog(o.LogPath)
	if err != nil {
		return orchestrator.BadInput(fmt.Errorf("--log %s: %w", o.LogPath, err))
	}
	err = fn(l)
	// A line the log could not take is a warning: the command did what
	// it did.
	if cerr := l.Close(); cerr != nil {
		fmt.Fprintf(o.Err, "%s: WARNING %v\n", cmd, cerr)
	}
	fmt.Fprintf(o.Err, "%s: commands sent to the hosts are in %s\n", cmd, o.LogPath)
	return err
}

// logCommands sends what c sends to its hosts to l (nil: nowhere) until
// the returned function is called. The cluster's passwords are looked up
// at each line, since up generates some as it goes; with several
// clusters, host names are prefixed with the cluster's.
func (o ClusterOptions) logCommands(c *cluster.Cluster, l *rundir.CommandLog, inv *topology.Inventory) func() {
	if l == nil {
		return func() {}
	}
	several := len(o.Clusters) > 1
	return c.LogCommands(executor.RecorderFunc(func(r executor.Record) {
		r.Secrets = append(r.Secrets, Secrets(inv)...)
		if several {
			r.Host = inv.Name + "/" + r.Host
		}
		l.Record(r)
	}))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeTimings prints per-step wall times, slowest first within each host.
func writeTimings(w io.Writer, timings []up.Timing, total time.Duration) {
	ts := append([]up.Timing(nil), timings...)
	sort.SliceStable(ts, func(i, j int) bool {
		if ts[i].Host != ts[j].Host {
			return ts[i].Host < ts[j].Host
		}
		return ts[i].Took > ts[j].Took
	})
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tSTEP\tTIME")
	for _, t := range ts {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Host, t.Step, t.Took.Round(time.Millisecond))
	}
	if total > 0 {
		fmt.Fprintf(tw, "total\t\t%s\n", total.Round(time.Millisecond))
	}
	tw.Flush()
}

// warnUnsafe refuses, as bad input, a knob or profile.vars setting that
// would open inv's cluster (server.CheckUnsafe), and prints a warning for
// each one allow lets through.
func warnUnsafe(w io.Writer, inv *topology.Inventory, knobs []server.KV, allow []string) error {
	warnings, err := server.CheckUnsafe(inv, knobs, allow)
	if err != nil {
		return orchestrator.BadInput(err)
	}
	for _, s := range warnings {
		if w != nil {
			fmt.Fprintln(w, s)
		}
	}
	return nil
}
