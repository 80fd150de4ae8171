package topology

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Built-in defaults for a stock systemd host. SSH user and port have none on
// purpose: left zero, the SSH layer consults ~/.ssh/config.
const (
	DefaultMySQLPort = 3306
	DefaultMySQLUser = "root"
	// DefaultManagedUser and DefaultBenchUser are the accounts orch makes
	// on a stock server when the inventory names none.
	DefaultManagedUser    = "orch"
	DefaultBenchUser      = "orch_bench"
	DefaultDatadir        = "/var/lib/mysql"
	DefaultConnectTimeout = 10 * time.Second
	defaultKnownHosts     = "~/.ssh/known_hosts"
	// defaultSSHPort is only used to tell whether two hosts are the same
	// sshd; the inventory keeps 0 ("not set").
	defaultSSHPort = 22
)

// maxInventorySize guards against pointing --inventory at a huge file by
// mistake; real inventories are a few kilobytes.
const maxInventorySize = 1 << 20

// LoadOptions carries what comes from the command line and the environment
// rather than from the inventory file.
//
// A legacy ips.txt cannot say how to reach its hosts, so its hosts get SSH
// and MySQL exactly as given here (plus the per-line SSH port and the
// credentials line). In a YAML inventory the file is more specific: these
// fill only what neither `defaults` nor the host sets.
type LoadOptions struct {
	SSH   SSHConfig
	MySQL MySQLConfig
	// KnownHostsFile is used when the inventory names none
	// (default ~/.ssh/known_hosts).
	KnownHostsFile string
	// KnownHostsOverride replaces the inventory's known_hosts (the
	// --known-hosts flag); "~/" is expanded like every other path.
	KnownHostsOverride string
	// HomeDir expands "~/"; empty means os.UserHomeDir().
	HomeDir string
	// Cluster chooses one cluster of a file with a clusters list (Load
	// refuses such a file without it). LoadSet ignores it.
	Cluster string
}

// Load reads, parses and validates an inventory file. A name ending in .yaml
// or .yml is a YAML cluster file; any other file is sniffed: it is a legacy
// ips.txt when every line looks like an address or a credentials line.
//
// Problems in the file are reported as a *Error naming the file and the
// position ("FILE:LINE:COL: message", "FILE:LINE: message" for ips.txt);
// a file with several problems gets an *Errors of them all, one line each
// in file order (problems found only once the hosts have parsed, such as
// two masters, are checked after the file's other problems are fixed). A file that cannot be
// read gives "FILE: reason" wrapping the os error. Load does not check the
// cluster shape; cluster commands call ValidateCluster.
func Load(path string, opts LoadOptions) (*Inventory, error) {
	o, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	data, err := readInventory(path)
	if err != nil {
		return nil, err
	}
	return parse(path, data, o)
}

// parse is Load after the file has been read: the seam the fuzz tests use.
func parse(path string, data []byte, o LoadOptions) (*Inventory, error) {
	set, err := parseSet(path, data, o)
	if err != nil {
		return nil, err
	}
	return set.pick(o.Cluster)
}

// parseSet reads every cluster of one file and runs the per-cluster checks
// and the checks across its clusters.
func parseSet(path string, data []byte, o LoadOptions) (*Set, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // editors on Windows add a BOM
	var pf parsedFile
	if isYAMLName(path) || !looksLikeIPs(data) {
		var err error
		if pf, err = parseYAML(path, data, o); err != nil {
			return nil, err
		}
	} else {
		inv, decls, err := parseIPs(path, data, o)
		if err != nil {
			return nil, err
		}
		pf.clusters = []parsedCluster{{inv: inv, decls: decls}}
	}
	set := &Set{Sources: []string{path}}
	if pf.list != nil {
		set.Name, set.listPos = pf.list.name, &pf.list.pos
	}
	var errs []error
	for _, c := range pf.clusters {
		inv, err := finishCluster(c, o)
		if err != nil {
			if pf.list != nil {
				err = inCluster(c.inv.Name, err)
			}
			errs = append(errs, err)
			continue
		}
		set.Clusters = append(set.Clusters, inv)
	}
	if err := joinErrors(errs...); err != nil {
		return nil, err
	}
	if err := set.checkDisjoint(); err != nil {
		return nil, err
	}
	return set, nil
}

// finishCluster checks one cluster's hosts against each other and fills
// the settings that depend on them.
func finishCluster(c parsedCluster, o LoadOptions) (*Inventory, error) {
	inv := c.inv
	if err := checkHosts(c.decls, inv.hostsPos); err != nil {
		return nil, err
	}
	inv.Hosts = roleOrder(c.decls)
	if !inv.Replication.Password.IsSet() {
		// The admin password is the one secret every inventory has; a
		// separate replication password is optional.
		inv.Replication.Password = inv.Master().MySQL.Password
	}
	if o.KnownHostsOverride != "" {
		inv.KnownHostsFile = o.KnownHostsOverride
	}
	inv.Replication.PasswordManaged = !inv.Replication.Password.IsSet()
	if m := inv.Master(); inv.Existing && m.MySQL.Managed {
		// orch makes accounts only on servers it sets up (up); one it
		// benchmarks as it is gets none, so without an account named
		// every command would fail at its first login.
		return nil, newError(m.Pos, "existing server "+m.Name+": no mysql.user and mysql.password: orch makes no account on a server it benchmarks as it is; name the account the benchmark logs in with")
	}
	defaultBenchmark(inv)
	if inv.KnownHostsFile == "" {
		inv.KnownHostsFile = o.KnownHostsFile
	}
	if inv.KnownHostsFile == "" {
		kh, err := o.paths("").resolve(defaultKnownHosts)
		if err != nil {
			return nil, &Error{Pos: Pos{File: inv.Source}, Msg: "default known_hosts file: " + err.Error()}
		}
		inv.KnownHostsFile = kh
	}
	return inv, nil
}

// defaultBenchmark fills the benchmark account the file left out: orch's
// own next to a managed admin account (socket-only root can run no
// benchmark), else the master's account, as before there was a setting.
func defaultBenchmark(inv *Inventory) {
	b := &inv.Benchmark
	if b.User != "" {
		return
	}
	m := inv.Master()
	if m.MySQL.Managed && !inv.Existing {
		b.User, b.Managed = DefaultBenchUser, true
		return
	}
	b.User, b.Password = m.MySQL.User, m.MySQL.Password
}

func isYAMLName(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yaml" || ext == ".yml"
}

// readInventory reads at most maxInventorySize bytes. Its errors start with
// the file name like every other inventory error, and wrap the os error so
// callers can still test for fs.ErrNotExist.
func readInventory(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &Error{Pos: Pos{File: path}, Msg: "is a directory, not an inventory file"}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxInventorySize+1))
	if err != nil {
		return nil, fileError(path, err)
	}
	if len(data) > maxInventorySize {
		return nil, &Error{Pos: Pos{File: path}, Msg: "is larger than 1 MiB; an inventory is a small text file"}
	}
	return data, nil
}

func fileError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// normalize expands "~/" in the option paths and rejects values no file
// could fix. Option errors are the caller's (flags, environment), so they do
// not carry a file position.
func (o LoadOptions) normalize() (LoadOptions, error) {
	if o.HomeDir == "" {
		o.HomeDir, _ = os.UserHomeDir() // only needed if a path starts with ~
	}
	o.SSH = cloneSSH(o.SSH)
	r := o.paths("")
	for i, f := range o.SSH.IdentityFiles {
		p, err := r.resolve(f)
		if err != nil {
			return o, fmt.Errorf("inventory options: ssh identity file: %v", err)
		}
		o.SSH.IdentityFiles[i] = p
	}
	for _, s := range []*Secret{&o.SSH.Passphrase, &o.SSH.Password, &o.SSH.SudoPassword, &o.MySQL.Password} {
		if s.File == "" {
			continue
		}
		p, err := r.resolve(s.File)
		if err != nil {
			return o, fmt.Errorf("inventory options: secret file: %v", err)
		}
		s.File = p
	}
	for _, kh := range []*string{&o.KnownHostsFile, &o.KnownHostsOverride} {
		if *kh == "" {
			continue
		}
		p, err := r.resolve(*kh)
		if err != nil {
			return o, fmt.Errorf("inventory options: known_hosts: %v", err)
		}
		*kh = p
	}
	switch {
	case o.SSH.Port < 0 || o.SSH.Port > 65535:
		return o, fmt.Errorf("inventory options: ssh port %d is out of range 1..65535", o.SSH.Port)
	case o.MySQL.Port < 0 || o.MySQL.Port > 65535:
		return o, fmt.Errorf("inventory options: mysql port %d is out of range 1..65535", o.MySQL.Port)
	case o.SSH.ConnectTimeout < 0:
		return o, fmt.Errorf("inventory options: negative ssh connect timeout %s", o.SSH.ConnectTimeout)
	}
	return o, nil
}

// paths resolves local paths named in a file whose directory is dir ("" for
// paths from the command line, which are relative to the working directory).
func (o LoadOptions) paths(dir string) pathResolver {
	return pathResolver{home: o.HomeDir, base: dir}
}

// LocalPath is a path from the command line made absolute, with "~/"
// expanded as in an inventory (a shell leaves --flag=~/x alone).
func LocalPath(p string) (string, error) {
	home, _ := os.UserHomeDir()
	return pathResolver{home: home}.resolve(p)
}

// pathResolver expands "~/" and anchors relative paths: a path in an
// inventory means the same thing whatever directory orch runs from.
type pathResolver struct {
	home string
	base string
}

func (r pathResolver) resolve(p string) (string, error) {
	switch {
	case p == "":
		return "", nil
	case p == "~" || strings.HasPrefix(p, "~/"):
		if r.home == "" {
			return "", errors.New("cannot expand ~: home directory unknown (set $HOME)")
		}
		p = filepath.Join(r.home, p[1:])
	case strings.HasPrefix(p, "~"):
		return "", errors.New("~user paths are not supported; use ~/ or an absolute path")
	case !filepath.IsAbs(p) && r.base != "":
		p = filepath.Join(r.base, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return abs, nil
}

// cloneSSH copies c so hosts never share an identity file slice.
func cloneSSH(c SSHConfig) SSHConfig {
	c.IdentityFiles = append([]string(nil), c.IdentityFiles...)
	return c
}

// newInventory returns an inventory holding the built-in replication and
// profile settings, which the file's sections then override key by key.
// The replication password default needs the master, so Load sets it last.
func newInventory(file, format string) *Inventory {
	return &Inventory{
		Source: file,
		Format: format,
		Replication: Replication{
			User: DefaultReplUser,
			SemiSync: SemiSync{
				Enabled:           true,
				TimeoutMs:         DefaultSemiSyncTimeoutMs,
				WaitPoint:         DefaultWaitPoint,
				WaitForSlaveCount: DefaultWaitForSlaveCount,
			},
		},
		Profile: Profile{Engine: DefaultEngine},
	}
}

// applyBuiltins fills what neither the file nor the options set.
func applyBuiltins(h *Host) {
	if h.SSH.ConnectTimeout == 0 {
		h.SSH.ConnectTimeout = DefaultConnectTimeout
	}
	if h.MySQL.Port == 0 {
		h.MySQL.Port = DefaultMySQLPort
	}
	switch {
	case h.MySQL.User == "" && !h.MySQL.Password.IsSet():
		h.MySQL.User, h.MySQL.Managed = DefaultManagedUser, true
	case h.MySQL.User == "":
		h.MySQL.User = DefaultMySQLUser
	}
	if h.MySQL.Datadir == "" {
		h.MySQL.Datadir = DefaultDatadir
	}
}
