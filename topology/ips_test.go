package topology

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestIPsExample(t *testing.T) {
	inv := mustLoad(t, filepath.Join("..", "inventories", "ips.example.txt"), LoadOptions{HomeDir: "/home/x"})
	if err := inv.ValidateCluster(); err != nil {
		t.Fatalf("ValidateCluster: %v", err)
	}
	if got, want := hostNamesOf(inv), []string{"master", "slave1", "slave2", "loadbox"}; !reflect.DeepEqual(got, want) {
		t.Errorf("hosts %v, want %v", got, want)
	}
	if s2 := inv.Slaves()[1]; s2.Address != "10.0.0.3" || s2.SSH.Port != 2222 {
		t.Errorf("slave2 %s port %d", s2, s2.SSH.Port)
	}
	if pw, _ := inv.Master().MySQL.Password.Resolve(); pw != "CHANGE_ME" || inv.Master().MySQL.User != "bench" {
		t.Errorf("credentials %q %q", inv.Master().MySQL.User, pw)
	}
}

func TestIPsForms(t *testing.T) {
	const pw = "p#ss:w0rd"
	cases := []struct {
		name, text string
		hosts      []string // name=address:port
		existing   bool
		startLine  int
	}{
		{
			name:  "four lines",
			text:  "10.0.0.1\n10.0.0.2\n10.0.0.3\nbench " + pw + "\n",
			hosts: []string{"master=10.0.0.1:0", "slave1=10.0.0.2:0", "slave2=10.0.0.3:0"},
		},
		{
			name: "five lines with comments, ports, CRLF and blank lines",
			text: "# lab\r\n\r\n10.0.0.1:2201   # master\r\n  db2.example.com:2202\r\n[fe80::2]:2203\r\n\r\n" +
				"# load box\r\n::1\r\nbench\t" + pw + "  # credentials\r\n",
			hosts:     []string{"master=10.0.0.1:2201", "slave1=db2.example.com:2202", "slave2=fe80::2:2203", "loadbox=::1:0"},
			startLine: 3,
		},
		{
			name:     "two lines: an existing server",
			text:     "10.9.9.9\nbench " + pw + "\n",
			hosts:    []string{"master=10.9.9.9:0"},
			existing: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, "ips.txt", tc.text)
			opts := LoadOptions{
				HomeDir:        dir,
				KnownHostsFile: "/etc/orch/known_hosts",
				SSH:            SSHConfig{User: "ops", Port: 22, IdentityFiles: []string{"~/.ssh/lab"}},
				MySQL:          MySQLConfig{Socket: "/run/mysqld/mysqld.sock"},
			}
			inv := mustLoad(t, path, opts)
			var got []string
			for _, h := range inv.Hosts {
				port := h.SSH.Port
				if port == 22 {
					port = 0 // the option's port: not from the line
				}
				got = append(got, fmt.Sprintf("%s=%s:%d", h.Name, h.Address, port))
			}
			if !reflect.DeepEqual(got, tc.hosts) {
				t.Errorf("hosts %v, want %v", got, tc.hosts)
			}
			if inv.Existing != tc.existing || inv.Format != "ips" || inv.KnownHostsFile != "/etc/orch/known_hosts" {
				t.Errorf("existing %v format %q known_hosts %q", inv.Existing, inv.Format, inv.KnownHostsFile)
			}
			start := max(tc.startLine, 1)
			if m := inv.Master(); m.Pos != (Pos{File: path, Line: start}) {
				t.Errorf("master at %+v, want line %d", m.Pos, start)
			}
			for _, h := range inv.Hosts {
				if h.SSH.User != "ops" || h.SSH.IdentityFiles[0] != filepath.Join(dir, ".ssh/lab") || h.SSH.ConnectTimeout != 10*time.Second {
					t.Errorf("%s ssh %+v", h, h.SSH)
				}
				if h.MySQL.User != "bench" || h.MySQL.Port != 3306 || h.MySQL.Socket != "/run/mysqld/mysqld.sock" || h.MySQL.Datadir != DefaultDatadir {
					t.Errorf("%s mysql %+v", h, h.MySQL)
				}
				if v, err := h.MySQL.Password.Resolve(); err != nil || v != pw {
					t.Errorf("%s password resolves to %q, %v", h, v, err)
				}
			}
			b, _ := json.Marshal(inv)
			if shown := string(b) + fmt.Sprintf("%v %+v", inv, *inv.Master()); strings.Contains(shown, pw) {
				t.Errorf("password shown: %s", shown)
			}
			err := inv.ValidateCluster()
			switch {
			case tc.existing && (err == nil || !strings.Contains(err.Error(), "cluster setup is not allowed on an existing server")):
				t.Errorf("ValidateCluster on an existing server: %v", err)
			case !tc.existing && err != nil:
				t.Errorf("ValidateCluster: %v", err)
			}
		})
	}
}

func TestSplitHostPort(t *testing.T) {
	for _, c := range []struct {
		in, host string
		port     int
		problem  string
	}{
		{"10.0.0.1", "10.0.0.1", 0, ""},
		{"10.0.0.1:22", "10.0.0.1", 22, ""},
		{"db-1.example.com:2222", "db-1.example.com", 2222, ""},
		{"host_1", "host_1", 0, ""},
		{"::1", "::1", 0, ""},
		{"[::1]:22", "::1", 22, ""},
		{"[::1]", "::1", 0, ""},
		{"[10.0.0.1]:22", "", 0, "brackets must hold an IPv6 address"},
		{"[::1", "", 0, "missing ']' after an IPv6 address"},
		{"[::1]x", "", 0, "unexpected text after ']' (want [IPv6]:port)"},
		{"10.0.0.1:", "", 0, `port "" is not a number 1..65535`},
		{"10.0.0.1:0", "", 0, "port 0 is out of range 1..65535"},
		{"10.0.0.1:65536", "", 0, "port 65536 is out of range 1..65535"},
		{"10.0.0.1:+22", "", 0, `port "+22" is not a number 1..65535`},
		{"10.0.0.1:9999999999999999999", "", 0, `port "9999999999999999999" is not a number 1..65535`},
		{"1.2.3", "", 0, "not a valid IPv4 address"},
		{"bad..name", "", 0, "not a valid DNS name (labels of letters, digits, '-' and '_', not starting or ending with '-')"},
		{"-x", "", 0, "not a valid DNS name (labels of letters, digits, '-' and '_', not starting or ending with '-')"},
		{strings.Repeat("a", 64), "", 0, "not a valid DNS name (labels of letters, digits, '-' and '_', not starting or ending with '-')"},
		{"a:b:c", "", 0, "not a valid IPv6 address (write [IPv6]:port to add a port)"},
	} {
		host, port, problem := splitHostPort(c.in)
		if host != c.host || port != c.port || problem != c.problem {
			t.Errorf("splitHostPort(%q) = %q, %d, %q; want %q, %d, %q", c.in, host, port, problem, c.host, c.port, c.problem)
		}
	}
}

func TestCheckJumpHost(t *testing.T) {
	for in, want := range map[string]string{
		"bastion":                  "",
		"admin@bastion.example:22": "",
		"admin@[::1]:2222":         "",
		"@bastion":                 "invalid user before '@' (want [user@]host[:port])",
		"a b@bastion":              "invalid user before '@' (want [user@]host[:port])",
		"admin@":                   "empty address (want [user@]host[:port])",
	} {
		if got := checkJumpHost(in); got != want {
			t.Errorf("checkJumpHost(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValidateClusterBuiltInCode(t *testing.T) {
	semi := Replication{SemiSync: SemiSync{Enabled: true}}
	inv := &Inventory{Replication: semi, Hosts: []*Host{{Name: "m", Role: RoleMaster}, {Name: "s", Role: RoleSlave}}}
	if err := inv.ValidateCluster(); err == nil || err.Error() != "inventory: a cluster needs exactly 2 slaves; found 1 (s)" {
		t.Errorf("ValidateCluster: %v", err)
	}
	inv = &Inventory{Source: "x.yaml", Replication: semi, Hosts: []*Host{{Name: "s1", Role: RoleSlave}, {Name: "s2", Role: RoleSlave}}}
	if err := inv.ValidateCluster(); err == nil || err.Error() != "x.yaml: a cluster needs exactly one master; found 0" {
		t.Errorf("ValidateCluster: %v", err)
	}
}

// TestHostListsInErrorsAreCapped (N11): an inventory of 15,000 slaves is
// refused in one short line that names ten and counts the rest.
func TestHostListsInErrorsAreCapped(t *testing.T) {
	inv := &Inventory{Source: "big.yaml", Hosts: []*Host{{Name: "m", Role: RoleMaster}}}
	for i := 0; i < 15000; i++ {
		inv.Hosts = append(inv.Hosts, &Host{Name: fmt.Sprintf("s%d", i), Role: RoleSlave})
	}
	err := inv.ValidateCluster()
	if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), "s9 and 14,990 more)") {
		t.Fatalf("%d bytes: %.300v", len(fmt.Sprint(err)), err)
	}
}
