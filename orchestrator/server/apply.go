package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
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
	Steps    []Step
	// Written: orch's file was written on the host. RolledBack: it was
	// then taken back and the server runs on its previous config;
	// RollbackFailed: taking it back failed too (the error says how).
	Written, RolledBack, RollbackFailed bool
}

// Step is one timed step.
type Step struct {
	Name string
	Took time.Duration
}

// run times one step and tells progress about it.
type run struct {
	res      *Result
	progress func(string)
}

func (r run) step(name string, fn func() error) error {
	if r.progress != nil {
		r.progress(name)
	}
	start := time.Now()
	err := fn()
	r.res.Steps = append(r.res.Steps, Step{Name: name, Took: time.Since(start)})
	return err
}

// Apply carries out a plan from Check: it enables the engine, writes the
// file (keeping the old one), confirms with my_print_defaults that orch's
// values win, then either sets the dynamic changes with SET GLOBAL or
// restarts, and finally compares SHOW GLOBAL VARIABLES with every intended
// value. Any failure puts the previous file back (and the server on it)
// before returning, so nothing is left half-configured.
func (n *Node) Apply(ctx context.Context, cfg *Config, p *Plan, progress func(step string)) (*Result, error) {
	res := &Result{Host: cfg.Host, Pending: p.Pending, Warnings: p.Warnings}
	if !p.Changed() {
		res.Unchanged = true
		return res, nil
	}
	r := run{res: res, progress: progress}
	if p.FixTHP {
		if err := r.step("turn transparent huge pages off", func() error {
			_, err := n.Exec.Run(ctx, executor.Command{Script: thpScript, Sudo: true, Timeout: commandTimeout})
			if err == nil {
				n.Facts.THPEnabled, n.Facts.THPDefrag = "never", "never"
			}
			return err
		}); err != nil {
			return res, n.errorf("turn transparent huge pages off: %w", stripHost(err))
		}
	}
	installed := false
	if len(p.EnableEngine) > 0 {
		if err := r.step("enable "+p.engine.name, func() error { return flavor.Run(ctx, session{n.db}, p.EnableEngine) }); err != nil {
			err = n.errorf("enable %s: %w%s", p.engine.name, err, engineHint(p.engine))
			uctx, cancel := n.undoContext(ctx)
			defer cancel()
			return res, rolledBack(res, err, flavor.Run(uctx, session{n.db}, uninstallStatements(n.Server, p.engine)))
		}
		installed = true
	}
	undo := func(restart bool) error { return n.undo(ctx, r, p, installed, restart) }
	res.Written = true // from here on, whatever fails, the file goes back
	if err := r.step("write "+n.configPath(), func() (err error) {
		p.old.createdOrig, err = n.writeConfig(ctx, p.old, cfg.Text)
		return err
	}); err != nil {
		return res, rolledBack(res, err, undo(false))
	}
	if err := r.step("check option files", func() error {
		opts, err := n.printDefaults(ctx)
		if err != nil {
			return err
		}
		return checkWinners(n.Host.String(), n.configPath(), cfg.Vars, opts)
	}); err != nil {
		return res, rolledBack(res, err, undo(false))
	}
	if p.NeedsRestart {
		if err := r.step("restart", func() error { return n.restartOrRollBack(ctx, r, "with the new config", p.old, installed, p.engine) }); err != nil {
			return res, err
		}
		res.Restarted = true
	} else if len(p.Dynamic) > 0 {
		var set []Change
		err := r.step("set global", func() error {
			for _, c := range p.Dynamic {
				if err := n.setGlobal(ctx, c.Name, c.To, p.current[c.Name]); err != nil {
					return err
				}
				set = append(set, c)
			}
			return nil
		})
		if err != nil {
			uctx, cancel := n.undoContext(ctx)
			defer cancel()
			return res, rolledBack(res, err, errors.Join(n.unset(uctx, set, p.current), undo(false)))
		}
		for _, c := range set {
			res.SetGlobal = append(res.SetGlobal, c.Name)
		}
	}
	if err := r.step("verify", func() error { return n.verify(ctx, cfg, res) }); err != nil {
		var uerr error
		if !res.Restarted {
			uctx, cancel := n.undoContext(ctx)
			defer cancel()
			uerr = n.unset(uctx, p.Dynamic, p.current)
		}
		return res, rolledBack(res, err, errors.Join(uerr, undo(res.Restarted)))
	}
	return res, nil
}

func engineHint(e engineInfo) string {
	if e.name == "tokudb" {
		return " (TokuDB needs jemalloc: malloc-lib in [mysqld_safe], as ps-admin --enable-tokudb sets up)"
	}
	return ""
}

// setGlobal applies one dynamic change.
func (n *Node) setGlobal(ctx context.Context, name, value, current string) error {
	stmt := "SET GLOBAL " + name + " = " + sqlLiteral(value, current)
	if err := n.db.exec(ctx, stmt); err != nil {
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
			if pluginFor(n.Server, v.Name) != "" {
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
