package topology

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// The ssh, mysql, service and secret sections, shared by defaults and hosts.

var (
	sshKeys     = []string{"user", "port", "identity_files", "passphrase", "password", "jump_host", "sudo", "sudo_password", "connect_timeout"}
	mysqlKeys   = []string{"port", "user", "password", "socket", "datadir", "config_dir", "error_log", "flavor", "service"}
	serviceKeys = []string{"unit", "start", "stop", "status"}
	secretKeys  = []string{"env", "file"}

	envNameRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	unitNameRE = regexp.MustCompile(`^[A-Za-z0-9:_.@\\-]+$`)
	sshUserRE  = regexp.MustCompile(`^[^\s@:]+$`)
)

func (d *yamlDecoder) ssh(n *yaml.Node, path string) ([]sshPatch, error) {
	var out []sshPatch
	err := d.mapping(n, path, sshKeys, func(key string, _, v *yaml.Node) error {
		p := path + "." + key
		var patch sshPatch
		switch key {
		case "user":
			s, err := d.str(v, p)
			if err != nil {
				return err
			}
			if s != "" && !sshUserRE.MatchString(s) {
				return d.errAt(v, "%s: invalid user name %q", p, clip(s))
			}
			patch = func(c *SSHConfig) { c.User = s }
		case "port":
			port, err := d.port(v, p)
			if err != nil {
				return err
			}
			patch = func(c *SSHConfig) { c.Port = port }
		case "identity_files":
			files, err := d.pathList(v, p)
			if err != nil {
				return err
			}
			patch = func(c *SSHConfig) { c.IdentityFiles = append([]string(nil), files...) }
		case "passphrase", "password", "sudo_password":
			s, err := d.secret(v, p)
			if err != nil {
				return err
			}
			switch key {
			case "passphrase":
				patch = func(c *SSHConfig) { c.Passphrase = s }
			case "password":
				patch = func(c *SSHConfig) { c.Password = s }
			default:
				patch = func(c *SSHConfig) { c.SudoPassword = s }
			}
		case "jump_host":
			s, err := d.str(v, p)
			if err != nil {
				return err
			}
			if problem := checkJumpHost(s); s != "" && problem != "" {
				return d.errAt(v, "%s: %q: %s", p, clip(s), problem)
			}
			patch = func(c *SSHConfig) { c.JumpHost = s }
		case "sudo":
			b, err := d.boolean(v, p)
			if err != nil {
				return err
			}
			patch = func(c *SSHConfig) { c.Sudo = b }
		case "connect_timeout":
			t, err := d.duration(v, p)
			if err != nil {
				return err
			}
			patch = func(c *SSHConfig) { c.ConnectTimeout = t }
		}
		out = append(out, patch)
		return nil
	})
	return out, err
}

func (d *yamlDecoder) mysql(n *yaml.Node, path string) ([]mysqlPatch, error) {
	var out []mysqlPatch
	err := d.mapping(n, path, mysqlKeys, func(key string, _, v *yaml.Node) error {
		p := path + "." + key
		var patch mysqlPatch
		switch key {
		case "port":
			port, err := d.port(v, p)
			if err != nil {
				return err
			}
			patch = func(c *MySQLConfig) { c.Port = port }
		case "user":
			s, err := d.str(v, p)
			if err != nil {
				return err
			}
			patch = func(c *MySQLConfig) { c.User = s }
		case "password":
			s, err := d.secret(v, p)
			if err != nil {
				return err
			}
			patch = func(c *MySQLConfig) { c.Password = s }
		case "socket", "datadir", "config_dir", "error_log":
			s, err := d.remotePath(v, p)
			if err != nil {
				return err
			}
			switch key {
			case "socket":
				patch = func(c *MySQLConfig) { c.Socket = s }
			case "datadir":
				patch = func(c *MySQLConfig) { c.Datadir = s }
			case "config_dir":
				patch = func(c *MySQLConfig) { c.ConfigDir = s }
			default:
				patch = func(c *MySQLConfig) { c.ErrorLog = s }
			}
		case "flavor":
			s, err := d.str(v, p)
			if err != nil {
				return err
			}
			// A flavour, optionally with its version (mariadb:10.11.6):
			// with one, a dry run checks knob names before any host.
			if name, _, _ := strings.Cut(s, ":"); s != "" && !flavor.IsFlavor(name) {
				return d.errAt(v, "%s: unknown flavor %q (want %s)", p, clip(s), flavor.FlavorList())
			}
			if _, _, err := flavor.ParseHint(s); s != "" && err != nil {
				return d.errAt(v, "%s: %v (want FLAVOR or FLAVOR:VERSION, e.g. mariadb:10.11.6)", p, err)
			}
			patch = func(c *MySQLConfig) { c.Flavor = s }
		case "service":
			svc, err := d.service(v, p)
			if err != nil {
				return err
			}
			// A service block replaces the inherited one as a whole: a unit
			// and start/stop commands are alternatives, and mixing a default
			// unit with a host's commands would be ambiguous.
			patch = func(c *MySQLConfig) { c.Service = svc }
		}
		out = append(out, patch)
		return nil
	})
	return out, err
}

func (d *yamlDecoder) service(n *yaml.Node, path string) (ServiceControl, error) {
	var (
		svc       ServiceControl
		unitNode  *yaml.Node
		startNode *yaml.Node
		stopNode  *yaml.Node
	)
	err := d.mapping(n, path, serviceKeys, func(key string, k, v *yaml.Node) error {
		p := path + "." + key
		read := d.command
		if key == "unit" {
			read = d.str
		}
		s, err := read(v, p)
		if err != nil {
			return err
		}
		switch key {
		case "unit":
			if s != "" && !unitNameRE.MatchString(s) {
				return d.errAt(v, "%s: invalid systemd unit name %q", p, clip(s))
			}
			svc.Unit, unitNode = s, k
		case "start":
			svc.Start, startNode = s, k
		case "stop":
			svc.Stop, stopNode = s, k
		case "status":
			svc.Status = s
		}
		return nil
	})
	switch {
	case err != nil:
		return svc, err
	case svc.Start != "" && svc.Unit != "":
		return svc, d.errAt(laterOf(unitNode, startNode), "%s: set either unit or start/stop commands, not both", path)
	case svc.Start != "" && svc.Stop == "":
		return svc, d.errAt(startNode, "%s.start: stop is required when start is set", path)
	case svc.Stop != "" && svc.Start == "":
		return svc, d.errAt(stopNode, "%s.stop: start is required when stop is set", path)
	}
	return svc, nil
}

func laterOf(a, b *yaml.Node) *yaml.Node {
	if a.Line > b.Line || a.Line == b.Line && a.Column > b.Column {
		return a
	}
	return b
}

// secret reads {env: VAR} or {file: PATH}. Its errors never quote a value:
// whatever was written here may be the secret itself.
func (d *yamlDecoder) secret(n *yaml.Node, path string) (Secret, error) {
	const hint = "use {env: VAR} or {file: PATH}"
	n = deref(n)
	switch {
	case isNull(n):
		return Secret{}, d.errAt(n, "%s: no value; %s", path, hint)
	case n.Kind == yaml.ScalarNode:
		return Secret{}, d.errAt(n, "%s: inline secrets are not allowed; %s", path, hint)
	case n.Kind != yaml.MappingNode:
		return Secret{}, d.errAt(n, "%s: expected {env: VAR} or {file: PATH}; found %s", path, describe(n, false))
	}
	var (
		s     Secret
		first string
	)
	err := d.mapping(n, path, secretKeys, func(key string, k, v *yaml.Node) error {
		if first != "" {
			return d.errAt(k, "%s: set either env or file, not both", path)
		}
		first = key
		p := path + "." + key
		if key == "file" {
			f, err := d.localPath(v, p)
			if err == nil && f == "" {
				err = d.errAt(v, "%s: must not be empty", p)
			}
			s.File = f
			return err
		}
		v, err := d.scalar(v, p, "an environment variable name")
		if err == nil && (v.ShortTag() != "!!str" || !envNameRE.MatchString(v.Value)) {
			err = d.errAt(v, "%s: not a valid environment variable name (letters, digits and '_', not starting with a digit)", p)
		}
		if err == nil {
			s.Env = v.Value
		}
		return err
	})
	if err == nil && first == "" {
		err = d.errAt(n, "%s: empty secret; %s", path, hint)
	}
	if err == nil {
		d.secretRefs = append(d.secretRefs, secretRef{at: d.pos(n), key: path, secret: s})
	}
	return s, err
}

// pathList reads a list of local paths.
func (d *yamlDecoder) pathList(n *yaml.Node, path string) ([]string, error) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		return nil, d.errAt(n, "%s: expected a list of paths; found %s", path, describe(n, false))
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		p, err := d.localPath(item, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		if p == "" {
			return nil, d.errAt(item, "%s[%d]: empty path", path, i)
		}
		out = append(out, p)
	}
	return out, nil
}
