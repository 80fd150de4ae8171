package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/orch-bench/orch/topology"
)

// Every example inventory shipped under inventories/ passes orch inventory
// and orch matrix --dry-run as it is, with no environment set: a new user's
// first commands work. The lab's generated inventories (git-ignored) are
// not examples.
func TestExampleInventories(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for _, v := range []string{"ORCH_SSH_USER", "XDG_STATE_HOME"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	files, err := filepath.Glob("../../inventories/*")
	if err != nil {
		t.Fatal(err)
	}
	ignored := gitIgnoredInventories(t)
	n := 0
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.IsDir() || ignored[filepath.Base(f)] {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			runs := [][]string{{"inventory", f}, {"matrix", f, "--dry-run"}}
			// A name "...-A-vs-B" says what the example compares: that
			// plan must pass too (engines the flavour has).
			if inv, err := topology.Load(f, topology.LoadOptions{}); err == nil {
				if m := vsName.FindStringSubmatch(inv.Name); m != nil {
					runs = append(runs, []string{"matrix", f, "--dry-run", "--engines=" + m[1] + "," + m[2]})
				}
			}
			for _, args := range runs {
				code, out, errOut := orchInProcess(args...)
				if code != 0 {
					t.Errorf("orch %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
				}
				// An example passes orch's own lint: a plan it prints has
				// no fairness warning (the review found the shipped one
				// comparing a 256M InnoDB cache with a 128M RocksDB one).
				if strings.Contains(out, "WARNING") || strings.Contains(out, "ASYMMETRY") {
					t.Errorf("orch %s: the example trips orch's own lint:\n%s", strings.Join(args, " "), out)
				}
			}
		})
	}
	if n < 2 {
		t.Fatalf("found %d example inventories under inventories/, want the YAML and the ips.txt examples", n)
	}
}

var vsName = regexp.MustCompile(`([a-z0-9_]+)-vs-([a-z0-9_]+)$`)

// gitIgnoredInventories are the names .gitignore keeps out of inventories/.
func gitIgnoredInventories(t *testing.T) map[string]bool {
	data, err := os.ReadFile("../../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "/inventories/"); ok {
			out[strings.TrimSuffix(name, "/")] = true
		}
	}
	return out
}

// orchInProcess runs the CLI as main does, with its output captured.
func orchInProcess(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(&o)
	root.SetErr(&e)
	if err := root.ExecuteContext(context.Background()); err != nil {
		e.WriteString("orch: " + err.Error() + "\n")
		code = exitCode(err)
	}
	return code, o.String(), e.String()
}
