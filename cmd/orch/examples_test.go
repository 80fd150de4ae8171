package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
			for _, args := range [][]string{{"inventory", f}, {"matrix", f, "--dry-run"}} {
				code, out, errOut := orchInProcess(args...)
				if code != 0 {
					t.Errorf("orch %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
				}
			}
		})
	}
	if n < 2 {
		t.Fatalf("found %d example inventories under inventories/, want the YAML and the ips.txt examples", n)
	}
}

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
