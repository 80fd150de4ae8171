package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/internal/fakemaria"
)

// runUp is one `orch up` on the lab's clusters with opts' flags.
func runUp(t *testing.T, l *simLab, o ClusterOptions, opts UpOptions) error {
	t.Helper()
	opts.ClusterOptions = o
	opts.VerifyTimeout = 5 * time.Second
	u, err := NewUp(opts)
	if err != nil {
		t.Fatal(err)
	}
	return u.Run(context.Background())
}

// logLine is what a test reads of a --log line.
type logLine struct {
	Host    string `json:"host"`
	Kind    string `json:"kind"`
	Command string `json:"command"`
}

// readLog reads a --log file: one JSON object per line, none holding the
// lab's passwords.
func readLog(t *testing.T, path string) []logLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, pw := range []string{"sim-mysql-pw", "sim-bench-pw"} {
		if bytes.Contains(b, []byte(pw)) {
			t.Errorf("the command log holds the password %s", pw)
		}
	}
	var out []logLine
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var l logLine
		if err := json.Unmarshal([]byte(line), &l); err != nil || l.Host == "" || l.Kind == "" {
			t.Fatalf("line %d is not a command: %v\n%s", i+1, err, line)
		}
		out = append(out, l)
	}
	return out
}

// TestUpPrintsTheReplicationTable: up on a stock cluster writes orch's file
// on every server and wires replication, then prints the replication table
// (no step timings unless verbose) and says where --log has the commands:
// every one sent to the hosts, the command lock's included, under its
// host's own name. A second up finds the lock free: the first let it go.
func TestUpPrintsTheReplicationTable(t *testing.T) {
	l := newSimLab(t, simInventory(false, "lab1"))
	var out, errOut bytes.Buffer
	o := l.options(&out, &errOut)
	o.LogPath = filepath.Join(t.TempDir(), "up.jsonl")
	if err := runUp(t, l, o, UpOptions{Engine: "innodb"}); err != nil {
		t.Fatalf("up: %v\n%s", err, &errOut)
	}
	text := out.String()
	if !strings.HasPrefix(text, "\n") {
		t.Errorf("the table does not follow a blank line:\n%s", text)
	}
	for _, r := range [][]string{
		{"HOST", "ROLE", "SERVER", "ENGINE", "RO", "IO", "SQL", "SEMI-SYNC", "CLIENTS", "YES_TX", "NO_TX", "LAG_S", "LAG_TX", "STATE"},
		{"db2 192.0.2.12", "slave", "MariaDB 10.11.19", "innodb", "no", "Yes", "Yes", "ON", "-", "-", "-", "0", "0", "ok"},
		{"db3 192.0.2.13", "slave", "MariaDB 10.11.19", "innodb", "no", "Yes", "Yes", "ON", "-", "-", "-", "0", "0", "ok"},
	} {
		if !row("", r...).MatchString(text) {
			t.Errorf("no row %q:\n%s", r, text)
		}
	}
	if !rowStart("", "db1 192.0.2.11", "master", "MariaDB 10.11.19", "innodb", "no", "-", "-", "ON", "2").MatchString(text) {
		t.Errorf("no master row with semi-sync on and 2 clients:\n%s", text)
	}
	if strings.Contains(text, "STEP") {
		t.Errorf("timings printed without --verbose:\n%s", text)
	}
	for _, name := range []string{"db1", "db2", "db3"} {
		h := l.host(t, "lab1", name)
		if cnf, ok := h.File(fakemaria.ConfDir + "/99-orch.cnf"); !ok || !strings.Contains(cnf, "innodb_buffer_pool_size = 256M") {
			t.Errorf("%s: orch's file %q", name, cnf)
		}
		if name != "db1" && !h.Server().Replicating() {
			t.Errorf("%s does not replicate", name)
		}
	}
	if !hasLine(errOut.String(), "up: commands sent to the hosts are in "+o.LogPath) {
		t.Errorf("stderr does not name the log:\n%s", &errOut)
	}
	hosts := map[string]bool{}
	locked := false
	for _, line := range readLog(t, o.LogPath) {
		hosts[line.Host] = true
		locked = locked || line.Host == "db1" && strings.Contains(line.Command, "flock")
	}
	if !hosts["db1"] || !hosts["db2"] || !hosts["db3"] || len(hosts) != 3 {
		t.Errorf("hosts in the log: %v, want db1, db2 and db3", hosts)
	}
	if !locked {
		t.Error("the command lock taken on the master is not in the log")
	}
	if err := runUp(t, l, l.options(&bytes.Buffer{}, &bytes.Buffer{}), UpOptions{}); err != nil {
		t.Errorf("a second up: %v", err)
	}
}

// TestUpVerboseAndJSON: --verbose adds each step's time, per host, and the
// total; --json prints up's report as one JSON document and no table.
func TestUpVerboseAndJSON(t *testing.T) {
	l := newSimLab(t, simInventory(false, "lab1"))
	var out, errOut bytes.Buffer
	o := l.options(&out, &errOut)
	o.Verbose = true
	if err := runUp(t, l, o, UpOptions{}); err != nil {
		t.Fatalf("up: %v\n%s", err, &errOut)
	}
	text := out.String()
	if !row("", "HOST", "STEP", "TIME").MatchString(text) || !strings.Contains(text, "\ntotal  ") {
		t.Errorf("no timings with their total:\n%s", text)
	}
	for _, h := range []string{"db1", "db2", "db3", "cluster"} {
		if !strings.Contains(text, "\n"+h+"  ") {
			t.Errorf("no timing of %s:\n%s", h, text)
		}
	}

	out.Reset()
	o.Verbose = false
	if err := runUp(t, l, o, UpOptions{JSON: true}); err != nil {
		t.Fatalf("up --json: %v\n%s", err, &errOut)
	}
	var rep map[string]json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, &out)
	}
	for _, k := range []string{"hosts", "replication", "status", "timings"} {
		if len(rep[k]) == 0 || string(rep[k]) == "null" {
			t.Errorf("the report lacks %s:\n%s", k, &out)
		}
	}
	if strings.Contains(out.String(), "SEMI-SYNC") {
		t.Error("--json printed the table too")
	}
}

// TestUpOnTwoClusters: each cluster's lines are under its name, the
// --log file has every cluster's hosts under cluster/host, and a cluster
// that fails is named in the error while the other is brought up.
func TestUpOnTwoClusters(t *testing.T) {
	l := newSimLab(t, simInventory(false, "east", "west"))
	l.down["192.0.2.32"] = true // west's db2
	var out, errOut bytes.Buffer
	o := l.options(&out, &errOut)
	o.LogPath = filepath.Join(t.TempDir(), "up.jsonl")
	err := runUp(t, l, o, UpOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "cluster west: ") || strings.Contains(err.Error(), "cluster east") || orchestrator.IsBadInput(err) {
		t.Fatalf("up with west's db2 down: %v", err)
	}
	if !strings.Contains(err.Error(), "db2 192.0.2.32: dial tcp 192.0.2.32:22: connect: connection timed out") {
		t.Errorf("the error does not name the host down: %v", err)
	}
	text := out.String()
	if !row("east: ", "db2 192.0.2.22", "slave", "MariaDB 10.11.19", "innodb", "no", "Yes", "Yes", "ON", "-", "-", "-", "0", "0", "ok").MatchString(text) {
		t.Errorf("no east replication table:\n%s", text)
	}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if !strings.HasPrefix(line, "east: ") {
			t.Errorf("a line not under east: %q", line)
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n") {
		if !strings.HasPrefix(line, "east: ") && !strings.HasPrefix(line, "west: ") && line != "up: commands sent to the hosts are in "+o.LogPath {
			t.Errorf("a stderr line under no cluster: %q", line)
		}
	}
	if !l.host(t, "east", "db3").Server().Replicating() {
		t.Error("east was not brought up")
	}
	hosts := map[string]bool{}
	for _, line := range readLog(t, o.LogPath) {
		hosts[line.Host] = true
	}
	for h := range hosts {
		if !strings.HasPrefix(h, "east/") && !strings.HasPrefix(h, "west/") {
			t.Errorf("host %q in the log names no cluster", h)
		}
	}
	if !hosts["east/db1"] || !hosts["east/db3"] || !hosts["west/db1"] || hosts["west/db2"] {
		t.Errorf("hosts in the log: %v", hosts)
	}
}

// TestUpWhileAnotherCommandHoldsTheCluster: an up finds the cluster's
// command lock taken (here by an orch run) and fails naming it, having
// stopped, uploaded or restarted nothing; the --log file still says
// where the commands are.
func TestUpWhileAnotherCommandHoldsTheCluster(t *testing.T) {
	l := newSimLab(t, simInventory(false, "lab1"))
	inv := l.cluster(t, "lab1")
	other := l.connect(context.Background(), inv, inv.DBHosts())
	defer other.Close()
	if err := other.Lock(context.Background(), "orch run"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent []string
	l.onRun = func(host, script string) {
		mu.Lock()
		sent = append(sent, host+": "+script)
		mu.Unlock()
	}
	var out, errOut bytes.Buffer
	o := l.options(&out, &errOut)
	o.LogPath = filepath.Join(t.TempDir(), "up.jsonl")
	err := runUp(t, l, o, UpOptions{})
	if !errors.Is(err, cluster.ErrLocked) || !strings.Contains(err.Error(), "orch run") || orchestrator.IsBadInput(err) {
		t.Fatalf("up beside a held lock: %v", err)
	}
	for _, s := range sent {
		if strings.Contains(s, "/opt/db/") || strings.Contains(s, "my_print_defaults") {
			t.Errorf("the refused up sent %q", s)
		}
	}
	for _, name := range []string{"db1", "db2", "db3"} {
		if _, ok := l.host(t, "lab1", name).File(fakemaria.ConfDir + "/99-orch.cnf"); ok {
			t.Errorf("%s got orch's file", name)
		}
	}
	if out.Len() > 0 || !hasLine(errOut.String(), "up: commands sent to the hosts are in "+o.LogPath) {
		t.Errorf("printed:\n%s%s", &out, &errOut)
	}
}

// TestUpInterrupted: while up restarts a server, Unfinished names that host
// (what a second Ctrl-C would leave); an up stopped there by Ctrl-C is
// ErrInterrupted, and nothing is left unfinished once Run returned.
func TestUpInterrupted(t *testing.T) {
	l := newSimLab(t, simInventory(false, "lab1"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	u, err := NewUp(UpOptions{ClusterOptions: l.options(&bytes.Buffer{}, &bytes.Buffer{}), VerifyTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	var during []string
	l.onRun = func(host, script string) {
		if host == "db2" && script == "/opt/db/stop" {
			once.Do(func() {
				during = u.Unfinished()
				cancel()
			})
		}
	}
	if left := u.Unfinished(); len(left) != 0 {
		t.Errorf("unfinished before up: %v", left)
	}
	err = u.Run(ctx)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("up stopped during db2's restart: %v (%T), want ErrInterrupted", err, err)
	}
	if !slices.Contains(during, "db2: restart") {
		t.Errorf("unfinished during db2's restart: %q, want \"db2: restart\" among them", during)
	}
	if left := u.Unfinished(); len(left) != 0 {
		t.Errorf("unfinished after up returned: %v", left)
	}
}

// TestUpWarnsOfSettingsItReplaces: a setting of the server's own option
// files that the profile replaces is a warning on stderr, naming its host,
// and up goes on; with --json it is in the report instead.
func TestUpWarnsOfSettingsItReplaces(t *testing.T) {
	warning := "db2 192.0.2.12: innodb_flush_log_at_trx_commit = 1 (the server's own option files) is replaced by the profile's 2; " +
		"name it in profile.vars or --knob to choose"
	for _, asJSON := range []bool{false, true} {
		l := newSimLab(t, simInventory(false, "lab1"))
		// What a DBA left on db2, read before orch's file.
		dba := "[mysqld]\ninnodb_flush_log_at_trx_commit = 1\n"
		if err := l.host(t, "lab1", "db2").Upload(context.Background(), strings.NewReader(dba), fakemaria.ConfDir+"/50-server.cnf", 0o644, true); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		if err := runUp(t, l, l.options(&out, &errOut), UpOptions{JSON: asJSON}); err != nil {
			t.Fatalf("up (json %v): %v\n%s", asJSON, err, &errOut)
		}
		if !asJSON {
			if !hasLine(errOut.String(), "up: WARNING "+warning) || strings.Count(errOut.String(), "WARNING") != 1 {
				t.Errorf("up's stderr, want the one warning %q:\n%s", warning, &errOut)
			}
			if !rowStart("", "db2 192.0.2.12", "slave").MatchString(out.String()) {
				t.Errorf("no replication table after the warning:\n%s", &out)
			}
			continue
		}
		var rep struct{ Warnings []string }
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Warnings) != 1 || rep.Warnings[0] != warning ||
			strings.Contains(errOut.String(), "WARNING") {
			t.Errorf("up --json: %v, warnings %q\n%s", err, rep.Warnings, &errOut)
		}
	}
}
