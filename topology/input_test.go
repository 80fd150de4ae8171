package topology

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Secret references are resolved before any host is contacted: an unset
// variable or an unreadable file is an error at the reference's position.
func TestCheckSecrets(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ORCH_TEST_SET_PW", "x")
	os.Unsetenv("ORCH_TEST_UNSET_PW")
	writeFile(t, dir, "pw", "secret\n")
	locked := writeFile(t, dir, "locked", "secret\n")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, mysql, want string }{
		{"env set", "{env: ORCH_TEST_SET_PW}", ""},
		{"file readable", "{file: pw}", ""},
		{"env unset", "{env: ORCH_TEST_UNSET_PW}", "/c.yaml:3:15: defaults.mysql.password: environment variable ORCH_TEST_UNSET_PW is not set"},
		{"file missing", "{file: nope}", "/c.yaml:3:15: defaults.mysql.password: open " + filepath.Join(dir, "nope") + ": no such file or directory"},
	}
	if os.Geteuid() != 0 { // root reads a mode-0 file
		cases = append(cases, struct{ name, mysql, want string }{"file unreadable", "{file: locked}", "permission denied"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := "defaults:\n  mysql:\n    password: " + c.mysql + "\n" + threeHosts
			inv := mustLoad(t, writeFile(t, dir, "c.yaml", text), LoadOptions{HomeDir: dir})
			err := inv.CheckSecrets()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("CheckSecrets: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("CheckSecrets: %v, want %q", err, c.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Fatalf("not one line: %q", err)
			}
		})
	}
}

// A hundred hosts with bad references still give one short line.
func TestCheckSecretsCapsTheList(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("hosts:\n  - {name: master, role: master, address: 10.0.0.1, mysql: {password: {env: ORCH_TEST_UNSET_0}}}\n")
	for i := 1; i <= 40; i++ {
		b.WriteString("  - {name: s" + itoa(i) + ", role: slave, address: 10.0.1." + itoa(i) + ", mysql: {password: {env: ORCH_TEST_UNSET_" + itoa(i) + "}}}\n")
	}
	inv := mustLoad(t, writeFile(t, dir, "c.yaml", b.String()), LoadOptions{HomeDir: dir})
	err := inv.CheckSecrets()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "/c.yaml:2:71: hosts[0].mysql.password: ") || !strings.Contains(msg, "ORCH_TEST_UNSET_0 is not set") || !strings.HasSuffix(msg, "and 37 more") || len(msg) > 300 {
		t.Fatalf("error %q: want the first offender and 3 more named, then \"and 37 more\"", msg)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// semi_sync.enabled: false loads (the inventory is well formed) but no
// cluster command accepts it: the error points at the value.
func TestAsyncClusterUnsupported(t *testing.T) {
	dir := t.TempDir()
	inv := mustLoad(t, writeFile(t, dir, "c.yaml", "replication:\n  semi_sync:\n    enabled: false\n"+threeHosts), LoadOptions{HomeDir: dir})
	err := inv.ValidateCluster()
	if err == nil || !strings.Contains(err.Error(), "/c.yaml:3:14: replication.semi_sync.enabled: false is not supported") {
		t.Fatalf("ValidateCluster: %v", err)
	}
}

// profile.vars values an option file would read differently are rejected
// where they are written.
func TestProfileVarsOptionFileSyntax(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{`"a#b"`, `"it's"`, `'a\b'`, `" 1"`} {
		_, err := Load(writeFile(t, dir, "c.yaml", "profile:\n  vars:\n    x: "+v+"\n"+threeHosts), LoadOptions{HomeDir: dir})
		if err == nil || !strings.Contains(err.Error(), "/c.yaml:3:8: profile.vars.x: ") {
			t.Errorf("value %s: %v, want an error at c.yaml:3:8", v, err)
		}
	}
}

// --known-hosts=~/kh means the file in the home directory, not ./~/kh.
func TestKnownHostsOverrideExpandsHome(t *testing.T) {
	dir := t.TempDir()
	inv := mustLoad(t, writeFile(t, dir, "c.yaml", "known_hosts: ./kh\n"+threeHosts), LoadOptions{HomeDir: "/home/u", KnownHostsOverride: "~/kh"})
	if inv.KnownHostsFile != "/home/u/kh" {
		t.Fatalf("known_hosts %q, want /home/u/kh", inv.KnownHostsFile)
	}
}
