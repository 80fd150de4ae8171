package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/orch-bench/orch/orchestrator/suggest"
)

// An existing server (orch run on a server orch did not set up) is
// changed only at run time: each knob must be a variable the server has
// and can set without a restart; orch writes no file and restarts
// nothing, and puts the old values back afterwards.

// CheckDynamic returns the changes the knobs make on the running server,
// or why one cannot be made at run time. Nothing is changed (on MySQL a
// changed variable is set to its own value to learn whether it is
// dynamic, as Check does).
func (n *Node) CheckDynamic(ctx context.Context, knobs []KV) ([]Change, error) {
	current, err := n.Variables(ctx)
	if err != nil {
		return nil, err
	}
	var changes []Change
	var errs []error
	for _, k := range knobs {
		name, _ := canonName(k.Name)
		if !validName(name) {
			errs = append(errs, n.errorf("--knob %q is not a variable name", k.Name))
			continue
		}
		if err := checkValue(name, k.Value); err != nil {
			errs = append(errs, n.errorf("--knob %w", err))
			continue
		}
		cur, ok := current[name]
		if why, absent := n.Server.AbsentVariable(name); !ok && absent {
			errs = append(errs, n.errorf("%s: no such server variable on %s: %s", name, n.Server, why))
			continue
		}
		if !ok {
			errs = append(errs, n.errorf("%s: no such server variable on %s%s", name, n.Server, suggest.DidYouMean(suggest.Closest(name, n.knownNames(current)))))
			continue
		}
		// Compared as SET GLOBAL means it (log_bin=OFF is not the option
		// file's log_bin = BASENAME).
		if sameValue(k.Value, cur) {
			continue
		}
		why := n.staticReason(ctx, name)
		if why == "" {
			why = n.derivedAtRunTime(name, knobs, current)
		}
		if why != "" {
			errs = append(errs, n.errorf("%s: %s: an existing server is changed only at run time (orch restarts nothing and writes no file there)", name, why))
			continue
		}
		changes = append(changes, Change{Name: name, From: cur, To: k.Value})
	}
	return changes, errors.Join(errs...)
}

// SetDynamic makes the changes with SET GLOBAL; on a failure, what was
// already set is put back.
func (n *Node) SetDynamic(ctx context.Context, changes []Change) error {
	for i, c := range changes {
		if err := n.setGlobal(ctx, c.Name, c.To, c.From); err != nil {
			return errors.Join(err, n.PutBack(ctx, changes[:i]))
		}
	}
	return nil
}

// PutBack sets the variables the changes touched to their earlier values,
// last change first.
func (n *Node) PutBack(ctx context.Context, changes []Change) error {
	before := map[string]string{}
	for _, c := range changes {
		before[c.Name] = c.From
	}
	if err := n.unset(ctx, changes, before); err != nil {
		return fmt.Errorf("%s: %w", n.Host, err)
	}
	return nil
}
