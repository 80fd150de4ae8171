package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckDesired refuses, without a server, what no server could accept.
func TestCheckDesiredOffline(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	os.Mkdir(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "innodb.cnf"), []byte("[mysqld]\n{{if}}\n"), 0o644)
	missingKey := filepath.Join(dir, "missingkey")
	os.Mkdir(missingKey, 0o755)
	os.WriteFile(filepath.Join(missingKey, "innodb.cnf"), []byte("[mysqld]\nx = {{.NoSuchField}}\n"), 0o644)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)

	cases := []struct {
		name string
		d    Desired
		want string // "" = accepted
	}{
		{"embedded innodb", Desired{Engine: "innodb"}, ""},
		{"embedded rocksdb, knob", Desired{Engine: "rocksdb", Knobs: []KV{{"sync_binlog", "1"}}}, ""},
		{"path as engine", Desired{Engine: "../x"}, `--engine ../x: unknown engine profile (profiles: innodb, tokudb, rocksdb)`},
		{"unknown engine", Desired{Engine: "myisam"}, `--engine myisam: unknown engine profile`},
		{"missing profile dir", Desired{ProfileDir: filepath.Join(dir, "nope")}, "--profile-dir: stat " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{"profile dir is a file", Desired{ProfileDir: file}, "not a directory"},
		{"template syntax", Desired{ProfileDir: bad}, "innodb.cnf"},
		{"template field", Desired{ProfileDir: missingKey}, "NoSuchField"},
		{"empty knob", Desired{Knobs: []KV{{"sync_binlog", ""}}}, "--knob sync_binlog=: empty value"},
		{"knob with a quote", Desired{Knobs: []KV{{"sync_binlog", "'1'"}}}, "quote"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inv := testInventory(nil)
			for _, h := range inv.DBHosts() {
				h.MySQL.Flavor = "mariadb"
			}
			err := CheckDesired(inv, c.d, "--engine")
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error with %q", err, c.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Fatalf("not one line: %q", err)
			}
		})
	}
}

// An empty --knob value is refused where the flag is read.
func TestParseKnobsEmptyValue(t *testing.T) {
	if _, err := ParseKnobs([]string{"sync_binlog="}); err == nil || !strings.Contains(err.Error(), "empty value") {
		t.Fatalf("ParseKnobs(sync_binlog=): %v", err)
	}
}
