package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/step"
)

// Result is what Apply or Restore did on one host.
type Result struct {
	Host      string
	Unchanged bool // nothing needed doing
	Restarted bool
	// SetGlobal lists the variables changed at run time, without restart.
	SetGlobal []string
	// Pending are plugin variables written to the file whose plugin is
	// not loaded yet (semi-sync on MySQL before the replication step).
	Pending  []string
	Warnings []string
	// Overrides name the server's own settings (from its other option
	// files) that orch's profile replaced without the user asking.
	Overrides []string
	// Steps are the steps done and undone, in order.
	Steps []step.Record
	// Written: orch's file was written on the host. RolledBack: it was
	// then taken back and the server runs on its previous config;
	// RollbackFailed: taking it back failed too (the error says how).
	Written, RolledBack, RollbackFailed bool

	// done is the applied steps' sequence, kept so that TakeBack can undo
	// a change that succeeded here when up fails later or elsewhere.
	done *step.Sequence
}

// Apply carries out a plan from Check as steps that each know their undo:
// enable the engine (undo: uninstall it), write the file keeping the old one
// (undo: put it back, and the server on it), confirm with my_print_defaults
// that orch's values win, then either SET GLOBAL the dynamic changes (undo:
// set them back) or restart, and finally compare SHOW GLOBAL VARIABLES with
// every intended value. Any failure, or a Ctrl-C, undoes what was done,
// newest first, on a context of its own, so nothing is left half-configured
// and no server is left stopped.
func (n *Node) Apply(ctx context.Context, cfg *Config, p *Plan, events step.HostEvents) (*Result, error) {
	res := &Result{Host: cfg.Host, Pending: p.Pending}
	if !p.Changed() {
		res.Unchanged = true
		return res, nil
	}
	q := n.sequence(events)
	defer func() { res.Steps = q.Records }()
	if p.FixTHP {
		if err := q.Do(ctx, step.Step{Name: "turn transparent huge pages off", Do: func(ctx context.Context) error {
			if _, err := n.Exec.Run(ctx, executor.Command{Script: thpScript, Sudo: true, Timeout: commandTimeout}); err != nil {
				return n.errorf("turn transparent huge pages off: %w", stripHost(err))
			}
			n.Facts.THPEnabled, n.Facts.THPDefrag = "never", "never"
			return nil
		}}); err != nil {
			return res, err // nothing else was touched; THP off is harmless
		}
	}
	if len(p.EnableEngine) > 0 {
		if err := q.Do(ctx, step.Step{Name: "enable " + p.engine.Name,
			Do: func(ctx context.Context) error {
				if err := flavor.Run(ctx, n.db, p.EnableEngine); err != nil {
					return n.errorf("enable %s: %w%s", p.engine.Name, err, engineHint(p.engine))
				}
				return nil
			},
			Undo: func(ctx context.Context) error {
				return flavor.Run(ctx, n.db, n.Server.UninstallEngine(p.engine))
			},
			UndoOnFailure: true, // some of the engine's plugins may be in
		}); err != nil {
			return n.rollBack(ctx, q, res, err)
		}
	}
	st := &serverState{}
	res.Written = true
	if err := q.Do(ctx, step.Step{Name: "write " + n.configPath(),
		Do: func(ctx context.Context) (err error) {
			p.old.createdOrig, err = n.writeConfig(ctx, p.old, cfg.Text)
			return err
		},
		Undo:          n.fileUndo(p.old, st),
		UndoOnFailure: true, // a backup made, an upload cut short
	}); err != nil {
		return n.rollBack(ctx, q, res, err)
	}
	if err := q.Do(ctx, step.Step{Name: "check option files", Do: func(ctx context.Context) error {
		opts, err := n.printDefaults(ctx)
		if err != nil {
			return err
		}
		for _, o := range overridden(cfg.Vars, opts) {
			res.Overrides = append(res.Overrides, n.Host.String()+": "+o)
		}
		return checkWinners(n.Host.String(), n.configPath(), n.Facts.PrintDefaults, cfg.Vars, opts)
	}}); err != nil {
		return n.rollBack(ctx, q, res, err)
	}
	if p.DropIn != "" {
		if err := q.Do(ctx, n.dropInStep(p.DropIn)); err != nil {
			return n.rollBack(ctx, q, res, err)
		}
	}
	if p.NeedsRestart {
		if err := q.Do(ctx, n.restartStep("with the new config", st)); err != nil {
			return n.rollBack(ctx, q, res, err)
		}
		res.Restarted = true
	} else if len(p.Dynamic) > 0 {
		var set []Change
		if err := q.Do(ctx, step.Step{Name: "set global",
			Do: func(ctx context.Context) error {
				for _, c := range p.Dynamic {
					if err := n.setGlobal(ctx, c.Name, c.To, p.current[c.Name]); err != nil {
						return err
					}
					set = append(set, c)
				}
				return nil
			},
			Undo:          func(ctx context.Context) error { return n.unset(ctx, set, p.current) },
			UndoOnFailure: true, // the ones set before the failure
		}); err != nil {
			return n.rollBack(ctx, q, res, err)
		}
		for _, c := range set {
			res.SetGlobal = append(res.SetGlobal, c.Name)
		}
	}
	if err := q.Do(ctx, step.Step{Name: "verify", Do: func(ctx context.Context) error {
		if err := n.verifyEngine(ctx, p.engine, st); err != nil {
			return err
		}
		return n.verify(ctx, cfg, res)
	}}); err != nil {
		return n.rollBack(ctx, q, res, err)
	}
	res.done = q
	return res, nil
}

// TakeBack puts a host that Apply changed successfully back on its
// previous config (file, running values, a restart if it restarted), for
// an up that fails afterwards or on another host: a cluster is not left
// half on a config that may lock people out (skip_grant_tables...). It then
// proves orch's session logs in again. Nothing to do when Apply changed
// nothing or already rolled back.
func (n *Node) TakeBack(ctx context.Context, res *Result) error {
	if res == nil || res.done == nil || !res.done.Pending() {
		return nil
	}
	q := res.done
	res.done = nil
	if err := q.Undo(ctx); err != nil {
		res.RollbackFailed = true
		return n.errorf("putting the previous config back: %w", err)
	}
	res.RolledBack = true
	lctx, cancel := n.undoContext(ctx)
	defer cancel()
	var one int
	if err := n.DB.QueryRowContext(lctx, "SELECT 1").Scan(&one); err != nil {
		return n.errorf("back on the previous config, but orch's account cannot log in: %w", err)
	}
	return nil
}

func engineHint(e flavor.EngineSpec) string {
	if e.StartHint == "" {
		return ""
	}
	return " (" + e.StartHint + ")"
}

// setGlobal applies one dynamic change.
func (n *Node) setGlobal(ctx context.Context, name, value, current string) error {
	stmt := "SET GLOBAL " + name + " = " + sqlLiteral(value, current)
	if err := n.db.Exec(ctx, stmt); err != nil {
		return n.errorf("%s: %w", stmt, err)
	}
	return nil
}

// unset puts variables changed at run time back to their earlier values.
func (n *Node) unset(ctx context.Context, changed []Change, before map[string]string) error {
	var errs []error
	for i := len(changed) - 1; i >= 0; i-- {
		c := changed[i]
		if err := n.setGlobal(ctx, c.Name, before[c.Name], before[c.Name]); err != nil {
			errs = append(errs, fmt.Errorf("put back: %w", err))
		}
	}
	return errors.Join(errs...)
}

// verifyEngine makes sure the server runs the profile's engine: a plugin
// engine that did not load (TokuDB without jemalloc preloaded: the server
// starts anyway, without it) is an error with its cause from the error
// log since the restart, never a run on another engine.
func (n *Node) verifyEngine(ctx context.Context, e flavor.EngineSpec, st *serverState) error {
	if e.Plugin == "" {
		return nil
	}
	engines, err := n.engines(ctx)
	if err != nil {
		return err
	}
	for _, s := range engines {
		if s.name == e.Name {
			return nil
		}
	}
	cause := ""
	if st.marked {
		if slice, err := n.LogSince(ctx, st.mark); err == nil {
			cause = e.LoadFailure(slice)
			if cause == "" {
				cause = strings.Join(relevantErrors(slice, 3), "; ")
			}
		}
	}
	if cause == "" {
		cause = "its plugin did not load (see " + n.Facts.ErrorLog + ")"
	}
	return n.errorf("%s runs without %s (information_schema.ENGINES): %s%s", n.Server, e.Display, cause, engineHint(e))
}

// verify compares every intended value the server can show with what it
// shows now.
func (n *Node) verify(ctx context.Context, cfg *Config, res *Result) error {
	now, err := n.Variables(ctx)
	if err != nil {
		return err
	}
	var bad []string
	res.Pending = nil
	for _, v := range cfg.Vars {
		actual, ok := now[v.Name]
		if !ok {
			if n.Server.NeedsLoose(v.Name) {
				res.Pending = append(res.Pending, v.Name)
			}
			continue // option-only, or a plugin's not loaded yet
		}
		if want := shownValue(v.Name, v.Value, v.Bare); !sameValue(want, actual) {
			bad = append(bad, fmt.Sprintf("%s is %s, orch wants %s", v.Name, actual, want))
		}
	}
	if len(bad) > 0 {
		return n.errorf("the server does not run with orch's config: %s", strings.Join(bad, "; "))
	}
	return nil
}
