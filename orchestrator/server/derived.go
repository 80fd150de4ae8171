package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// A few dynamic variables also decide, by their value at startup, another
// variable the server sets itself (flavor.StartupDerived): MariaDB 10.8.4+
// caches its redo log (innodb_log_file_buffering=ON) only when it starts
// with innodb_flush_log_at_trx_commit=2. SET GLOBAL changes the first and
// not the second, so the server runs a config no option file describes and
// the same cell measures differently depending on the cells before it.

// derivedRestarts moves to p.Static, with the reason, every such variable
// of cfg whose derived variable cfg does not set itself and that either
// changes or holds a value set at run time since the start: only a start
// with the config gives the server the config means.
func (n *Node) derivedRestarts(ctx context.Context, cfg *Config, p *Plan) {
	sets := func(name string) bool {
		return slices.ContainsFunc(cfg.Vars, func(v Var) bool { return v.Name == name })
	}
	for _, v := range cfg.Vars {
		derived, how, ok := n.Server.StartupDerived(v.Name)
		if _, has := p.current[derived]; !ok || !has || sets(derived) {
			continue
		}
		why := fmt.Sprintf("the server sets %s at startup (%s), which SET GLOBAL leaves as the last start chose", derived, how)
		if i := slices.IndexFunc(p.Dynamic, func(c Change) bool { return c.Name == v.Name }); i >= 0 {
			c := p.Dynamic[i]
			c.Reason = why
			p.Dynamic = slices.Delete(p.Dynamic, i, i+1)
			p.Static = append(p.Static, c)
			continue
		}
		if slices.ContainsFunc(p.Static, func(c Change) bool { return c.Name == v.Name }) {
			continue
		}
		if origin := n.valueOrigin(ctx, v.Name); origin != "" {
			cur := p.current[v.Name]
			p.Static = append(p.Static, Change{Name: v.Name, From: cur, To: cur,
				Reason: "set at run time since the start (" + origin + "); " + why})
		}
	}
}

// valueOrigin returns "" when name's global value comes from the server's
// start, else what says otherwise: SQL (a SET GLOBAL since), or why the
// origin could not be read (then a restart is the safe side).
func (n *Node) valueOrigin(ctx context.Context, name string) string {
	q, ok := n.Server.ValueOriginQuery(name)
	if !ok {
		return ""
	}
	set, err := n.catalogueIs(ctx, q, "SQL")
	switch {
	case err != nil:
		return "its origin unknown: " + err.Error()
	case set:
		return "GLOBAL_VALUE_ORIGIN SQL"
	}
	return ""
}

// catalogueIs reports whether the one value catalogue query q returns is
// want (case aside).
func (n *Node) catalogueIs(ctx context.Context, q, want string) (bool, error) {
	rows, err := n.db.Query(ctx, q)
	if err != nil {
		return false, err
	}
	return len(rows) == 1 && len(rows[0]) == 1 && strings.EqualFold(rows[0][0], want), nil
}

// derivedAtRunTime returns why knob name cannot be changed on an existing
// server (run time only) when the knobs leave its derived variable to the
// server's last start, "" when it can.
func (n *Node) derivedAtRunTime(name string, knobs []KV, current map[string]string) string {
	derived, how, ok := n.Server.StartupDerived(name)
	if _, has := current[derived]; !ok || !has {
		return ""
	}
	for _, k := range knobs {
		if d, _ := canonName(k.Name); d == derived {
			return ""
		}
	}
	return fmt.Sprintf("the server sets %s at startup (%s), and a SET GLOBAL leaves it as the last start chose: add --knob %s=ON or OFF to say which the run measures",
		derived, how, derived)
}
