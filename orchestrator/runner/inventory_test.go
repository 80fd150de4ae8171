package runner

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/topology"
)

// writeFile writes an inventory (or another file) into dir.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// loadSetOf loads the inventory files as `orch inventory` does.
func loadSetOf(t *testing.T, paths ...string) *topology.Set {
	t.Helper()
	set, err := topology.LoadSet(paths, topology.LoadOptions{HomeDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// threeHosts is a master and two slaves, the given clusters' hosts
// indented under a hosts key.
func threeHosts(indent, prefix string, n int) string {
	var b strings.Builder
	for i, role := range []string{"master", "slave", "slave"} {
		b.WriteString(indent + "- {name: " + prefix + string(rune('1'+i)) + ", role: " + role + ", address: 192.0.2." + string(rune('0'+n)) + string(rune('1'+i)) + "}\n")
	}
	return b.String()
}

// TestValidateSetAccepts: clusters of a master and two slaves and an
// existing server are what run and matrix take.
func TestValidateSetAccepts(t *testing.T) {
	dir := t.TempDir()
	two := writeFile(t, dir, "two.yaml", "name: fleet\nclusters:\n  - name: east\n    hosts:\n"+threeHosts("      ", "e", 2)+
		"  - name: west\n    profile: {engine: rocksdb}\n    hosts:\n"+threeHosts("      ", "w", 3))
	one := writeFile(t, dir, "one.yaml", existingYAML)
	if err := ValidateSet(loadSetOf(t, two, one)); err != nil {
		t.Errorf("ValidateSet: %v", err)
	}
}

// TestValidateSetRefuses: what up, run and matrix would refuse of an
// inventory that loads is bad input, every cluster's problems in one
// error, a line each, named by cluster when there are several.
func TestValidateSetRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, yaml string
		want       []string // the error's lines, each a substring
	}{
		{"one slave", oneSlaveYAML, []string{"a cluster needs exactly 2 slaves; found 1 (db2)"}},
		{"asynchronous", "replication: {semi_sync: {enabled: false}}\nhosts:\n" + threeHosts("  ", "db", 1),
			[]string{"replication.semi_sync.enabled: false is not supported"}},
		{"unknown engine", "profile: {engine: nosuch}\nhosts:\n" + threeHosts("  ", "db", 1),
			[]string{"unknown engine.yaml: profile.engine nosuch: unknown engine profile (profiles: "}},
		{"missing profile dir", "profile: {dir: ./no-such-profiles}\nhosts:\n" + threeHosts("  ", "db", 1),
			[]string{"missing profile dir.yaml: profile.dir: stat " + filepath.Join(dir, "no-such-profiles") + ": no such file or directory"}},
		{"existing server, unknown engine", "profile: {engine: nosuch}\ndefaults:\n  mysql: {user: bench, password: {env: PW}}\nhosts:\n  - {name: db1, role: server, address: 192.0.2.11}\n",
			[]string{"profile.engine nosuch: unknown engine profile"}},
		{"two bad clusters", "name: fleet\nclusters:\n" +
			"  - name: east\n    hosts:\n      - {name: e1, role: master, address: 192.0.2.21}\n" +
			"  - name: west\n    replication: {semi_sync: {enabled: false}}\n    hosts:\n      - {name: w1, role: master, address: 192.0.2.31}\n" +
			"  - name: north\n    profile: {engine: nosuch}\n    hosts:\n" + threeHosts("      ", "n", 4),
			[]string{"cluster east: ", "cluster west: ", "cluster west: ", "cluster north: "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := ValidateSet(loadSetOf(t, writeFile(t, dir, c.name+".yaml", c.yaml)))
			if !orchestrator.IsBadInput(err) {
				t.Fatalf("ValidateSet: %v, want bad input", err)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(c.want) {
				t.Fatalf("%d lines, want %d:\n%v", len(lines), len(c.want), err)
			}
			for i, w := range c.want {
				if !strings.Contains(lines[i], w) || len(c.want) == 1 && strings.HasPrefix(lines[i], "cluster ") {
					t.Errorf("line %d: %q, want it to hold %q", i+1, lines[i], w)
				}
			}
		})
	}
}

// The inventory that TestWriteInventory prints: a host of each service
// kind, of each way to log in, and a load box.
const printedYAML = `name: lab
known_hosts: /dev/null
defaults:
  ssh:
    user: bench
  mysql:
    user: orch
    password: {env: ORCH_INV_MYSQL_PW}
benchmark:
  user: sbtest
  password: {env: ORCH_INV_BENCH_PW}
hosts:
  - {name: db1, role: master, address: 192.0.2.11, mysql: {service: {unit: mariadb}}}
  - {name: db2, role: slave, address: 192.0.2.12, ssh: {identity_files: [/keys/id_ed25519]}, mysql: {socket: /run/mysqld/mysqld.sock, service: {start: /opt/db/start, stop: /opt/db/stop}}}
  - {name: db3, role: slave, address: db3.example, ssh: {port: 2200, sudo: true, password: {env: ORCH_INV_SSH_PW}}, mysql: {datadir: /data/mysql}}
  - {name: lb, role: loadbox, address: 192.0.2.14}
`

// TestWriteInventory: the inventory normalised, one row per host: where
// orch logs in (through the ssh_config given), how, which account on which
// server address, the datadir and how the service is driven; secrets only
// as where they come from, never their values.
func TestWriteInventory(t *testing.T) {
	t.Setenv("ORCH_INV_MYSQL_PW", "inv-mysql-pw")
	t.Setenv("ORCH_INV_BENCH_PW", "inv-bench-pw")
	t.Setenv("ORCH_INV_SSH_PW", "inv-ssh-pw")
	dir := t.TempDir()
	path := writeFile(t, dir, "lab.yaml", printedYAML)
	sshConfig := writeFile(t, dir, "ssh_config", "Host db3.example\n  HostName 192.0.2.13\n")
	inv := loadSetOf(t, path).Clusters[0]
	var b bytes.Buffer
	if err := WriteInventory(&b, inv, sshConfig, false); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.HasPrefix(text, "inventory "+path+" (yaml), name lab\nknown_hosts /dev/null\n\n") {
		t.Errorf("heading:\n%s", text)
	}
	for _, r := range [][]string{
		{"HOST", "ROLE", "ADDRESS", "SSH", "AUTH", "MYSQL", "DATADIR", "SERVICE"},
		{"db1", "master", "192.0.2.11", "bench@192.0.2.11:22", "agent/default keys", "orch@127.0.0.1:3306 password:env:ORCH_INV_MYSQL_PW (***)", "/var/lib/mysql", "systemd:mariadb"},
		{"db2", "slave", "192.0.2.12", "bench@192.0.2.12:22", "keys:/keys/id_ed25519", "orch@/run/mysqld/mysqld.sock password:env:ORCH_INV_MYSQL_PW (***)", "/var/lib/mysql", "commands"},
		{"db3", "slave", "db3.example", "bench@192.0.2.13:2200", "password:env:ORCH_INV_SSH_PW (***) sudo", "orch@127.0.0.1:3306 password:env:ORCH_INV_MYSQL_PW (***)", "/data/mysql", "auto"},
	} {
		if !row("", r...).MatchString(text) {
			t.Errorf("no row %q:\n%s", r, text)
		}
	}
	if !rowStart("", "lb", "loadbox", "192.0.2.14", "bench@192.0.2.14:22", "agent/default keys", "-").MatchString(text) || !strings.Contains(text, "  -\n") {
		t.Errorf("the load box has no server nor service:\n%s", text)
	}
	if !strings.HasSuffix(text, "\n\nSERVICE auto: the systemd unit (mysql, mariadb or mysqld) when systemd runs on the host, else its init script through service\nbenchmark account: sbtest\n") {
		t.Errorf("the notes after the table:\n%s", text)
	}
	for _, pw := range []string{"inv-mysql-pw", "inv-bench-pw", "inv-ssh-pw"} {
		if strings.Contains(text, pw) {
			t.Errorf("the table shows the password %s", pw)
		}
	}

	b.Reset()
	if err := WriteInventory(&b, inv, sshConfig, true); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Name  string `json:"name"`
		Hosts []struct {
			Name string `json:"name"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || doc.Name != "lab" || len(doc.Hosts) != 4 || doc.Hosts[2].Name != "db3" {
		t.Errorf("--json: %v %+v\n%s", err, doc, &b)
	}
	for _, pw := range []string{"inv-mysql-pw", "inv-bench-pw", "inv-ssh-pw"} {
		if strings.Contains(b.String(), pw) {
			t.Errorf("--json shows the password %s", pw)
		}
	}
}

// TestWriteInventoryOtherShapes: an ips.txt (its inline password masked)
// through an ssh_config that cannot be read, said in place of the SSH
// target; accounts orch makes itself; an existing server driven from this
// machine or from a load box.
func TestWriteInventoryOtherShapes(t *testing.T) {
	dir := t.TempDir()
	ips := writeFile(t, dir, "ips.txt", "10.0.0.1\n10.0.0.2\n10.0.0.3:2222\nbench s3cr3t-inline\n")
	missing := filepath.Join(dir, "no-ssh-config")
	var b bytes.Buffer
	if err := WriteInventory(&b, loadSetOf(t, ips).Clusters[0], missing, false); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "inventory "+ips+" (ips)") ||
		!row("", "slave2", "slave", "10.0.0.3", "(ssh config: open "+missing+": no such file or directory)", "agent/default keys",
			"bench@127.0.0.1:3306 password:***", "/var/lib/mysql", "auto").MatchString(b.String()) ||
		!strings.HasSuffix(b.String(), "\nbenchmark account: bench\n") || strings.Contains(b.String(), "s3cr3t") {
		t.Errorf("ips.txt:\n%s", &b)
	}
	b.Reset()
	if err := WriteInventory(&b, loadSetOf(t, ips).Clusters[0], missing, true); err != nil || strings.Contains(b.String(), "s3cr3t") || !json.Valid(b.Bytes()) {
		t.Errorf("ips.txt --json: %v\n%s", err, &b)
	}

	managed := writeFile(t, dir, "managed.yaml", "hosts:\n"+threeHosts("  ", "db", 1))
	b.Reset()
	WriteInventory(&b, loadSetOf(t, managed).Clusters[0], "none", false)
	if !strings.HasSuffix(b.String(), "\naccounts: none named; orch up makes orch@localhost on each server and orch_bench on the master for the benchmark, through root's unix socket\n") {
		t.Errorf("managed accounts:\n%s", &b)
	}

	for _, c := range []struct{ hosts, from string }{
		{"  - {name: db1, role: server, address: 192.0.2.11}\n", "this machine"},
		{"  - {name: db1, role: server, address: 192.0.2.11}\n  - {name: box, role: loadbox, address: 192.0.2.14}\n", "box"},
	} {
		b.Reset()
		WriteInventory(&b, loadSetOf(t, writeFile(t, dir, "existing.yaml", "name: one\ndefaults:\n  mysql: {user: bench, password: {env: PW}}\nhosts:\n"+c.hosts)).Clusters[0], "none", false)
		if !hasLine(b.String(), "existing server: benchmarked as it is from "+c.from+" (dynamic knobs only); cluster setup is not allowed") {
			t.Errorf("existing server driven from %s:\n%s", c.from, &b)
		}
		// up never touches an existing server: it makes no account there.
		if strings.Contains(b.String(), "orch up makes") || !strings.Contains(b.String(), "\nbenchmark account: ") {
			t.Errorf("existing server's accounts:\n%s", &b)
		}
	}
}

// TestWriteSet: several clusters: a line for the set (its name when the
// file has one), then each cluster as WriteInventory prints it, or the
// whole set as JSON.
func TestWriteSet(t *testing.T) {
	dir := t.TempDir()
	fleet := writeFile(t, dir, "fleet.yaml", "name: fleet\nclusters:\n  - name: east\n    hosts:\n"+threeHosts("      ", "e", 2)+
		"  - name: west\n    hosts:\n"+threeHosts("      ", "w", 3))
	var b bytes.Buffer
	if err := WriteSet(&b, loadSetOf(t, fleet), "none", false); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.HasPrefix(text, "2 clusters (east, west), name fleet\n\ncluster east: inventory "+fleet+" (yaml), name east\n") ||
		!strings.Contains(text, "\n\ncluster west: inventory "+fleet+" (yaml), name west\n") ||
		!rowStart("", "w2", "slave", "192.0.2.32").MatchString(text) {
		t.Errorf("set:\n%s", text)
	}
	if strings.Count(text, "\nHOST  ") != 2 {
		t.Errorf("want a table per cluster:\n%s", text)
	}

	// Two files, one cluster each, named after the files: no set name.
	a := writeFile(t, dir, "a.yaml", "hosts:\n"+threeHosts("  ", "a", 5))
	c := writeFile(t, dir, "c.yaml", "hosts:\n"+threeHosts("  ", "c", 6))
	b.Reset()
	WriteSet(&b, loadSetOf(t, a, c), "none", false)
	if !strings.HasPrefix(b.String(), "2 clusters (a, c)\n\ncluster a: inventory "+a+" (yaml), name a\n") {
		t.Errorf("two files:\n%s", &b)
	}

	b.Reset()
	if err := WriteSet(&b, loadSetOf(t, fleet), "none", true); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Name     string
		Sources  []string
		Clusters []struct{ Name string }
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || doc.Name != "fleet" || len(doc.Sources) != 1 || doc.Sources[0] != fleet ||
		len(doc.Clusters) != 2 || doc.Clusters[1].Name != "west" {
		t.Errorf("--json: %v %+v\n%s", err, doc, &b)
	}
}
