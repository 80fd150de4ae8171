package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// assertHostFactsInHead checks that the run recorded each host's hardware
// as the lab's kernel reports it (CPU model, cores, memory, the datadir's
// filesystem) and that `orch report` puts it at the head of report.md,
// after the answer.
func assertHostFactsInHead(t *testing.T, l *lab, dir string) {
	t.Helper()
	m := readJSON(t, filepath.Join(dir, "manifest.json"))
	hf, _ := m["host_facts"].(map[string]any)
	master, _ := hf["master"].(map[string]any)
	if master == nil {
		t.Fatalf("manifest has no host facts for the master: %v", m["host_facts"])
	}
	cpuinfo, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Fatal(err)
	}
	// The lab's hosts are namespaces of this kernel: their CPU is this one.
	model := ""
	for _, line := range strings.Split(string(cpuinfo), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			model = strings.Join(strings.Fields(v), " ")
			break
		}
	}
	if model != "" && master["cpu_model"] != model {
		t.Errorf("master cpu_model = %v, want this machine's %q", master["cpu_model"], model)
	}
	for _, k := range []string{"cpus", "memory_mb", "disk_size_mb"} {
		if v, _ := master[k].(float64); v <= 0 {
			t.Errorf("master %s = %v, want a positive figure", k, master[k])
		}
	}
	if master["disk_fs"] == nil || master["disk_device"] == nil {
		t.Errorf("master datadir filesystem not recorded: %v", master)
	}
	l.mustOK(t, "report", dir)
	md := string(mustRead(t, filepath.Join(dir, "report.md")))
	head, _, _ := strings.Cut(md, "\n## ")
	want := fmt.Sprintf("x %v cores, ", master["cpus"])
	if model != "" {
		want = model + " " + want
	}
	t.Logf("report.md's head:\n%s", head)
	if !strings.Contains(head, want) || !strings.Contains(head, "GiB RAM; datadir ") || !strings.Contains(head, "\nServers: ") {
		t.Errorf("report.md's head lacks the hosts' hardware (%q):\n%s", want, head)
	}
}
