package topology

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file with several problems gets them all in one run, one line each in
// file order, each FILE:LINE[:COL]; problems across hosts are reported for
// every host; a cluster's shape problems come together too.
func TestEveryProblemOfAFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	opts := LoadOptions{HomeDir: dir}
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"parse.yaml", "colour: blue\ndefaults:\n  ssh: {port: 0, user: [a]}\nhosts:\n  - {name: m, role: boss, address: 10.0.0.1}\n  - {name: s, role: slave, address: 10.0.0.300}\n",
			[]string{
				`:1:1: unknown key "colour"`,
				`:3:15: defaults.ssh.port: `,
				`:3:24: defaults.ssh.user: expected a string; found a list`,
				`:5:21: hosts[0].role: unknown role "boss"`,
				`:6:37: hosts[1].address: "10.0.0.300": not a valid IPv4 address`,
			}},
		{"hosts.yaml", "hosts:\n  - {name: m, role: master, address: 10.0.0.1}\n  - {name: m, role: slave, address: 10.0.0.2}\n  - {name: m2, role: master, address: 10.0.0.3}\n  - {name: s, role: slave, address: 10.0.0.1}\n",
			[]string{
				`:3:12: duplicate host name "m" (first used at line 2)`,
				`:4:22: only one master is allowed`,
				`:5:37: "s" has the same address and SSH port as "m"`,
			}},
		{"ips.txt", "10.0.0.1\n10.0.0.2 extra\n10.0.0.x:99999\nroot pw\n",
			[]string{":2: expected one address per line, found 2 fields", ":3: bad address"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(tc.name, tc.text)
			_, err := Load(p, opts)
			var many *Errors
			if !errors.As(err, &many) || many.Len() != len(tc.want) {
				t.Fatalf("Load: %v\nwant %d problems", err, len(tc.want))
			}
			lines := strings.Split(err.Error(), "\n")
			for i, want := range tc.want {
				if !strings.HasPrefix(lines[i], p+want) {
					t.Errorf("problem %d:\n got: %s\nwant: %s%s...", i+1, lines[i], p, want)
				}
			}
			var first *Error
			if !errors.As(err, &first) || !strings.HasPrefix(first.Error(), p+tc.want[0]) {
				t.Errorf("errors.As finds %v, want the first problem", first)
			}
		})
	}

	// The shape (one slave, asynchronous) of a file that parses: together.
	inv, err := Load(write("shape2.yaml", "replication: {semi_sync: {enabled: false}}\nhosts:\n  - {name: m, role: master, address: 10.0.0.1}\n  - {name: s, role: slave, address: 10.0.0.2}\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	err = inv.ValidateUse()
	if got := strings.Count(err.Error(), "\n") + 1; got != 2 || !strings.Contains(err.Error(), "exactly 2 slaves") || !strings.Contains(err.Error(), "semi_sync.enabled: false") {
		t.Errorf("ValidateUse: %d lines: %v", got, err)
	}
}

// Thousands of bad hosts: MaxErrors lines and a count, not megabytes.
func TestProblemsAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("hosts:\n")
	for i := range 500 {
		fmt.Fprintf(&b, "  - {name: h%d, role: slave, address: 10.0.0.300}\n", i)
	}
	p := filepath.Join(t.TempDir(), "many.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p, LoadOptions{HomeDir: "/nonexistent"})
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != MaxErrors+1 || lines[MaxErrors] != fmt.Sprintf("... and %d more problems", 500-MaxErrors) {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}
