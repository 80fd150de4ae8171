package topology

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The fuzz targets call parse, Load minus the file read, so each input costs
// no disk I/O. Property: no panic; an error is one line starting with the
// file name; a loaded inventory is consistent.

var fuzzOpts = LoadOptions{HomeDir: "/home/fuzz", SSH: SSHConfig{IdentityFiles: []string{"/k"}}}

func FuzzLoadYAML(f *testing.F) {
	addSeeds(f, ".yaml")
	f.Add([]byte("hosts:\n  - {name: m, role: master, address: 10.0.0.1, ssh: {port: 22}}\n"))
	f.Add([]byte("defaults: &d\n  ssh: {user: a}\nhosts:\n  - {name: m, role: master, address: '::1', mysql: {service: {start: a, stop: b}}}\n"))
	f.Add([]byte("hosts: [{name: a, role: master, address: x}, {name: b, role: loadbox, address: X.}]\n"))
	f.Add([]byte("replication: {user: r, semi_sync: {enabled: false, timeout_ms: 5, wait_point: after_commit, wait_for_slave_count: 1}}\n" +
		"profile: {engine: rocksdb, dir: p, vars: {a-B: 1M, c: ON}}\nhosts: [{name: m, role: master, address: 10.0.0.1}, {name: s, role: slave, address: 10.0.0.2}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "fuzz.yaml", data)
		checkParseSet(t, "fuzz.yaml", data)
	})
}

func FuzzLoadIPs(f *testing.F) {
	addSeeds(f, ".txt")
	f.Add([]byte("10.0.0.1\n10.0.0.2\n10.0.0.3\n10.0.0.4\nroot secret\n"))
	f.Add([]byte("[::1]:2222 # m\n::2\nh.example:22\nu p#w\n"))
	f.Add([]byte("10.0.0.1\r\nroot pw\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "ips.txt", data)
	})
}

// addSeeds adds the example inventories and the bad corpus with the given
// extension as seeds.
func addSeeds(f *testing.F, ext string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "bad", "*"+ext))
	clusters, _ := filepath.Glob(filepath.Join("testdata", "clusters", "*"+ext))
	paths = append(paths, clusters...)
	paths = append(paths, filepath.Join("..", "inventories", "cluster.example.yaml"), filepath.Join("..", "inventories", "ips.example.txt"))
	for _, p := range paths {
		if !strings.HasSuffix(p, ext) {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func checkParse(t *testing.T, name string, data []byte) {
	opts, err := fuzzOpts.normalize()
	if err != nil {
		t.Fatal(err)
	}
	inv, err := parse(name, data, opts)
	pw := ""
	if !isYAMLName(name) {
		pw = ipsPassword(data)
	}
	// The control: the same file with another password. Text that holds
	// the password with either (the word "master" in a message, a host
	// named master) is orch's own, not a leak.
	var control *Inventory
	var controlErr error
	if pw != "" {
		control, controlErr = parse(name, withPassword(data, pw), opts)
	}
	if err != nil {
		checkErrorLine(t, name, err)
		if pw != "" && strings.Count(err.Error(), pw) > strings.Count(errText(controlErr), pw) {
			t.Fatalf("error reveals the password %q: %s", pw, err)
		}
		return
	}
	checkInventory(t, name, data, inv, pw, control)
}

// checkParseSet: every cluster of a file is a consistent inventory, and
// no sshd belongs to two clusters.
func checkParseSet(t *testing.T, name string, data []byte) {
	opts, err := fuzzOpts.normalize()
	if err != nil {
		t.Fatal(err)
	}
	set, err := parseSet(name, data, opts)
	if err != nil {
		checkErrorLine(t, name, err)
		return
	}
	owner := map[string]string{}
	for _, inv := range set.Clusters {
		checkInventory(t, name, data, inv, "", nil)
		for _, h := range inv.Hosts {
			key := addrKey(h.Address) + " " + strconv.Itoa(sshPortKey(h.SSH.Port))
			if c, ok := owner[key]; ok && c != inv.Name {
				t.Fatalf("%s is in clusters %q and %q", key, c, inv.Name)
			}
			owner[key] = inv.Name
		}
	}
}

// checkInventory checks one loaded inventory (one cluster).
// checkInventory checks a loaded inventory; pw is the ips.txt password (or
// ""), control the same file loaded with another password.
func checkInventory(t *testing.T, name string, data []byte, inv *Inventory, pw string, control *Inventory) {
	t.Helper()
	if len(inv.Hosts) == 0 || inv.Hosts[0].Role != RoleMaster {
		t.Fatalf("loaded inventory does not start with the master: %v", hostNamesOf(inv))
	}
	rank := map[Role]int{RoleMaster: 0, RoleSlave: 1, RoleLoadBox: 2}
	names := map[string]bool{}
	for i, h := range inv.Hosts {
		if r, ok := rank[h.Role]; !ok || i > 0 && r < rank[inv.Hosts[i-1].Role] {
			t.Fatalf("hosts out of role order: %v", hostNamesOf(inv))
		}
		if names[h.Name] || checkHostName(h.Name, h.Role) != "" || checkHost(h.Address) != "" {
			t.Fatalf("invalid host accepted: %q %q", h.Name, h.Address)
		}
		names[h.Name] = true
		if h.SSH.Port < 0 || h.SSH.Port > 65535 || h.MySQL.Port < 1 || h.MySQL.Port > 65535 || h.SSH.ConnectTimeout <= 0 {
			t.Fatalf("bad ports or timeout accepted: %+v %+v", h.SSH, h.MySQL)
		}
	}
	if len(inv.ByRole(RoleLoadBox)) > 1 || len(inv.ByRole(RoleMaster)) != 1 {
		t.Fatalf("role counts wrong: %v", hostNamesOf(inv))
	}
	checkSettings(t, inv)
	if err := inv.ValidateCluster(); err != nil {
		checkErrorLine(t, name, err)
	}
	b, err := json.Marshal(inv)
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	if pw != "" {
		var controlStrings []string
		if control != nil {
			cb, err := json.Marshal(control)
			if err != nil {
				t.Fatalf("json: %v", err)
			}
			controlStrings = jsonStrings(t, cb)
		}
		if countIn(jsonStrings(t, b), pw) > countIn(controlStrings, pw) {
			t.Fatalf("JSON reveals the password: %s", b)
		}
	}
}

// withPassword replaces the ips.txt password pw (which occurs once in data)
// with another of the same length made of letters data does not hold.
func withPassword(data []byte, pw string) []byte {
	for _, c := range "QZXJKVWqzxjkvw" {
		other := strings.Repeat(string(c), len(pw))
		if !bytes.ContainsRune(data, c) && other != pw {
			return bytes.Replace(data, []byte(pw), []byte(other), 1)
		}
	}
	return bytes.Replace(data, []byte(pw), []byte(strings.Repeat("Q", len(pw))), 1)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// countIn counts the occurrences of sub in the strings.
func countIn(ss []string, sub string) int {
	n := 0
	for _, s := range ss {
		n += strings.Count(s, sub)
	}
	return n
}

// checkSettings checks the replication and profile settings of a loaded
// inventory: defaults filled in, every value in range.
func checkSettings(t *testing.T, inv *Inventory) {
	t.Helper()
	r, p := inv.Replication, inv.Profile
	if !replUserRE.MatchString(r.User) || len(r.User) > maxReplUserLen {
		t.Fatalf("bad replication user accepted: %q", r.User)
	}
	if !r.Password.IsSet() && inv.Master().MySQL.Password.IsSet() {
		t.Fatalf("replication password not defaulted to the master's")
	}
	ss := r.SemiSync
	if ss.TimeoutMs == 0 || ss.WaitPoint != "AFTER_SYNC" && ss.WaitPoint != "AFTER_COMMIT" ||
		ss.WaitForSlaveCount < 1 || ss.WaitForSlaveCount > max(1, len(inv.Slaves())) {
		t.Fatalf("bad semi-sync settings accepted: %+v with %d slaves", ss, len(inv.Slaves()))
	}
	if !engineRE.MatchString(p.Engine) {
		t.Fatalf("bad engine accepted: %q", p.Engine)
	}
	for k, v := range p.Vars {
		if k != normalizeVar(k) || !varNameRE.MatchString(k) || strings.TrimSpace(v) == "" || strings.ContainsFunc(v, isControl) {
			t.Fatalf("bad variable accepted: %q = %q", k, v)
		}
	}
}

// jsonStrings returns the string values in a JSON document: a leaked
// secret would be one, while a password of digits may well match a number
// such as the default semi-sync timeout.
func jsonStrings(t *testing.T, b []byte) []string {
	t.Helper()
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("json: %v", err)
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				out = append(out, k)
				walk(e)
			}
		}
	}
	walk(doc)
	return out
}

// checkErrorLine: an error is one line naming the file, or (several
// problems) an *Errors of such lines, at most MaxErrors and a count.
func checkErrorLine(t *testing.T, name string, err error) {
	t.Helper()
	if many, ok := err.(*Errors); ok {
		if many.Len() < 2 || len(many.list) > MaxErrors {
			t.Fatalf("*Errors of %d problems naming %d", many.Len(), len(many.list))
		}
		for _, e := range many.list {
			checkErrorLine(t, name, e)
		}
		return
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error is not one line: %q", msg)
	}
	if !strings.HasPrefix(msg, name+":") {
		t.Fatalf("error does not start with %q: %q", name+":", msg)
	}
	if _, ok := err.(*Error); !ok {
		t.Fatalf("error is %T, want *Error: %s", err, msg)
	}
}

// ipsPassword returns the password of an ips.txt credentials line, when it
// is distinctive enough to look for: long, and nowhere else in the file (an
// error may legitimately quote another line that happens to contain it).
func ipsPassword(data []byte) string {
	if !looksLikeIPs(data) {
		return ""
	}
	lines := ipsLines(data)
	if len(lines) == 0 {
		return ""
	}
	last := lines[len(lines)-1]
	if len(last.fields) != 2 || len(last.fields[1]) < 6 {
		return ""
	}
	pw := last.fields[1]
	if bytes.Count(data, []byte(pw)) != 1 {
		return ""
	}
	return pw
}
