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
			return res, rolledBack(err, flavor.Run(ctx, session{n.db}, uninstallStatements(n.Server, p.engine)))
		}
		installed = true
	}
	undo := func(restart bool) error { return n.undo(ctx, r, p, installed, restart) }
	if err := r.step("write "+n.configPath(), func() (err error) {
		p.old.createdOrig, err = n.writeConfig(ctx, p.old, cfg.Text)
		return err
	}); err != nil {
		return res, rolledBack(err, undo(false))
	}
	if err := r.step("check option files", func() error {
		opts, err := n.printDefaults(ctx)
		if err != nil {
			return err
		}
		return checkWinners(n.Host.String(), n.configPath(), cfg.Vars, opts)
	}); err != nil {
		return res, rolledBack(err, undo(false))
	}
	if p.NeedsRestart {
		if err := r.step("restart", func() error { return n.restartOrRollBack(ctx, "with the new config", p.old, installed, p.engine) }); err != nil {
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
			return res, rolledBack(err, errors.Join(n.unset(ctx, set, p.current), undo(false)))
		}
		for _, c := range set {
			res.SetGlobal = append(res.SetGlobal, c.Name)
		}
	}
	if err := r.step("verify", func() error { return n.verify(ctx, cfg, res) }); err != nil {
		var uerr error
		if !res.Restarted {
			uerr = n.unset(ctx, p.Dynamic, p.current)
		}
		return res, rolledBack(err, errors.Join(uerr, undo(res.Restarted)))
	}
	return res, nil
}

// rolledBack adds the outcome of the rollback to err.
func rolledBack(err, undoErr error) error {
	if undoErr != nil {
		return errors.Join(err, undoErr)
	}
	return fmt.Errorf("%w (restored the previous config)", err)
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

// undo puts the previous file back, restarting the server on it when it
// had been restarted on the new one, and uninstalls an engine plugin this
// apply installed.
func (n *Node) undo(ctx context.Context, r run, p *Plan, installed, restart bool) error {
	var err error
	_ = r.step("roll back", func() error {
		err = n.putBack(ctx, p.old)
		if err == nil && restart {
			err = n.Restart(ctx)
		}
		if installed {
			err = errors.Join(err, flavor.Run(ctx, session{n.db}, uninstallStatements(n.Server, p.engine)))
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("rolling back also failed: %w", err)
	}
	return nil
}

// restartOrRollBack restarts the server on the new file. When it does not
// come up, the error log's lines written since the attempt explain why,
// the previous file goes back and the server is started on it.
func (n *Node) restartOrRollBack(ctx context.Context, with string, old fileState, installed bool, e engineInfo) error {
	size, sizeErr := logSize(ctx, n.Exec, n.Facts.ErrorLog)
	err := n.Restart(ctx)
	if err == nil {
		return nil
	}
	why := []string{err.Error()}
	if sizeErr == nil {
		if slice, lerr := logSince(ctx, n.Exec, n.Facts.ErrorLog, size); lerr == nil {
			if lines := relevantErrors(slice, 5); len(lines) > 0 {
				why = lines
			}
		}
	}
	_ = n.Stop(ctx) // a half-started server, or a service manager retrying
	msg := fmt.Sprintf("%s: server did not start %s (restored the previous one): %s", n.Host, with, strings.Join(why, "; "))
	if perr := n.putBack(ctx, old); perr != nil {
		return fmt.Errorf("%s; and restoring failed: %w", strings.Replace(msg, " (restored the previous one)", "", 1), perr)
	}
	if serr := n.Start(ctx); serr != nil {
		return fmt.Errorf("%s; and it did not start with the previous one either: %w", msg, serr)
	}
	if installed {
		if uerr := flavor.Run(ctx, session{n.db}, uninstallStatements(n.Server, e)); uerr != nil {
			return fmt.Errorf("%s; and uninstalling %s failed: %w", msg, e.name, uerr)
		}
	}
	return errors.New(msg)
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
