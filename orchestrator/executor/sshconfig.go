package executor

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kevinburke/ssh_config"

	"github.com/orch-bench/orch/topology"
)

// endpoint is one SSH server to log in to, with every setting resolved.
type endpoint struct {
	alias    string // the name as written (inventory address, jump spec)
	hostname string // after ~/.ssh/config HostName
	port     int
	user     string
	// knownHosts is ssh_config's UserKnownHostsFile (tokens expanded),
	// nil when it sets none; strict its StrictHostKeyChecking, lower case.
	knownHosts []string
	strict     string
}

// addr is the dial address, also the name used in known_hosts.
func (e endpoint) addr() string { return net.JoinHostPort(e.hostname, strconv.Itoa(e.port)) }

func (e endpoint) String() string { return e.user + "@" + e.addr() }

// identityFile is a private key to offer; explicit ones come from the
// inventory, and a missing explicit file is an error rather than skipped.
type identityFile struct {
	path     string
	explicit bool
}

// route is how to reach a host: the target and an optional bastion.
type route struct {
	target     endpoint
	jump       *endpoint
	identities []identityFile
}

// sshConfig is a parsed ssh_config file; a nil *sshConfig answers nothing.
type sshConfig struct {
	path string
	cfg  *ssh_config.Config
}

// loadSSHConfig reads the ssh_config to honour: "" means ~/.ssh/config if it
// exists, "none" means none, anything else must exist.
func loadSSHConfig(setting string) (*sshConfig, error) {
	path, optional := setting, false
	switch setting {
	case "none":
		return nil, nil
	case "":
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, nil
		}
		path, optional = filepath.Join(home, ".ssh", "config"), true
	}
	f, err := os.Open(path)
	if err != nil {
		if optional && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("ssh config: %w", err)
	}
	defer f.Close()
	cfg, err := ssh_config.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("ssh config %s: %w", path, err)
	}
	return &sshConfig{path: path, cfg: cfg}, nil
}

func (c *sshConfig) get(alias, key string) string {
	if c == nil {
		return ""
	}
	v, err := c.cfg.Get(alias, key)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(v)
}

// hostName is ssh_config's HostName for alias with %h expanded, "" when
// it sets none.
func (c *sshConfig) hostName(alias string) string {
	if hn := c.get(alias, "HostName"); hn != "" {
		return strings.ReplaceAll(hn, "%h", alias)
	}
	return ""
}

func (c *sshConfig) getAll(alias, key string) []string {
	if c == nil {
		return nil
	}
	v, _ := c.cfg.GetAll(alias, key)
	return v
}

// resolveRoute merges the inventory with ~/.ssh/config (the inventory wins)
// and built-in defaults.
func resolveRoute(h *topology.Host, cf *sshConfig) (route, error) {
	local, err := localUser()
	if err != nil {
		return route{}, err
	}
	home, _ := os.UserHomeDir()

	tgt, err := resolveEndpoint(cf, h.Address, h.SSH.User, h.SSH.Port, local)
	if err != nil {
		return route{}, err
	}
	r := route{target: tgt}

	tokens := func(s string) string { return expandTokens(s, home, local, tgt) }
	switch {
	case len(h.SSH.IdentityFiles) > 0:
		for _, p := range h.SSH.IdentityFiles {
			r.identities = append(r.identities, identityFile{path: tokens(p), explicit: true})
		}
	case len(cf.getAll(h.Address, "IdentityFile")) > 0:
		for _, p := range cf.getAll(h.Address, "IdentityFile") {
			r.identities = append(r.identities, identityFile{path: tokens(p)})
		}
	case home != "":
		for _, n := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
			r.identities = append(r.identities, identityFile{path: filepath.Join(home, ".ssh", n)})
		}
	}

	jump := h.SSH.JumpHost
	if jump == "" {
		jump = cf.get(h.Address, "ProxyJump")
	}
	if jump != "" && jump != "none" {
		if strings.Contains(jump, ",") {
			return route{}, fmt.Errorf("jump host %q: only one hop is supported", jump)
		}
		u, host, port, err := parseJumpSpec(jump)
		if err != nil {
			return route{}, err
		}
		je, err := resolveEndpoint(cf, host, u, port, local)
		if err != nil {
			return route{}, fmt.Errorf("jump host %s: %w", jump, err)
		}
		r.jump = &je
	}
	return r, nil
}

// resolveEndpoint fills an endpoint: explicit values first, then ssh_config
// for the alias, then defaults (local user, port 22).
func resolveEndpoint(cf *sshConfig, alias, user string, port int, local string) (endpoint, error) {
	e := endpoint{alias: alias, hostname: alias, user: user, port: port}
	if hn := cf.hostName(alias); hn != "" {
		e.hostname = hn
	}
	if e.user == "" {
		e.user = cf.get(alias, "User")
	}
	if e.user == "" {
		e.user = local
	}
	if e.port == 0 {
		if p := cf.get(alias, "Port"); p != "" {
			n, err := strconv.Atoi(p)
			if err != nil || n <= 0 || n > 65535 {
				return endpoint{}, fmt.Errorf("%s: Port %q for %s is not a port number", cf.path, p, alias)
			}
			e.port = n
		}
	}
	if e.port == 0 {
		e.port = 22
	}
	if e.port < 0 || e.port > 65535 {
		return endpoint{}, fmt.Errorf("port %d is not a port number", e.port)
	}
	home, _ := os.UserHomeDir()
	for _, f := range strings.Fields(cf.get(alias, "UserKnownHostsFile")) {
		e.knownHosts = append(e.knownHosts, expandTokens(strings.Trim(f, `"`), home, local, e))
	}
	switch v := strings.ToLower(cf.get(alias, "StrictHostKeyChecking")); v {
	case "", "yes", "ask", "accept-new", "no", "off":
		// ask is yes: orch never prompts.
		e.strict = v
	default:
		return endpoint{}, fmt.Errorf("%s: StrictHostKeyChecking %q for %s: want yes, ask, accept-new or no", cf.path, v, alias)
	}
	return e, nil
}

// parseJumpSpec splits "[ssh://][user@]host[:port]".
func parseJumpSpec(spec string) (user, host string, port int, err error) {
	s := strings.TrimPrefix(spec, "ssh://")
	if i := strings.LastIndex(s, "@"); i >= 0 {
		user, s = s[:i], s[i+1:]
	}
	host = s
	if h, p, splitErr := net.SplitHostPort(s); splitErr == nil {
		host = h
		port, err = strconv.Atoi(p)
		if err != nil || port <= 0 || port > 65535 {
			return "", "", 0, fmt.Errorf("jump host %q: bad port %q", spec, p)
		}
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	}
	if host == "" {
		return "", "", 0, fmt.Errorf("jump host %q: no host name", spec)
	}
	return user, host, port, nil
}

// expandTokens handles the ~ and % tokens ssh_config allows in IdentityFile.
func expandTokens(p, home, local string, e endpoint) string {
	if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		p = home + p[1:]
	}
	if !strings.Contains(p, "%") {
		return p
	}
	r := strings.NewReplacer("%%", "%", "%d", home, "%u", local, "%h", e.hostname,
		"%r", e.user, "%p", strconv.Itoa(e.port), "%n", e.alias)
	return r.Replace(p)
}

func localUser() (string, error) {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username, nil
	}
	if u := os.Getenv("USER"); u != "" {
		return u, nil
	}
	return "", errors.New("cannot tell the current user name: set ssh.user in the inventory")
}

// NetworkAddress is the address other hosts must use to reach h: its
// inventory address after ssh_config's HostName. MASTER_HOST and the
// benchmark's target are written with it, because the hosts themselves do
// not read this machine's ssh config, where an alias means something. via
// names the ssh_config file that translated the address ("" when it is used
// as written). sshConfigFile is as in DialConfig. Nothing is contacted.
func NetworkAddress(h *topology.Host, sshConfigFile string) (addr, via string, err error) {
	cf, err := loadSSHConfig(sshConfigFile)
	if err != nil {
		return "", "", err
	}
	hn := cf.hostName(h.Address)
	if hn == "" {
		return h.Address, "", nil
	}
	return hn, cf.path, nil
}

// Target is where orch logs in to h, as user@address:port after the
// inventory, ssh_config (sshConfigFile as in DialConfig) and the defaults
// (the local user, port 22), followed by " via " and the bastion's when
// there is one. Nothing is contacted: orch inventory shows it.
func Target(h *topology.Host, sshConfigFile string) (string, error) {
	cf, err := loadSSHConfig(sshConfigFile)
	if err != nil {
		return "", err
	}
	r, err := resolveRoute(h, cf)
	if err != nil {
		return "", err
	}
	s := r.target.String()
	if r.jump != nil {
		s += " via " + r.jump.String()
	}
	return s, nil
}
