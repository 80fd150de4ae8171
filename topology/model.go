// Package topology holds the inventory model: which hosts make up a cluster,
// their roles, and how to reach and control them. It parses YAML cluster files
// and legacy ips.txt files and validates them before anything connects.
//
// A YAML file may also list several clusters (a clusters: list, each with
// its own name, hosts and settings over the top-level ones; set.go,
// yaml_clusters.go), and several files may be loaded together (LoadSet):
// each cluster is validated as a one-cluster file is, and no host may be
// in two clusters. Load still returns one cluster, the only one or the
// one LoadOptions.Cluster names.
package topology

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Role is what a host does in a benchmark cluster.
type Role string

const (
	RoleMaster  Role = "master"
	RoleSlave   Role = "slave"
	RoleLoadBox Role = "loadbox"
)

// Inventory is a parsed, defaulted and validated description of a cluster.
type Inventory struct {
	// Source is the file the inventory came from; Format is "yaml" or "ips".
	Source string `json:"source"`
	Format string `json:"format"`
	Name   string `json:"name,omitempty"`
	// Hosts in role order: master, slaves (file order), load box.
	Hosts []*Host `json:"hosts"`
	// Existing is set by the two-line ips.txt form: one existing server to
	// benchmark, with this machine as the load box; no cluster setup allowed.
	Existing bool `json:"existing,omitempty"`
	// KnownHostsFile is where host keys are verified (and appended to when
	// new keys are accepted). Relative paths are resolved against Source's dir.
	KnownHostsFile string `json:"known_hosts_file"`
	// hostsPos is where the host list is declared, for errors about hosts
	// that are missing (ValidateCluster) rather than wrong.
	hostsPos Pos
	// secretRefs are the file's secret references where declared, for
	// CheckSecrets; asyncAt is where semi_sync.enabled: false is written.
	secretRefs []secretRef
	asyncAt    Pos
	// namePos is where a cluster of a clusters list is named.
	namePos Pos
	// Replication is how `orch up` wires the slaves to the master.
	Replication Replication `json:"replication"`
	// Profile chooses and adjusts the engine profile `orch up` lays down.
	Profile Profile `json:"profile"`
	// Benchmark is the account the benchmark client logs in to the master
	// with, from the load box. Unset in the file, it is the master's MySQL
	// account, or, when orch manages that one, an account of orch's own.
	Benchmark Account `json:"benchmark"`
}

// Account is a MySQL account named by the inventory, or made by orch.
type Account struct {
	User     string `json:"user"`
	Password Secret `json:"password,omitzero"`
	// Managed accounts are orch's own: made by `orch up` through the
	// server's root unix socket, the password generated into orch's state.
	Managed bool `json:"managed,omitempty"`
}

// Replication settings for the 1-master/2-slave cluster.
type Replication struct {
	// User is the replication account created on the master (default "repl").
	User string `json:"user"`
	// Password of the replication account; default: the master's MySQL
	// admin password reference.
	Password Secret   `json:"password,omitzero"`
	SemiSync SemiSync `json:"semi_sync"`
	// PasswordManaged: neither the file nor the master's account gave a
	// password, so orch generates one into its state.
	PasswordManaged bool `json:"password_managed,omitempty"`
	// UserNamed: the file sets replication.user, so the account is the
	// inventory's: orch uses one that exists as it is and never drops it.
	UserNamed bool `json:"user_named,omitempty"`
}

// SemiSync settings. The defaults are the original experiment's: enabled,
// a timeout so large the master never falls back to async, AFTER_SYNC.
type SemiSync struct {
	Enabled bool `json:"enabled"`
	// TimeoutMs is rpl_semi_sync_master_timeout (default 1000000000000000000).
	TimeoutMs uint64 `json:"timeout_ms"`
	// WaitPoint is AFTER_SYNC (default) or AFTER_COMMIT, in upper case.
	WaitPoint string `json:"wait_point"`
	// WaitForSlaveCount is how many slave acks a commit waits for, where the
	// server has the setting (MySQL/Percona; MariaDB always waits for one).
	WaitForSlaveCount int `json:"wait_for_slave_count"`
}

// Defaults for Replication and Profile.
const (
	DefaultReplUser          = "repl"
	DefaultSemiSyncTimeoutMs = uint64(1000000000000000000)
	DefaultWaitPoint         = "AFTER_SYNC"
	DefaultWaitForSlaveCount = 1
	DefaultEngine            = "innodb"
)

// Profile selects the engine profile and overrides its values.
type Profile struct {
	// Engine is the default engine profile for `orch up` (default innodb).
	Engine string `json:"engine"`
	// Dir holds user profiles (NAME.cnf templates) that replace the
	// embedded ones; empty means the embedded profiles. Absolute, resolved
	// against the inventory's directory; not checked to exist at load.
	Dir string `json:"dir,omitempty"`
	// Vars override profile values by server variable name, e.g. smaller
	// memory sizes on a small lab: {innodb_buffer_pool_size: 256M}. Names
	// are lower case with '_' (the file may write '-'); values are as
	// written in the file.
	Vars map[string]string `json:"vars,omitempty"`
}

// Host is one machine of the cluster.
type Host struct {
	Name    string `json:"name"`
	Role    Role   `json:"role"`
	Address string `json:"address"` // IP or DNS name used for SSH
	// NetAddress is the address other hosts reach this one at (Address
	// after this machine's ssh_config HostName); "" means Address.
	NetAddress string      `json:"net_address,omitempty"`
	SSH        SSHConfig   `json:"ssh"`
	MySQL      MySQLConfig `json:"mysql"`
	// Pos is where the host is declared, for error messages.
	Pos Pos `json:"-"`
}

// String names the host the way every error and log line does: "name address".
func (h *Host) String() string { return h.Name + " " + h.Address }

// PeerAddress is the address the other hosts use for h: MASTER_HOST,
// the benchmark's target, the load box's account host.
func (h *Host) PeerAddress() string {
	if h.NetAddress != "" {
		return h.NetAddress
	}
	return h.Address
}

// IsDB reports whether the host runs a database server.
func (h *Host) IsDB() bool { return h.Role == RoleMaster || h.Role == RoleSlave }

// SSHConfig says how to reach a host over SSH. Zero values mean "not set":
// ~/.ssh/config and built-in defaults fill them at connect time.
type SSHConfig struct {
	User          string   `json:"user,omitempty"`
	Port          int      `json:"port,omitempty"`
	IdentityFiles []string `json:"identity_files,omitempty"`
	// Passphrase for encrypted identity files, never inline.
	Passphrase Secret `json:"passphrase,omitzero"`
	// Password for password authentication, never inline.
	Password Secret `json:"password,omitzero"`
	// JumpHost is "[user@]host[:port]" of a bastion to go through.
	JumpHost string `json:"jump_host,omitempty"`
	// Sudo runs privileged commands through sudo (for a non-root user).
	Sudo bool `json:"sudo,omitempty"`
	// SudoPassword is fed to `sudo -S` on stdin; empty means NOPASSWD is
	// required, or the SSH password is used when set.
	SudoPassword   Secret        `json:"sudo_password,omitzero"`
	ConnectTimeout time.Duration `json:"connect_timeout,omitempty"`
}

// MySQLConfig says how to reach and control the database server on a host.
type MySQLConfig struct {
	Port     int    `json:"port,omitempty"`
	User     string `json:"user,omitempty"`
	Password Secret `json:"password,omitzero"`
	// Managed is set when the inventory names no account (neither user
	// nor password): orch makes its own admin account, User, through the
	// server's root unix socket and keeps the password in its state.
	Managed bool   `json:"managed,omitempty"`
	Socket  string `json:"socket,omitempty"`
	Datadir string `json:"datadir,omitempty"`
	// ConfigDir is the include directory orch writes its config file into.
	ConfigDir string `json:"config_dir,omitempty"`
	ErrorLog  string `json:"error_log,omitempty"`
	// Flavor is an optional hint ("mariadb", "mysql", "percona") used when
	// orch does not connect (dry runs); a connected server is detected.
	Flavor  string         `json:"flavor,omitempty"`
	Service ServiceControl `json:"service"`
}

// ServiceControl starts and stops the server: a systemd unit, or explicit
// shell commands (for hosts without systemd, such as the lab).
type ServiceControl struct {
	Unit   string `json:"unit,omitempty"`
	Start  string `json:"start,omitempty"`
	Stop   string `json:"stop,omitempty"`
	Status string `json:"status,omitempty"`
}

// Secret is a reference to a secret value: an environment variable or a
// file. Inline values exist only for the legacy ips.txt credentials line.
// A Secret never prints its value.
type Secret struct {
	Env  string `json:"env,omitempty"`
	File string `json:"file,omitempty"`
	// value is an inline secret (ips.txt); unexported so it never marshals.
	value string
}

// InlineSecret wraps a literal secret (from ips.txt).
func InlineSecret(v string) Secret { return Secret{value: v} }

// IsSet reports whether the secret refers to anything.
func (s Secret) IsSet() bool { return s.Env != "" || s.File != "" || s.value != "" }

// String never reveals the value.
func (s Secret) String() string {
	switch {
	case s.Env != "":
		return "env:" + s.Env + " (***)"
	case s.File != "":
		return "file:" + s.File + " (***)"
	case s.value != "":
		return "***"
	}
	return ""
}

// MarshalJSON shows where a secret comes from, never its value.
func (s Secret) MarshalJSON() ([]byte, error) {
	if !s.IsSet() {
		return []byte(`""`), nil
	}
	return []byte(fmt.Sprintf("%q", s.String())), nil
}

// Resolve reads the secret's value. A file's trailing newline is dropped.
func (s Secret) Resolve() (string, error) {
	switch {
	case s.value != "":
		return s.value, nil
	case s.Env != "":
		v, ok := os.LookupEnv(s.Env)
		if !ok {
			return "", fmt.Errorf("secret: environment variable %s is not set", s.Env)
		}
		return v, nil
	case s.File != "":
		b, err := ReadPrivate("secret file", s.File)
		if err != nil {
			return "", err
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
	return "", nil
}

// Pos is a position in an inventory file.
type Pos struct {
	File string
	Line int
	Col  int // 0 when unknown (ips.txt)
}

// Error is a validation or parse error at a position. Its text is exactly one
// line: "FILE:LINE:COL: message" or "FILE:LINE: message".
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string {
	msg := strings.ReplaceAll(e.Msg, "\n", " ")
	switch {
	case e.Pos.Line > 0 && e.Pos.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.Pos.File, e.Pos.Line, e.Pos.Col, msg)
	case e.Pos.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.Pos.File, e.Pos.Line, msg)
	}
	return fmt.Sprintf("%s: %s", e.Pos.File, msg)
}

// Master returns the master host, or nil.
func (inv *Inventory) Master() *Host {
	for _, h := range inv.Hosts {
		if h.Role == RoleMaster {
			return h
		}
	}
	return nil
}

// Slaves returns the slave hosts in file order.
func (inv *Inventory) Slaves() []*Host { return inv.ByRole(RoleSlave) }

// LoadBox returns the first load box (the one that prepares the dataset
// when there are several), or nil when the control machine is the load box.
func (inv *Inventory) LoadBox() *Host {
	for _, h := range inv.Hosts {
		if h.Role == RoleLoadBox {
			return h
		}
	}
	return nil
}

// LoadBoxes returns every load box in inventory order: the benchmark runs
// on all of them at once. It is empty when the control machine is the load box.
func (inv *Inventory) LoadBoxes() []*Host { return inv.ByRole(RoleLoadBox) }

// ByRole returns the hosts with the given role, in inventory order.
func (inv *Inventory) ByRole(r Role) []*Host {
	var out []*Host
	for _, h := range inv.Hosts {
		if h.Role == r {
			out = append(out, h)
		}
	}
	return out
}

// DBHosts returns master and slaves.
func (inv *Inventory) DBHosts() []*Host {
	var out []*Host
	for _, h := range inv.Hosts {
		if h.IsDB() {
			out = append(out, h)
		}
	}
	return out
}

// Select returns hosts for a selector: master, slave, loadbox, db, all, or a
// host name.
func (inv *Inventory) Select(sel string) ([]*Host, error) {
	switch sel {
	case "", "all":
		return inv.Hosts, nil
	case "db":
		return inv.DBHosts(), nil
	case string(RoleMaster), string(RoleSlave), string(RoleLoadBox):
		return inv.ByRole(Role(sel)), nil
	}
	for _, h := range inv.Hosts {
		if h.Name == sel {
			return []*Host{h}, nil
		}
	}
	return nil, fmt.Errorf("no host or role %q in %s (roles: master, slave, loadbox, db, all)", sel, inv.Source)
}
