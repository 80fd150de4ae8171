package account

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// The accounts orch manages on a stock server, when the inventory names
// none: its admin account on every database host, the benchmark account
// on the master for the load box, and the replication password. Their
// passwords live in orch's state directory for the cluster, one 0600 file
// each, made by `orch up` and removed by `orch down --purge`.

// Password file names in a cluster's state directory.
const (
	AdminPasswordFile = "admin-password"
	ReplPasswordFile  = "repl-password"
	BenchPasswordFile = "bench-password"
)

// EnvStateDir overrides where orch keeps its state (default
// $XDG_STATE_HOME/orch, else ~/.local/state/orch).
const EnvStateDir = "ORCH_STATE_DIR"

// BenchSchemas are the schemas the benchmark account may use: the server
// drivers' defaults in the driver table (sysbench's sbtest, mysqlslap's).
// orch creates them (as admin) before prepare.
var BenchSchemas = bench.BenchSchemas()

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// StateDir is orch's state directory for the inventory's cluster: one per
// master (its address and port) under the inventory's name, so two
// inventories of one cluster share the passwords and two clusters never do.
func StateDir(inv *topology.Inventory) (string, error) {
	base := os.Getenv(EnvStateDir)
	if base == "" {
		if x := os.Getenv("XDG_STATE_HOME"); x != "" {
			base = filepath.Join(x, "orch")
		} else {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("orch state: %w (set %s)", err, EnvStateDir)
			}
			base = filepath.Join(home, ".local", "state", "orch")
		}
	}
	name := inv.Name
	if name == "" {
		name = "cluster"
	}
	m := inv.Master()
	if m == nil {
		return "", fmt.Errorf("%s: no master", inv.Source)
	}
	sum := sha256.Sum256([]byte(m.PeerAddress() + ":" + strconv.Itoa(m.MySQL.Port)))
	return filepath.Join(base, unsafeName.ReplaceAllString(name, "_")+"-"+hex.EncodeToString(sum[:4])), nil
}

// Resolve points every account orch manages at its password file in dir.
// Nothing is created: Generate does that, for `orch up`.
func Resolve(inv *topology.Inventory, dir string) {
	for _, h := range inv.DBHosts() {
		if h.MySQL.Managed {
			h.MySQL.Password = topology.Secret{File: filepath.Join(dir, AdminPasswordFile)}
		}
	}
	if inv.Replication.PasswordManaged {
		inv.Replication.Password = topology.Secret{File: filepath.Join(dir, ReplPasswordFile)}
	}
	if inv.Benchmark.Managed {
		inv.Benchmark.Password = topology.Secret{File: filepath.Join(dir, BenchPasswordFile)}
	}
}

// managedFiles are the password files the inventory's managed accounts use.
func managedFiles(inv *topology.Inventory) []string {
	var out []string
	seen := map[string]bool{}
	add := func(managed bool, s topology.Secret) {
		if managed && s.File != "" && !seen[s.File] {
			seen[s.File] = true
			out = append(out, s.File)
		}
	}
	for _, h := range inv.DBHosts() {
		add(h.MySQL.Managed, h.MySQL.Password)
	}
	add(inv.Replication.PasswordManaged, inv.Replication.Password)
	add(inv.Benchmark.Managed, inv.Benchmark.Password)
	return out
}

// Generate makes the password files of the managed accounts that have
// none yet (after Resolve).
func Generate(inv *topology.Inventory) error { return generate(inv, "") }

// generate is Generate leaving out the file skip: the replication
// password's, which up makes only once it has decided on that account.
func generate(inv *topology.Inventory, skip string) error {
	for _, f := range managedFiles(inv) {
		if f == skip {
			continue
		}
		if _, err := PasswordFile(f); err != nil {
			return err
		}
	}
	// The secret orch's record rows are signed with (seal.go).
	dir, err := StateDir(inv)
	if err != nil {
		return err
	}
	_, err = PasswordFile(filepath.Join(dir, RecordKeyFile))
	return err
}

// Pending reports whether a managed account's password has not been
// generated yet: `orch up` has not run on this machine for this cluster.
func Pending(s topology.Secret) bool {
	if s.File == "" {
		return false
	}
	_, err := os.Stat(s.File)
	return errors.Is(err, fs.ErrNotExist)
}

// Forget removes the managed password files (orch down --purge), and the
// cluster's state directory when nothing else is left in it.
func Forget(inv *topology.Inventory) error {
	var errs []error
	dirs := map[string]bool{}
	files := managedFiles(inv)
	if dir, err := StateDir(inv); err == nil {
		files = append(files, filepath.Join(dir, RecordKeyFile))
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		dirs[filepath.Dir(f)] = true
	}
	errs = append(errs, forgetOwned(inv))
	for d := range dirs {
		os.Remove(d) // only when empty
	}
	return errors.Join(errs...)
}

// AdminAccounts are the managed admin account's entries on a database
// host: orch reaches its servers through SSH, so the server sees a local
// client, on TCP from 127.0.0.1 or named localhost.
func AdminAccounts(h *topology.Host, password string) []Account {
	return []Account{
		{User: h.MySQL.User, Host: "localhost", Password: password, Admin: true},
		{User: h.MySQL.User, Host: "127.0.0.1", Password: password, Admin: true},
	}
}

// BenchAccounts are the benchmark account's entries on the master: for
// every load box's address (a run drives the master from all of them), or,
// when this machine is the load box, for here, the address this machine
// has as the master sees it (ClientAddress; never '%': an account any host
// can log in to is not orch's to make); and for 127.0.0.1, where a workload
// that runs on the master itself connects. here is ignored with load boxes;
// "" leaves this machine's entry out (it is in orch's record once made).
func BenchAccounts(inv *topology.Inventory, password, here string) []Account {
	var hosts []string
	if lbs := inv.LoadBoxes(); len(lbs) > 0 {
		for _, lb := range lbs {
			if a := lb.PeerAddress(); a != inv.Master().PeerAddress() && !slices.Contains(hosts, a) {
				hosts = append(hosts, a)
			}
		}
	} else if here != "" {
		hosts = append(hosts, here)
	}
	hosts = append(hosts, "127.0.0.1")
	var out []Account
	for _, h := range hosts {
		for _, s := range BenchSchemas {
			out = append(out, Account{User: inv.Benchmark.User, Host: h, Password: password,
				Grants: "ALL PRIVILEGES ON `" + s + "`.*"})
		}
	}
	return out
}

// ClientAddress is this machine's address as the host behind ex sees it:
// the client end of the SSH connection (sshd's SSH_CONNECTION, "client
// port server port"). Through a jump host it is the jump host's address, and
// the benchmark login then fails, found by orch check and before any
// restart by up's path check: name a benchmark account in the inventory.
func ClientAddress(ctx context.Context, ex executor.Executor) (string, error) {
	res, err := ex.Run(ctx, executor.Command{Script: `printf '%s' "$SSH_CONNECTION"`, Timeout: 10 * time.Second})
	if err != nil {
		return "", fmt.Errorf("this machine's address as the master sees it: %w", err)
	}
	f := strings.Fields(string(res.Stdout))
	if len(f) != 4 || net.ParseIP(f[0]) == nil {
		return "", fmt.Errorf("this machine's address as the master sees it: SSH_CONNECTION is %q, not \"client port server port\"", string(res.Stdout))
	}
	return f[0], nil
}

// HereInDryRun stands for ClientAddress in a dry run's statements.
const HereInDryRun = "<this machine's address as the master sees it>"

// names lists accounts once each: user@host, ...
func names(accts []Account) string {
	seen := map[string]bool{}
	s := ""
	for _, a := range accts {
		if seen[a.String()] {
			continue
		}
		seen[a.String()] = true
		if s != "" {
			s += ", "
		}
		s += a.String()
	}
	return s
}

// CheckSocket proves orch can make its accounts on the host: the server's
// root logs in by unix socket (through sudo for a non-root login).
func CheckSocket(ctx context.Context, ex executor.Executor) error {
	res, err := ex.Run(ctx, executor.Command{Script: clientScript, Sudo: true, Stdin: strings.NewReader("SELECT 1;\n")})
	if err != nil {
		msg := strings.TrimSpace(string(res.Stderr))
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("%s: root cannot log in to the server by unix socket (%s): set mysql.user and mysql.password in the inventory", ex.Name(), msg)
	}
	return nil
}

// DryRun writes what Ensure would send to each host through root's unix
// socket, passwords redacted (orch up --dry-run); nothing when the
// inventory names its accounts.
func DryRun(w io.Writer, inv *topology.Inventory) error {
	for _, h := range inv.DBHosts() {
		var accts []Account
		if h.MySQL.Managed {
			accts = append(accts, AdminAccounts(h, flavor.Redaction)...)
		}
		if h.Role == topology.RoleMaster && inv.Benchmark.Managed {
			accts = append(accts, BenchAccounts(inv, flavor.Redaction, HereInDryRun)...)
		}
		if len(accts) == 0 {
			continue
		}
		script, err := sql(accts)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "### %s: first, through root's unix socket (unless the account already logs in); passwords generated into orch's state\n%s\n", h, script)
	}
	return nil
}
