package integration

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/topology"
)

// commandLine is the part of a commands.jsonl line the tests read, spelled
// here from the README rather than borrowed from orch's type.
type commandLine struct {
	Time       string   `json:"time"`
	Host       string   `json:"host"`
	Kind       string   `json:"kind"`
	Command    string   `json:"command"`
	Content    string   `json:"content"`
	DurationMS *float64 `json:"duration_ms"`
	Exit       *int     `json:"exit"`
	BytesOut   *int64   `json:"bytes_out"`
	BytesIn    *int64   `json:"bytes_in"`
}

// readCommandLog parses a command log; every line must be a JSON object
// with the fields the README lists.
func readCommandLog(t *testing.T, p string) []commandLine {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatalf("command log: %v", err)
	}
	defer f.Close()
	var out []commandLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l commandLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s line %d: %v", p, len(out)+1, err)
		}
		if l.Time == "" || l.Host == "" || l.Kind == "" || l.DurationMS == nil || l.BytesOut == nil || l.BytesIn == nil {
			t.Fatalf("%s line %d lacks a field: %s", p, len(out)+1, sc.Text())
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// assertCommandLogs checks a run directory's per-host command logs: the
// master's holds the statements orch sent its server, and some host's
// holds the script that ran the benchmark client (client: sysbench,
// mysqlslap), with the client's command line in it.
// Passwords are looked for by assertNoPasswords, which greps every file.
func assertCommandLogs(t *testing.T, dir, client string) {
	t.Helper()
	master := readCommandLog(t, filepath.Join(dir, "hosts", "master", "commands.jsonl"))
	var sql, shell int
	for _, l := range master {
		switch l.Kind {
		case "sql":
			sql++
		case "shell":
			if l.Exit != nil {
				shell++
			}
		}
	}
	if sql == 0 || shell == 0 {
		t.Errorf("master's command log has %d statements and %d commands with an exit status", sql, shell)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "hosts", "*", "commands.jsonl"))
	found := false
	for _, p := range logs {
		for _, l := range readCommandLog(t, p) {
			found = found || l.Kind == "upload" && strings.Contains(l.Content, client+" ")
		}
	}
	if !found {
		t.Errorf("no command log of %v holds a script running %s", logs, client)
	}
}

// generatedPasswords are the passwords orch generated for the lab's
// managed accounts, read from orch's state directory for the inventory
// (none when the inventory names every password, as the lab's does).
func (l *lab) generatedPasswords(t *testing.T) []string {
	t.Helper()
	inv, err := topology.Load(l.inventory, topology.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := account.StateDir(inv)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range []string{account.AdminPasswordFile, account.ReplPasswordFile, account.BenchPasswordFile} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil && strings.TrimSpace(string(b)) != "" {
			out = append(out, strings.TrimSpace(string(b)))
		}
	}
	return out
}

// TestUpDownCommandLog: up and down with --log FILE append every command
// and statement they send to FILE (the replication setup, with its
// password, among them), private, without any password in it.
func TestUpDownCommandLog(t *testing.T) {
	l := needLab(t)
	p := filepath.Join(t.TempDir(), "orch-commands.jsonl")
	l.mustOK(t, "down", "-i", l.inventory) // so that up points the slaves again
	r := l.mustOK(t, "up", "-i", l.inventory, "--log", p)
	if !strings.Contains(r.stderr, p) {
		t.Errorf("up does not say where its command log is:\n%s", r.stderr)
	}
	upLines := len(readCommandLog(t, p))
	l.mustOK(t, "down", "-i", l.inventory, "--log", p)
	lines := readCommandLog(t, p)
	if len(lines) <= upLines {
		t.Errorf("down added no line to the log (%d, then %d)", upLines, len(lines))
	}
	statements := map[string]int{}
	for _, x := range lines {
		if x.Kind == "sql" {
			statements[x.Host]++
		}
	}
	for _, h := range []string{"master", "slave1", "slave2"} {
		if statements[h] == 0 {
			t.Errorf("no statement sent to %s is in the log (%v)", h, statements)
		}
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, %v; want 0600", st.Mode(), err)
	}
	// The slaves were given the replication password in a statement: it
	// is in the log, masked as the README says.
	masked := false
	for _, x := range lines {
		masked = masked || x.Kind == "sql" && strings.HasPrefix(x.Host, "slave") && strings.Contains(x.Command, "'***'")
	}
	if !masked {
		t.Error("no statement to a slave with a masked password is in the log")
	}
	b := mustRead(t, p)
	for _, pw := range l.labPasswords(t) {
		if strings.Contains(string(b), pw) {
			t.Error("a lab password is in up's command log")
		}
	}
}
