package topology

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustLoad(t *testing.T, path string, opts LoadOptions) *Inventory {
	t.Helper()
	inv, err := Load(path, opts)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return inv
}

func hostNamesOf(inv *Inventory) []string {
	var out []string
	for _, h := range inv.Hosts {
		out = append(out, h.Name)
	}
	return out
}

func TestClusterExampleParses(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join("..", "inventories", "cluster.example.yaml")
	inv := mustLoad(t, path, LoadOptions{HomeDir: home})
	if err := inv.ValidateCluster(); err != nil {
		t.Fatalf("ValidateCluster: %v", err)
	}
	if inv.Format != "yaml" || inv.Name != "mariadb-innodb-vs-rocksdb" || inv.Existing {
		t.Errorf("format %q name %q existing %v", inv.Format, inv.Name, inv.Existing)
	}
	if got, want := hostNamesOf(inv), []string{"master", "slave1", "slave2", "loadbox"}; !reflect.DeepEqual(got, want) {
		t.Errorf("hosts %v, want %v", got, want)
	}
	dir, _ := filepath.Abs(filepath.Dir(path))
	if want := filepath.Join(dir, "known_hosts"); inv.KnownHostsFile != want {
		t.Errorf("known_hosts %q, want %q (relative to the inventory)", inv.KnownHostsFile, want)
	}
	m := inv.Master()
	wantSSH := SSHConfig{
		User: "root", Port: 22,
		IdentityFiles:  []string{filepath.Join(home, ".ssh/id_ed25519")},
		Passphrase:     Secret{Env: "ORCH_KEY_PASSPHRASE"},
		ConnectTimeout: 10 * time.Second,
	}
	if !reflect.DeepEqual(m.SSH, wantSSH) {
		t.Errorf("master ssh\n got %+v\nwant %+v", m.SSH, wantSSH)
	}
	wantMySQL := MySQLConfig{
		Port: 3306, User: "orch", Password: Secret{Env: "ORCH_MYSQL_PASSWORD"},
		Datadir: "/var/lib/mysql", ConfigDir: "/etc/mysql/mariadb.conf.d",
		ErrorLog: "/var/log/mysql/error.log", Flavor: "mariadb",
		Service: ServiceControl{Unit: "mariadb"},
	}
	if !reflect.DeepEqual(m.MySQL, wantMySQL) {
		t.Errorf("master mysql\n got %+v\nwant %+v", m.MySQL, wantMySQL)
	}
	s2 := inv.Slaves()[1]
	if s2.MySQL.Datadir != "/data/mysql" || s2.MySQL.User != "orch" {
		t.Errorf("slave2 override: datadir %q user %q", s2.MySQL.Datadir, s2.MySQL.User)
	}
	if lb := inv.LoadBox(); lb == nil || lb.Address != "10.0.0.4" {
		t.Errorf("load box %v", lb)
	}
	if m.Pos.Line != 113 || m.Pos.Col != 5 || m.Pos.File != path {
		t.Errorf("master declared at %+v, want %s:113:5", m.Pos, path)
	}
	if b := inv.Benchmark; b.User != "sbtest" || b.Password.Env != "ORCH_BENCH_PASSWORD" || b.Managed {
		t.Errorf("benchmark %+v", b)
	}
	wantRepl := Replication{
		User: "repl", Password: Secret{Env: "ORCH_REPL_PASSWORD"},
		SemiSync:  SemiSync{Enabled: true, TimeoutMs: 1000000000000000000, WaitPoint: "AFTER_SYNC", WaitForSlaveCount: 1},
		UserNamed: true,
	}
	if !reflect.DeepEqual(inv.Replication, wantRepl) {
		t.Errorf("replication\n got %+v\nwant %+v", inv.Replication, wantRepl)
	}
	wantProfile := Profile{Engine: "innodb", Vars: map[string]string{"innodb_buffer_pool_size": "256M", "rocksdb_block_cache_size": "256M"}}
	if !reflect.DeepEqual(inv.Profile, wantProfile) {
		t.Errorf("profile\n got %+v\nwant %+v", inv.Profile, wantProfile)
	}
}

func TestDefaultsOverrideFieldByField(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yaml", `
defaults:
  ssh:
    user: admin
    sudo: true
    identity_files: [/keys/a, /keys/b]
    connect_timeout: 5s
    password: {env: SSH_PW}
  mysql:
    port: 3307
    service: {unit: mariadb, status: /bin/st}
hosts:
  - name: master
    role: master
    address: db1.example.com
    ssh:
      sudo: false
      identity_files: [/keys/c]
    mysql:
      service:
        start: /bin/start
        stop: /bin/stop
  - name: s1
    role: slave
    address: db2.example.com
    ssh:
      user: ""
  - name: s2
    role: slave
    address: db3.example.com
`)
	opts := LoadOptions{HomeDir: dir, SSH: SSHConfig{User: "flaguser", Port: 2200, JumpHost: "bastion"}}
	inv := mustLoad(t, path, opts)
	m, s1, s2 := inv.Master(), inv.Slaves()[0], inv.Slaves()[1]

	// The host's keys win; keys it does not set come from defaults, then
	// from the options.
	if m.SSH.Sudo || m.SSH.User != "admin" || !reflect.DeepEqual(m.SSH.IdentityFiles, []string{"/keys/c"}) {
		t.Errorf("master ssh %+v", m.SSH)
	}
	if m.SSH.Port != 2200 || m.SSH.JumpHost != "bastion" || m.SSH.ConnectTimeout != 5*time.Second || m.SSH.Password.Env != "SSH_PW" {
		t.Errorf("master inherited ssh %+v", m.SSH)
	}
	// A service block replaces the inherited one whole.
	if want := (ServiceControl{Start: "/bin/start", Stop: "/bin/stop"}); m.MySQL.Service != want {
		t.Errorf("master service %+v, want %+v", m.MySQL.Service, want)
	}
	// No user and no password: an account of orch's own, made on the server.
	if m.MySQL.Port != 3307 || m.MySQL.User != DefaultManagedUser || !m.MySQL.Managed || m.MySQL.Datadir != DefaultDatadir {
		t.Errorf("master mysql %+v", m.MySQL)
	}
	// An explicit empty string resets to "not set".
	if s1.SSH.User != "" || !s1.SSH.Sudo {
		t.Errorf("s1 ssh %+v", s1.SSH)
	}
	if want := (ServiceControl{Unit: "mariadb", Status: "/bin/st"}); s2.MySQL.Service != want {
		t.Errorf("s2 service %+v", s2.MySQL.Service)
	}
	if !reflect.DeepEqual(s2.SSH.IdentityFiles, []string{"/keys/a", "/keys/b"}) {
		t.Errorf("s2 identity files %v", s2.SSH.IdentityFiles)
	}
	// Hosts must not share the inherited slice.
	s2.SSH.IdentityFiles[0] = "changed"
	if s1.SSH.IdentityFiles[0] != "/keys/a" {
		t.Error("hosts share one identity_files slice")
	}
}

func TestBuiltinDefaults(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yml", "hosts:\n  - {name: m, role: master, address: 10.1.1.1}\n")
	inv := mustLoad(t, path, LoadOptions{HomeDir: dir})
	h := inv.Hosts[0]
	wantSSH := SSHConfig{ConnectTimeout: DefaultConnectTimeout}
	if !reflect.DeepEqual(h.SSH, wantSSH) {
		t.Errorf("ssh %+v, want only the connect timeout (user and port left to ~/.ssh/config)", h.SSH)
	}
	wantMySQL := MySQLConfig{Port: 3306, User: "orch", Managed: true, Datadir: "/var/lib/mysql"}
	if !reflect.DeepEqual(h.MySQL, wantMySQL) {
		t.Errorf("mysql %+v, want %+v", h.MySQL, wantMySQL)
	}
	if want := (Account{User: "orch_bench", Managed: true}); !reflect.DeepEqual(inv.Benchmark, want) {
		t.Errorf("benchmark %+v, want %+v", inv.Benchmark, want)
	}
	if !inv.Replication.PasswordManaged {
		t.Error("no password anywhere, yet the replication password is not generated")
	}
	if want := filepath.Join(dir, ".ssh", "known_hosts"); inv.KnownHostsFile != want {
		t.Errorf("known_hosts %q, want %q", inv.KnownHostsFile, want)
	}
	if err := inv.ValidateCluster(); err == nil || err.Error() != path+":1:1: a cluster needs exactly 2 slaves; found 0" {
		t.Errorf("ValidateCluster: %v", err)
	}
}

func TestLocalPaths(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	writeFile(t, dir, "secrets/mysql", "s3cret\n")
	path := writeFile(t, dir, "lab/cluster.yaml", `
known_hosts: ../kh
defaults:
  ssh:
    identity_files: [~/.ssh/id, keys/id, /abs/id, "~"]
    passphrase: {file: ~/pp}
  mysql:
    password: {file: ../secrets/mysql}
hosts:
  - {name: m, role: master, address: 10.1.1.1}
`)
	inv := mustLoad(t, path, LoadOptions{HomeDir: home})
	h := inv.Hosts[0]
	want := []string{filepath.Join(home, ".ssh/id"), filepath.Join(dir, "lab/keys/id"), "/abs/id", home}
	if !reflect.DeepEqual(h.SSH.IdentityFiles, want) {
		t.Errorf("identity files %v, want %v", h.SSH.IdentityFiles, want)
	}
	if inv.KnownHostsFile != filepath.Join(dir, "kh") {
		t.Errorf("known_hosts %q", inv.KnownHostsFile)
	}
	if h.SSH.Passphrase.File != filepath.Join(home, "pp") {
		t.Errorf("passphrase file %q", h.SSH.Passphrase.File)
	}
	// The relative secret file resolves whatever the working directory.
	v, err := h.MySQL.Password.Resolve()
	if err != nil || v != "s3cret" {
		t.Errorf("password resolves to %q, %v", v, err)
	}
}

func TestOptionPathsAndKnownHosts(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yaml", "hosts:\n  - {name: m, role: master, address: 10.1.1.1}\n")
	opts := LoadOptions{
		HomeDir:        "/home/op",
		KnownHostsFile: "~/kh",
		SSH:            SSHConfig{IdentityFiles: []string{"~/.ssh/ci"}, Password: Secret{File: "~/pw"}},
	}
	inv := mustLoad(t, path, opts)
	h := inv.Hosts[0]
	if inv.KnownHostsFile != "/home/op/kh" || h.SSH.IdentityFiles[0] != "/home/op/.ssh/ci" || h.SSH.Password.File != "/home/op/pw" {
		t.Errorf("known_hosts %q identity %v password %v", inv.KnownHostsFile, h.SSH.IdentityFiles, h.SSH.Password)
	}
	if opts.SSH.IdentityFiles[0] != "~/.ssh/ci" {
		t.Error("Load modified the caller's options")
	}
}

func TestHostOrderAndAliases(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yaml", `
hosts:
  - {name: lb, role: loadbox, address: 10.0.0.9}
  - name: b
    role: slave
    address: 10.0.0.3
    ssh: &alt {port: 2222, user: bench}
  - {name: a, role: slave, address: 10.0.0.2, ssh: *alt}
  - {name: m, role: master, address: 10.0.0.1}
`)
	inv := mustLoad(t, path, LoadOptions{HomeDir: dir})
	if got, want := hostNamesOf(inv), []string{"m", "b", "a", "lb"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if a := inv.Slaves()[1]; a.SSH.Port != 2222 || a.SSH.User != "bench" {
		t.Errorf("alias not followed: %+v", a.SSH)
	}
	if err := inv.ValidateCluster(); err != nil {
		t.Errorf("ValidateCluster: %v", err)
	}
}

func TestAddressComparison(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, slave1, slave2, wantErr string
	}{
		{"ports differ", "{address: 10.0.0.2, ssh: {port: 2201}}", "{address: 10.0.0.2, ssh: {port: 2202}}", ""},
		{"unset is 22", "{address: 10.0.0.2}", "{address: 10.0.0.2, ssh: {port: 22}}", `"s2" has the same address and SSH port as "s1" (10.0.0.2 port 22, line 3)`},
		{"dns case", "{address: DB2.example.com}", "{address: db2.example.com.}", `"s2" has the same address and SSH port`},
		{"ipv6 forms", "{address: '::1'}", "{address: '0:0::1'}", `"s2" has the same address and SSH port`},
		{"mapped v4", "{address: 10.0.0.2}", "{address: '::ffff:10.0.0.2'}", `"s2" has the same address and SSH port`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			withName := func(flow, name string) string {
				return "{name: " + name + ", role: slave, " + strings.TrimPrefix(flow, "{")
			}
			path := writeFile(t, dir, "c.yaml", "hosts:\n  - {name: m, role: master, address: 10.0.0.1}\n  - "+
				withName(tc.slave1, "s1")+"\n  - "+withName(tc.slave2, "s2")+"\n")
			_, err := Load(path, LoadOptions{HomeDir: dir})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestSniffing(t *testing.T) {
	dir := t.TempDir()
	yamlNoExt := writeFile(t, dir, "inventory", "hosts:\n  - {name: m, role: master, address: 10.1.1.1}\n")
	if inv := mustLoad(t, yamlNoExt, LoadOptions{HomeDir: dir}); inv.Format != "yaml" {
		t.Errorf("%s read as %s", yamlNoExt, inv.Format)
	}
	ipsNoExt := writeFile(t, dir, "hosts", "10.1.1.1\nbench pw\n")
	if inv := mustLoad(t, ipsNoExt, LoadOptions{HomeDir: dir}); inv.Format != "ips" {
		t.Errorf("%s read as %s", ipsNoExt, inv.Format)
	}
	for _, c := range []struct {
		text string
		ips  bool
	}{
		{"10.0.0.1\n10.0.0.2\n10.0.0.3\nbench pw\n", true},
		{"10.0.0.1 master\nbench pw\n", true},      // a mistake best explained as ips
		{"10.0.0.1\nbench pass word # c\n", true},  // three-field credentials
		{"[::1]:22\n-odd-\nbench pw\n", true},      // bad address, still ips
		{"name: x\n", false},                       // "key:" is YAML
		{"- a\n", false},                           // list item
		{"{hosts: []}\n", false},                   // flow mapping
		{"10.0.0.1\n---\n", false},                 // document marker
		{"'quoted'\n", false},                      // quoted scalar
		{"hosts:\n- {name: m}\n10.0.0.1\n", false}, // mixed
		{"# only a comment\n", true},               // empty; ips form unless named .yaml
	} {
		if got := looksLikeIPs([]byte(c.text)); got != c.ips {
			t.Errorf("looksLikeIPs(%q) = %v, want %v", c.text, got, c.ips)
		}
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.yaml")
	_, err := Load(missing, LoadOptions{})
	if err == nil || !os.IsNotExist(unwrapAll(err)) || err.Error() != missing+": no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Load(dir, LoadOptions{}); err == nil || err.Error() != dir+": is a directory, not an inventory file" {
		t.Errorf("directory: %v", err)
	}
	big := writeFile(t, dir, "big.yaml", "# "+strings.Repeat("x", maxInventorySize)+"\n")
	if _, err := Load(big, LoadOptions{}); err == nil || err.Error() != big+": is larger than 1 MiB; an inventory is a small text file" {
		t.Errorf("big file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestBadOptions(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yaml", "hosts:\n  - {name: m, role: master, address: 10.1.1.1}\n")
	for _, c := range []struct {
		opts LoadOptions
		want string
	}{
		{LoadOptions{SSH: SSHConfig{Port: 70000}}, "inventory options: ssh port 70000 is out of range 1..65535"},
		{LoadOptions{MySQL: MySQLConfig{Port: -1}}, "inventory options: mysql port -1 is out of range 1..65535"},
		{LoadOptions{SSH: SSHConfig{IdentityFiles: []string{"~bob/id"}}}, "inventory options: ssh identity file: ~user paths are not supported; use ~/ or an absolute path"},
	} {
		if _, err := Load(path, c.opts); err == nil || err.Error() != c.want {
			t.Errorf("Load with %+v: %v, want %q", c.opts, err, c.want)
		}
	}
}

func TestBOMAndCRLF(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yaml", "\uFEFFhosts:\r\n  - name: m\r\n    role: master\r\n    address: 10.1.1.1\r\n")
	inv := mustLoad(t, path, LoadOptions{HomeDir: dir})
	if h := inv.Hosts[0]; h.Address != "10.1.1.1" || h.Pos.Line != 2 || h.Pos.Col != 5 {
		t.Errorf("host %+v at %+v", h, h.Pos)
	}
}

func TestJSONView(t *testing.T) {
	inv := mustLoad(t, filepath.Join("..", "inventories", "cluster.example.yaml"), LoadOptions{HomeDir: "/home/j"})
	b, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Format string
		Hosts  []struct {
			Name  string
			SSH   map[string]any
			MySQL map[string]any
		}
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	h := back.Hosts[0]
	if back.Format != "yaml" || h.Name != "master" || len(back.Hosts) != 4 {
		t.Errorf("json %s", b)
	}
	if h.SSH["connect_timeout"] != "10s" || h.SSH["passphrase"] != "env:ORCH_KEY_PASSPHRASE (***)" {
		t.Errorf("ssh json %v", h.SSH)
	}
	if h.MySQL["password"] != "env:ORCH_MYSQL_PASSWORD (***)" || h.MySQL["datadir"] != "/var/lib/mysql" {
		t.Errorf("mysql json %v", h.MySQL)
	}
}

func TestServiceCommandsMaySpanLines(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yaml", `
defaults:
  mysql:
    service:
      start: |
        ulimit -n 16384
        setsid mysqld_safe </dev/null >/dev/null 2>&1 &
      stop: mysqladmin shutdown
hosts:
  - {name: m, role: master, address: 10.1.1.1}
`)
	inv := mustLoad(t, path, LoadOptions{HomeDir: dir})
	want := "ulimit -n 16384\nsetsid mysqld_safe </dev/null >/dev/null 2>&1 &\n"
	if got := inv.Hosts[0].MySQL.Service.Start; got != want {
		t.Errorf("start %q, want %q", got, want)
	}
}
