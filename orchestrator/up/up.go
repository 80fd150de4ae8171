// Package up brings a 1-master/2-slave cluster to the wanted state and takes
// it back down: engine profile and knobs on every database host (validated
// before anything restarts, hosts in parallel), then semi-sync replication,
// then proof that it works. It coordinates orchestrator/server (config and
// restarts) and orchestrator/replication (wiring and verification).
package up

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/replication"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/topology"
)

// DefaultVerifyTimeout bounds the proof that replication works.
const DefaultVerifyTimeout = 60 * time.Second

// Options are what `orch up` was asked for.
type Options struct {
	Desired       server.Desired
	VerifyTimeout time.Duration
	// Events hears every step as it begins and ends, and every message
	// (nil: nobody listens).
	Events *step.Stream
	// CheckPaths proves the network paths a run uses (slaves and the load
	// box to the master's port, package preflight) before anything
	// restarts; it needs the load box connected too.
	CheckPaths bool
	// AdoptAccounts (--adopt-accounts) lets up take over existing accounts
	// with orch's names that orch did not make, saying what it changes.
	AdoptAccounts bool
}

// Report is what Up did and found.
type Report struct {
	Hosts       []*server.Result    `json:"hosts"`
	Replication *replication.Result `json:"replication"`
	Status      *replication.Status `json:"status"`
	Warnings    []string            `json:"warnings,omitempty"`
	// Dynamic are the knobs set at run time on an existing server, with
	// the values PutBack restores.
	Dynamic []server.Change `json:"dynamic,omitempty"`
	Timings []Timing        `json:"timings"`
	Total   time.Duration   `json:"total_ns"`
}

// Timing is one step's wall time on one host ("cluster" for steps that span
// hosts).
type Timing struct {
	Host string        `json:"host"`
	Step string        `json:"step"`
	Took time.Duration `json:"took_ns"`
}

// recorder is how up's work speaks: every step, its time and every
// message go to the command's event stream (opts.Events), and the
// report's timings are the step ends the stream carried.
type recorder struct {
	events *step.Stream
	mu     sync.Mutex
	// timings are the stream's step ends while the recorder listens.
	timings []Timing
	stop    func()
}

// newRecorder listens to events (a stream of its own when nil) until
// close.
func newRecorder(events *step.Stream) *recorder {
	if events == nil {
		events = &step.Stream{}
	}
	r := &recorder{events: events}
	r.stop = events.Subscribe(func(e step.Event) {
		if e.Kind == step.Ended {
			r.mu.Lock()
			r.timings = append(r.timings, Timing{Host: e.Host, Step: e.Step, Took: e.Took})
			r.mu.Unlock()
		}
	})
	return r
}

// close stops listening and returns the timings heard.
func (r *recorder) close() []Timing {
	r.stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.timings
}

// note reports a message on host.
func (r *recorder) note(host, msg string) { r.events.Note(host, msg) }

func (r *recorder) done(host, step string, start time.Time) { r.add(host, step, time.Since(start)) }

// add records a step that took took.
func (r *recorder) add(host, step string, took time.Duration) { r.events.End(host, step, took) }

// Up configures every database host and wires replication. Nothing restarts
// until every host's profile and knobs have been validated against its
// server; a host that fails to start with the new config is rolled back by
// the server package.
func Up(ctx context.Context, c *cluster.Cluster, opts Options) (*Report, error) {
	start := time.Now()
	inv := c.Inventory
	if inv.Existing {
		return upExisting(ctx, c, opts)
	}
	rec := newRecorder(opts.Events)
	defer rec.stop()
	if err := inv.ValidateCluster(); err != nil {
		return nil, err
	}
	// Stock hosts first: orch's own accounts, made through root's unix socket.
	if err := account.Ensure(ctx, c, account.EnsureOptions{Adopt: opts.AdoptAccounts, Events: rec.events}); err != nil {
		return nil, err
	}
	if err := checkPaths(ctx, c, opts); err != nil {
		return nil, err
	}
	params, err := replicationParams(inv)
	if err != nil {
		return nil, err
	}
	sessions, err := openNodes(ctx, c, rec)
	if err != nil {
		return nil, err
	}
	nodes := sessions.DB()
	for _, n := range sessions.Slaves { // before any restart, as every check
		if params.ReplPassword == "" {
			break // orch generates it, after claimNames: it fits every server
		}
		if err := n.Server.CheckReplPassword(params.ReplPassword); err != nil {
			return nil, fmt.Errorf("%s: replication.password (%s): %w (nothing was restarted)", n.Host, inv.Replication.Password, err)
		}
	}
	if err := claimNames(ctx, inv, nodes, &params, opts.AdoptAccounts, rec); err != nil {
		return nil, err
	}
	if params.ReplPassword == "" {
		// Decided: orch may make the replication account; now its
		// password exists (a refused up leaves no file behind).
		if err := account.Generate(inv); err != nil {
			return nil, err
		}
		if params.ReplPassword, err = inv.Replication.Password.Resolve(); err != nil {
			return nil, fmt.Errorf("%s: replication password: %w", inv.Source, err)
		}
	}

	// Validate everything first: a bad knob must not restart anything.
	configs, plans, err := check(ctx, nodes, inv, opts.Desired, rec)
	if err != nil {
		return nil, err
	}
	rep := &Report{}

	// Apply on all hosts at once: restarts overlap, which is the point.
	rep.Hosts = make([]*server.Result, len(nodes))
	errs := orchestrator.ForEach(ctx, 0, nodes, func(ctx context.Context, i int, n *server.Node) error {
		res, err := n.Apply(ctx, configs[i], plans[i], step.HostEvents{Stream: rec.events, Host: n.Host.Name})
		rep.Hosts[i] = res
		return err
	})
	for _, res := range rep.Hosts {
		if res != nil {
			rep.Warnings = append(rep.Warnings, res.Overrides...)
		}
	}
	if orchestrator.Aggregate(errs) != nil || ctx.Err() != nil {
		// The hosts that took the new config go back to their previous
		// one: a cluster half on it (a knob that locks people out, a
		// version of the config the others lack) is left to nobody.
		errs = append(errs, takeBack(ctx, nodes, rep.Hosts)...)
		return rep, applyFailed(ctx, nodes, rep.Hosts, errs[:len(nodes)], errs[len(nodes):]...)
	}

	master, slaves := sessions.Master, sessions.Slaves
	t0 := time.Now()
	rep.Replication, err = replication.Setup(ctx, master, slaves, params, rec.events)
	rec.done("cluster", "replication setup", t0)
	if err != nil {
		doing := "setting up replication"
		if rep.Replication != nil && rep.Replication.Undone {
			doing += " (what it had changed was undone)"
		}
		return rep, backAfter(ctx, nodes, rep.Hosts, replicationInterrupted(ctx, doing, err))
	}
	t0 = time.Now()
	timeout := opts.VerifyTimeout
	if timeout == 0 {
		timeout = DefaultVerifyTimeout
	}
	rep.Status, err = replication.Verify(ctx, master, slaves, timeout)
	rec.done("cluster", "verify", t0)
	rep.Timings, rep.Total = rec.close(), time.Since(start)
	if err != nil {
		return rep, backAfter(ctx, nodes, rep.Hosts, replicationInterrupted(ctx, "verifying replication", err))
	}
	return rep, nil
}

// takeBack puts every host Apply changed back on its previous config and
// proves orch logs in there (server.Node.TakeBack), in parallel; it
// returns the failures.
func takeBack(ctx context.Context, nodes []*server.Node, results []*server.Result) []error {
	return orchestrator.ForEach(context.WithoutCancel(ctx), 0, nodes, func(ctx context.Context, i int, n *server.Node) error {
		return n.TakeBack(ctx, results[i])
	})
}

// backAfter is err of a replication step that failed once every host ran
// the new config: the hosts are put back on their previous config, and the
// error says where each was left.
func backAfter(ctx context.Context, nodes []*server.Node, results []*server.Result, err error) error {
	if _, interrupted := err.(*Interrupted); interrupted {
		return err // Ctrl-C: the next up sets replication up again
	}
	back := takeBack(ctx, nodes, results)
	var lines []string
	for i, n := range nodes {
		lines = append(lines, n.Host.String()+": "+outcome(results[i], back[i]))
	}
	return fmt.Errorf("%w\nthe previous config was put back on every host it had changed:\n  %s%s", err, strings.Join(lines, "\n  "), joinedErr(back))
}

// joinedErr is "\n" and the errors, "" when there are none.
func joinedErr(errs []error) string {
	if err := orchestrator.Aggregate(errs); err != nil {
		return "\n" + err.Error()
	}
	return ""
}

// replicationInterrupted words an error of the replication phase when
// Ctrl-C caused it: the servers already run their new config, and setting
// up replication again is what the next up does anyway.
func replicationInterrupted(ctx context.Context, doing string, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return &Interrupted{Summary: "every database host runs its new config; interrupted while " + doing + ": the next orch up sets it up again"}
}

// check renders each host's config and checks it against its server.
func check(ctx context.Context, nodes []*server.Node, inv *topology.Inventory, d server.Desired, rec *recorder) ([]*server.Config, []*server.Plan, error) {
	configs := make([]*server.Config, len(nodes))
	plans := make([]*server.Plan, len(nodes))
	errs := orchestrator.ForEach(ctx, 0, nodes, func(ctx context.Context, i int, n *server.Node) error {
		t0 := time.Now()
		t, err := n.Target(ctx, inv)
		if err != nil {
			return err
		}
		if configs[i], err = server.Render(t, d); err != nil {
			return err
		}
		if plans[i], err = n.Check(ctx, configs[i]); err != nil {
			return err
		}
		rec.done(n.Host.Name, "check config", t0)
		return nil
	})
	return configs, plans, orchestrator.Aggregate(errs)
}

// Validate checks several wanted states against every server without
// changing anything (a matrix validates all its cells before the first
// runs). It returns the master's server, for flavour-dependent decisions.
func Validate(ctx context.Context, c *cluster.Cluster, want []server.Desired) (flavor.Server, error) {
	if c.Inventory.Existing {
		return validateExisting(ctx, c, want)
	}
	sessions, err := openNodes(ctx, c, &recorder{})
	if err != nil {
		return flavor.Server{}, err
	}
	nodes := sessions.DB()
	for _, d := range want {
		if _, _, err := check(ctx, nodes, c.Inventory, d, &recorder{}); err != nil {
			return flavor.Server{}, err
		}
	}
	return sessions.Master.Server, nil
}

// replicationParams maps the inventory's settings onto the flavour plans'.
func replicationParams(inv *topology.Inventory) (flavor.Params, error) {
	r := inv.Replication
	if !r.SemiSync.Enabled {
		return flavor.Params{}, fmt.Errorf("%s: replication.semi_sync.enabled=false: asynchronous clusters are not supported yet; orch sets up semi-sync replication", inv.Source)
	}
	pw := "" // orch makes it once up has decided on the account (Up)
	if !r.PasswordManaged || !account.Pending(r.Password) {
		var err error
		if pw, err = r.Password.Resolve(); err != nil {
			return flavor.Params{}, fmt.Errorf("%s: replication password: %w", inv.Source, err)
		}
	}
	m := inv.Master()
	port := m.MySQL.Port
	if port == 0 {
		port = topology.DefaultMySQLPort
	}
	return flavor.Params{
		MasterHost:          m.PeerAddress(),
		MasterPort:          port,
		ReplUser:            r.User,
		ReplPassword:        pw,
		SemiSyncTimeoutMS:   r.SemiSync.TimeoutMs,
		WaitPoint:           r.SemiSync.WaitPoint,
		WaitForReplicaCount: r.SemiSync.WaitForSlaveCount,
	}, nil
}

// openNodes returns the cluster's database sessions, opening those this
// command has not opened yet. A server left stopped (orch killed
// mid-restart) is started again rather than failing the whole command.
func openNodes(ctx context.Context, c *cluster.Cluster, rec *recorder) (*cluster.Sessions, error) {
	return c.Open(ctx, cluster.OpenOptions{
		Recover: func(ctx context.Context, h *topology.Host, ex executor.Executor, openErr error) (bool, error) {
			started, err := server.StartIfStopped(ctx, h, ex, openErr, c.DBOpener())
			if err != nil {
				return false, err
			}
			if started {
				rec.note(h.Name, "started the server, which was down")
			}
			return started, nil
		},
		Opened: func(n *server.Node, took time.Duration) {
			rec.add(n.Host.Name, "connect "+n.Server.String(), took)
		},
	})
}
