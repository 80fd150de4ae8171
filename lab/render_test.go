package lab

import (
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/topology"
)

func TestRenderSSHDConfig(t *testing.T) {
	got := renderSSHDConfig("slave1", netip.MustParseAddr("10.99.0.12"))
	settings := map[string]string{}
	for _, line := range strings.Split(got, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("malformed line %q", line)
		}
		if _, dup := settings[k]; dup {
			t.Errorf("%s set twice", k)
		}
		settings[k] = v
	}
	want := map[string]string{
		"ListenAddress":          "10.99.0.12:22",
		"HostKey":                "/etc/ssh/ssh_host_ed25519_key",
		"PermitRootLogin":        "prohibit-password",
		"PasswordAuthentication": "yes",
		"UsePAM":                 "no",
		"MaxSessions":            "64",
		"MaxStartups":            "100",
		"Subsystem":              "sftp internal-sftp",
	}
	for k, v := range want {
		if settings[k] != v {
			t.Errorf("%s = %q, want %q", k, settings[k], v)
		}
	}
	if _, ok := settings["AcceptEnv"]; ok {
		t.Error("AcceptEnv must not be set: the client's environment is not accepted")
	}
}

func TestRenderEtcHostsAndKnownHosts(t *testing.T) {
	plan, err := planAddrs("10.98.0.0/24")
	if err != nil {
		t.Fatal(err)
	}
	hosts := renderEtcHosts(plan)
	for _, want := range []string{"127.0.0.1\tlocalhost\n", "10.98.0.11\tmaster\n", "10.98.0.14\tloadbox\n"} {
		if !strings.Contains(hosts, want) {
			t.Errorf("/etc/hosts lacks %q:\n%s", want, hosts)
		}
	}
	pubs := [][]byte{
		[]byte("ssh-ed25519 AAAAmaster root@master\n"), []byte("ssh-ed25519 AAAAslave1 root@slave1\n"),
		[]byte("ssh-ed25519 AAAAslave2 root@slave2\n"), []byte("ssh-ed25519 AAAAloadbox root@loadbox\n"),
	}
	kh := renderKnownHosts(plan.hosts, pubs)
	lines := strings.Split(strings.TrimSpace(kh), "\n")
	if len(lines) != 4 || lines[0] != "10.98.0.11 ssh-ed25519 AAAAmaster" || lines[3] != "10.98.0.14 ssh-ed25519 AAAAloadbox" {
		t.Errorf("known_hosts:\n%s", kh)
	}
}

func TestWithAccount(t *testing.T) {
	sys := sysFiles{
		passwd:  []byte("root:x:0:0:root:/root:/bin/bash\nbench:x:1:1::/old:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/bash\nnobody:x:65534:65534::/:/usr/sbin/nologin"),
		shadow:  []byte("root:*:20000:0:99999:7:::\nbench:old:1:0:99999:7:::\n"),
		group:   []byte("root:x:0:\nalice:x:1000:\n"),
		gshadow: []byte("root:*::\n"),
	}
	uid := nextFreeID(sys.passwd, 1000, "bench")
	gid := nextFreeID(sys.group, 1000, "bench")
	if uid != 1001 || gid != 1001 {
		t.Fatalf("next free ids %d/%d, want 1001/1001", uid, gid)
	}
	a := account{name: "bench", uid: uid, gid: gid, home: "/home/bench", shell: "/bin/bash", hash: "$6$salt$hash", changedDay: 20000}
	got := sys.withAccount(a)
	if strings.Count("\n"+string(got.passwd), "\nbench:") != 1 || !strings.Contains(string(got.passwd), "bench:x:1001:1001::/home/bench:/bin/bash\n") {
		t.Errorf("passwd:\n%s", got.passwd)
	}
	if !strings.Contains(string(got.passwd), "nobody:x:65534:65534::/:/usr/sbin/nologin\n") {
		t.Errorf("last line without newline was damaged:\n%s", got.passwd)
	}
	if strings.Contains(string(got.shadow), "old") || !strings.Contains(string(got.shadow), "bench:$6$salt$hash:20000:0:99999:7:::\n") {
		t.Errorf("shadow:\n%s", got.shadow)
	}
	if !strings.HasSuffix(string(got.group), "bench:x:1001:\n") || !strings.HasSuffix(string(got.gshadow), "bench:!::\n") {
		t.Errorf("group/gshadow:\n%s%s", got.group, got.gshadow)
	}
	// Idempotent: adding again changes nothing.
	if again := got.withAccount(a); string(again.passwd) != string(got.passwd) || string(again.shadow) != string(got.shadow) {
		t.Error("adding the account twice changed the files")
	}
}

func TestSetupSQL(t *testing.T) {
	sql := setupSQL("master", `p'w\x`)
	if !strings.HasPrefix(sql, "SET sql_log_bin = 0;\n") {
		t.Errorf("binlogging is not off before the first statement:\n%s", sql)
	}
	for _, want := range []string{
		"DROP USER IF EXISTS ''@'localhost';",
		"DROP USER IF EXISTS ''@'master';",
		`CREATE OR REPLACE USER 'orch'@'%' IDENTIFIED BY 'p\'w\\x';`,
		`CREATE OR REPLACE USER 'orch'@'localhost' IDENTIFIED BY 'p\'w\\x';`,
		"GRANT ALL PRIVILEGES ON *.* TO 'orch'@'%' WITH GRANT OPTION;",
		"GRANT ALL PRIVILEGES ON *.* TO 'orch'@'localhost' WITH GRANT OPTION;",
		"RESET MASTER",
	} {
		if !strings.Contains(sql, want) {
			t.Errorf("setup SQL lacks %q:\n%s", want, sql)
		}
	}
	if got := sqlString("a\nb\x00"); got != `'a\nb\0'` {
		t.Errorf("sqlString = %s", got)
	}
}

// The generated inventories must load with orch's own inventory parser and
// say what the lab promises.
func TestInventoriesLoad(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	hosts := []HostState{
		{Name: "master", Role: "master", IP: "10.99.0.11"}, {Name: "slave1", Role: "slave", IP: "10.99.0.12"},
		{Name: "slave2", Role: "slave", IP: "10.99.0.13"}, {Name: "loadbox", Role: "loadbox", IP: "10.99.0.14"},
	}
	paths := invPaths{
		knownHosts:    filepath.Join(state, knownHostsName),
		identity:      filepath.Join(state, clientKeyName),
		mysqlPassword: filepath.Join(state, mysqlPassName),
		benchPassword: filepath.Join(state, benchPassName),
	}
	load := func(v inventoryVariant, name string) *topology.Inventory {
		t.Helper()
		body, err := renderInventory(hosts, paths, v, flavorOf(""))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		inv, err := topology.Load(p, topology.LoadOptions{HomeDir: dir})
		if err != nil {
			t.Fatalf("%s does not load: %v\n%s", name, err, body)
		}
		return inv
	}

	inv := load(asRoot, "lab.yaml")
	if inv.Name != "lab" || inv.KnownHostsFile != paths.knownHosts || len(inv.Hosts) != 4 {
		t.Fatalf("lab.yaml: name %q known_hosts %q hosts %d", inv.Name, inv.KnownHostsFile, len(inv.Hosts))
	}
	if m := inv.Master(); m == nil || m.Address != "10.99.0.11" || len(inv.Slaves()) != 2 || inv.LoadBox().Address != "10.99.0.14" {
		t.Errorf("lab.yaml roles/addresses wrong: %+v", inv.Hosts)
	}
	m := inv.Master()
	if m.SSH.User != "root" || len(m.SSH.IdentityFiles) != 1 || m.SSH.IdentityFiles[0] != paths.identity ||
		m.SSH.ConnectTimeout != 3*time.Second || m.SSH.Password.IsSet() || m.SSH.Sudo {
		t.Errorf("lab.yaml ssh: %+v", m.SSH)
	}
	my := m.MySQL
	if my.User != "orch" || my.Password.File != paths.mysqlPassword || my.Port != 3306 || my.Flavor != "mariadb" ||
		my.Socket != "/run/mysqld/mysqld.sock" || my.Datadir != "/var/lib/mysql" || my.ErrorLog != "/var/log/mysql/error.log" ||
		my.ConfigDir != "" || my.Service.Start != scriptStart || my.Service.Stop != scriptStop || my.Service.Status != scriptStatus {
		t.Errorf("lab.yaml mysql: %+v", my)
	}

	checkSettings(t, "lab.yaml", inv, paths)

	pinv := load(asBench, "lab-password.yaml")
	checkSettings(t, "lab-password.yaml", pinv, paths)
	ps := pinv.Master().SSH
	if ps.User != "bench" || len(ps.IdentityFiles) != 0 || ps.Password.File != paths.benchPassword ||
		!ps.Sudo || ps.SudoPassword.File != paths.benchPassword {
		t.Errorf("lab-password.yaml ssh: %+v", ps)
	}
	if len(pinv.Hosts) != 4 || pinv.Master().MySQL.Service.Start != scriptStart {
		t.Errorf("lab-password.yaml hosts/mysql differ from lab.yaml")
	}
}

// checkSettings checks the replication and profile settings a generated
// inventory gives the cluster: the parser's defaults plus small caches.
func checkSettings(t *testing.T, name string, inv *topology.Inventory, paths invPaths) {
	t.Helper()
	wantRepl := topology.Replication{
		User:     "repl",
		Password: topology.Secret{File: paths.mysqlPassword},
		SemiSync: topology.SemiSync{
			Enabled:           true,
			TimeoutMs:         topology.DefaultSemiSyncTimeoutMs,
			WaitPoint:         "AFTER_SYNC",
			WaitForSlaveCount: 1,
		},
		UserNamed: true, // lab.yaml names it: orch never drops the lab's repl
	}
	if !reflect.DeepEqual(inv.Replication, wantRepl) {
		t.Errorf("%s replication\n got %+v\nwant %+v", name, inv.Replication, wantRepl)
	}
	wantProfile := topology.Profile{
		Engine: "innodb",
		Vars:   map[string]string{"innodb_buffer_pool_size": "128M", "rocksdb_block_cache_size": "128M"},
	}
	if !reflect.DeepEqual(inv.Profile, wantProfile) {
		t.Errorf("%s profile\n got %+v\nwant %+v", name, inv.Profile, wantProfile)
	}
}
