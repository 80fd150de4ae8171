package topology

import (
	"math"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// The replication and profile sections: cluster-wide settings for `orch up`.
// The inventory starts out holding their defaults (newInventory), so a key
// that is present simply overwrites its default.

var (
	replKeys     = []string{"user", "password", "semi_sync"}
	semiSyncKeys = []string{"enabled", "timeout_ms", "wait_point", "wait_for_slave_count"}
	profileKeys  = []string{"engine", "dir", "vars"}

	// replUserRE keeps the account name a plain identifier: it ends up in
	// CREATE USER, GRANT and CHANGE MASTER statements on every flavour.
	replUserRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
	// engineRE: an engine profile name is also a file name (NAME.cnf in
	// profile.dir), so no dots or slashes.
	engineRE  = regexp.MustCompile(`^[a-z0-9_]+$`)
	varNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
)

// maxReplUserLen is MySQL's user name limit (MariaDB allows more); a longer
// name would only fail later, on the server.
const maxReplUserLen = 32

// replication reads the replication section into r. It returns the
// wait_for_slave_count node when that key is set, to be checked against the
// number of slaves once the hosts are known.
func (d *yamlDecoder) replication(n *yaml.Node, r *Replication) (countNode *yaml.Node, err error) {
	err = d.mapping(n, "replication", replKeys, func(key string, _, v *yaml.Node) (err error) {
		p := "replication." + key
		switch key {
		case "user":
			r.User, err = d.replUser(v, p)
			r.UserNamed = true
		case "password":
			r.Password, err = d.secret(v, p)
		case "semi_sync":
			countNode, err = d.semiSync(v, p, &r.SemiSync)
		}
		return err
	})
	return countNode, err
}

func (d *yamlDecoder) replUser(n *yaml.Node, path string) (string, error) {
	s, err := d.str(n, path)
	switch {
	case err != nil:
		return "", err
	case s == "":
		return "", d.errAt(n, "%s: must not be empty (leave the key out for the default %s)", path, DefaultReplUser)
	case !replUserRE.MatchString(s):
		return "", d.errAt(n, "%s: invalid user name %q (letters, digits, '_', '.' and '-', not starting with '.' or '-')", path, clip(s))
	case len(s) > maxReplUserLen:
		return "", d.errAt(n, "%s: user name %q is longer than %d characters", path, clip(s), maxReplUserLen)
	}
	return s, nil
}

func (d *yamlDecoder) semiSync(n *yaml.Node, path string, s *SemiSync) (countNode *yaml.Node, err error) {
	err = d.mapping(n, path, semiSyncKeys, func(key string, _, v *yaml.Node) (err error) {
		p := path + "." + key
		switch key {
		case "enabled":
			if s.Enabled, err = d.boolean(v, p); err == nil && !s.Enabled {
				d.asyncAt = d.pos(v)
			}
		case "timeout_ms":
			s.TimeoutMs, err = d.positive(v, p, "a whole number of milliseconds")
		case "wait_point":
			s.WaitPoint, err = d.waitPoint(v, p)
		case "wait_for_slave_count":
			var c uint64
			if c, err = d.positive(v, p, "a number of slaves"); err == nil {
				// Clamped only so it fits an int: anything this large is
				// rejected by the check against the number of slaves.
				s.WaitForSlaveCount, countNode = int(min(c, math.MaxInt32)), deref(v)
			}
		}
		return err
	})
	return countNode, err
}

// waitPoint reads AFTER_SYNC or AFTER_COMMIT in any letter case. The case
// is folded in ASCII only: Unicode folding would accept "after_ſync".
func (d *yamlDecoder) waitPoint(n *yaml.Node, path string) (string, error) {
	s, err := d.str(n, path)
	if err != nil {
		return "", err
	}
	upper := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
	if upper != "AFTER_SYNC" && upper != "AFTER_COMMIT" {
		return "", d.errAt(n, "%s: unknown wait point %q (want AFTER_SYNC or AFTER_COMMIT)", path, clip(s))
	}
	return upper, nil
}

// checkWaitCount rejects a wait_for_slave_count no commit could ever meet.
func (d *yamlDecoder) checkWaitCount(countNode *yaml.Node, count int, hosts []*yamlHost) error {
	slaves := 0
	for _, h := range hosts {
		if h.decl.host.Role == RoleSlave {
			slaves++
		}
	}
	if count > slaves {
		return d.errAt(countNode, "replication.semi_sync.wait_for_slave_count: %s is more than the number of slaves (%d)", countNode.Value, slaves)
	}
	return nil
}

func (d *yamlDecoder) profile(n *yaml.Node, p *Profile) error {
	return d.mapping(n, "profile", profileKeys, func(key string, _, v *yaml.Node) (err error) {
		path := "profile." + key
		switch key {
		case "engine":
			if p.Engine, err = d.str(v, path); err == nil && !engineRE.MatchString(p.Engine) {
				err = d.errAt(v, "%s: invalid profile name %q (lowercase letters, digits and '_', e.g. innodb)", path, clip(p.Engine))
			}
		case "dir":
			if p.Dir, err = d.localPath(v, path); err == nil && p.Dir == "" {
				err = d.errAt(v, "%s: must not be empty (leave the key out for the built-in profiles)", path)
			}
		case "vars":
			p.Vars, err = d.vars(v, path)
		}
		return err
	})
}

// vars reads server variable overrides. Names are stored the way the server
// compares them ('-' and '_' are the same, case does not matter), so two
// spellings of one variable are caught here as duplicates rather than
// silently racing in the rendered config.
func (d *yamlDecoder) vars(n *yaml.Node, path string) (map[string]string, error) {
	n = deref(n)
	switch {
	case isNull(n):
		return nil, nil
	case n.Kind != yaml.MappingNode:
		return nil, d.errAt(n, "%s: expected a mapping of server variables to values; found %s", path, describe(n, false))
	}
	out := make(map[string]string, len(n.Content)/2)
	first := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		switch {
		case k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge":
			return nil, d.errAt(k, "%s: merge keys (<<) are not supported", path)
		case k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str":
			return nil, d.errAt(k, "%s: keys must be server variable names; found %s", path, describe(k, true))
		case !varNameRE.MatchString(k.Value):
			return nil, d.errAt(k, "%s: invalid variable name %q (letters, digits, '_' and '-', starting with a letter)", path, clip(k.Value))
		}
		p := path + "." + k.Value
		name := normalizeVar(k.Value)
		if prev := first[name]; prev != nil {
			if prev.Value == k.Value {
				return nil, d.errAt(k, "%s: duplicate key (first at line %d)", p, prev.Line)
			}
			return nil, d.errAt(k, "%s: the same variable as %s (line %d)", p, prev.Value, prev.Line)
		}
		first[name] = k
		val, err := d.varValue(v, p)
		if err != nil {
			return nil, err
		}
		out[name] = val
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// normalizeVar spells a server variable name the canonical way.
func normalizeVar(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, "-", "_"))
}

// varValue reads a value for a config file line, kept exactly as written
// (256M, ON, 0, 0.9): YAML's reading of it as a number or boolean is
// irrelevant to the server.
func (d *yamlDecoder) varValue(n *yaml.Node, path string) (string, error) {
	n, err := d.scalar(n, path, "a value such as 256M, ON or 0")
	if err != nil {
		return "", err
	}
	switch n.ShortTag() {
	case "!!str", "!!int", "!!float", "!!bool":
	default:
		return "", d.errAt(n, "%s: expected a number, string or boolean; found %s", path, describe(n, true))
	}
	switch {
	case strings.ContainsFunc(n.Value, isControl):
		return "", d.errAt(n, "%s: control characters are not allowed (a value is one line)", path)
	case strings.TrimSpace(n.Value) == "":
		return "", d.errAt(n, "%s: must not be empty", path)
	case n.Value != strings.TrimSpace(n.Value):
		return "", d.errAt(n, "%s: leading or trailing spaces", path)
	case strings.ContainsAny(n.Value, "#\"'\\"):
		return "", d.errAt(n, "%s: %q holds # or a quote, which an option file reads differently", path, clip(n.Value))
	}
	return n.Value, nil
}

var benchKeys = []string{"user", "password"}

// benchmark reads the benchmark account: a user, and its password (which
// may be left out for an account without one).
func (d *yamlDecoder) benchmark(n *yaml.Node) (a Account, err error) {
	err = d.mapping(n, "benchmark", benchKeys, func(key string, _, v *yaml.Node) (err error) {
		switch key {
		case "user":
			a.User, err = d.replUser(v, "benchmark.user")
		case "password":
			a.Password, err = d.secret(v, "benchmark.password")
		}
		return err
	})
	if err == nil && a.User == "" {
		err = d.errAt(n, "benchmark: user is required")
	}
	return a, err
}
