package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/internal/fakemaria"
	"github.com/orch-bench/orch/orchestrator/rundir"
)

// What down leaves behind, as it tells the user.
const downLeft = "down: left the schemas sbtest, mysqlslap, orch where they exist, the binary logs and GTID history; " +
	"orch down --purge removes them (accounts the inventory names are kept)"

// TestDownLeavesWhatPurgeRemoves: down after up takes orch's file and
// replication away, every server running, and says what it left (and
// where --log has the commands, sent to the database hosts only); down
// --purge says what it dropped instead, and with --verbose prints each
// step's time.
func TestDownLeavesWhatPurgeRemoves(t *testing.T) {
	l := newSimLab(t, simInventory(false, "lab1"))
	if err := runUp(t, l, l.options(&bytes.Buffer{}, &bytes.Buffer{}), UpOptions{}); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	o := l.options(&out, &errOut)
	o.LogPath = filepath.Join(t.TempDir(), "down.jsonl")
	if err := Down(context.Background(), o, false); err != nil {
		t.Fatalf("down: %v\n%s", err, &errOut)
	}
	if !hasLine(errOut.String(), downLeft) || !hasLine(errOut.String(), "down: commands sent to the hosts are in "+o.LogPath) {
		t.Errorf("down's stderr:\n%s", &errOut)
	}
	if out.Len() > 0 {
		t.Errorf("down printed without --verbose:\n%s", &out)
	}
	for _, name := range []string{"db1", "db2", "db3"} {
		h := l.host(t, "lab1", name)
		if _, ok := h.File(fakemaria.ConfDir + "/99-orch.cnf"); ok || h.Server().Replicating() || !h.Running() {
			t.Errorf("%s after down: orch's file %v, replicating %v, running %v", name, ok, h.Server().Replicating(), h.Running())
		}
	}
	hosts := map[string]bool{}
	for _, line := range readLog(t, o.LogPath) {
		hosts[line.Host] = true
	}
	if len(hosts) != 3 || !hosts["db1"] || !hosts["db2"] || !hosts["db3"] {
		t.Errorf("hosts in down's log: %v, want the database hosts", hosts)
	}

	if err := runUp(t, l, l.options(&bytes.Buffer{}, &bytes.Buffer{}), UpOptions{}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	o.LogPath, o.Verbose = "", true
	if err := Down(context.Background(), o, true); err != nil {
		t.Fatalf("down --purge: %v\n%s", err, &errOut)
	}
	for _, name := range []string{"db1", "db2", "db3"} {
		if !hasLine(errOut.String(), "down: "+name+": dropped schema `orch`") {
			t.Errorf("purge does not say it dropped %s's schema orch:\n%s", name, &errOut)
		}
	}
	if strings.Contains(errOut.String(), "down: left") || strings.Contains(errOut.String(), "commands sent") {
		t.Errorf("purge's stderr:\n%s", &errOut)
	}
	if !row("", "HOST", "STEP", "TIME").MatchString(out.String()) || !strings.Contains(out.String(), "\ndb1  ") || strings.Contains(out.String(), "total") {
		t.Errorf("down --verbose: timings, per host, without a total:\n%s", &out)
	}
}

// TestDownOnTwoClusters: a cluster whose slave cannot be reached fails,
// named, without saying what it left; the other is taken down and says so
// under its name.
func TestDownOnTwoClusters(t *testing.T) {
	l := newSimLab(t, simInventory(false, "east", "west"))
	if err := runUp(t, l, l.options(&bytes.Buffer{}, &bytes.Buffer{}), UpOptions{}); err != nil {
		t.Fatal(err)
	}
	l.down["192.0.2.33"] = true // west's db3
	var out, errOut bytes.Buffer
	err := Down(context.Background(), l.options(&out, &errOut), false)
	if err == nil || !strings.HasPrefix(err.Error(), "cluster west: ") || strings.Contains(err.Error(), "cluster east") ||
		!strings.Contains(err.Error(), "db3 192.0.2.33") || orchestrator.IsBadInput(err) {
		t.Fatalf("down with west's db3 unreachable: %v", err)
	}
	if !hasLine(errOut.String(), "east: "+downLeft) || strings.Contains(errOut.String(), "west: down: left") {
		t.Errorf("down's stderr:\n%s", &errOut)
	}
	if _, ok := l.host(t, "east", "db2").File(fakemaria.ConfDir + "/99-orch.cnf"); ok {
		t.Error("east's db2 still has orch's file")
	}
}

// statusJSON is what a test reads of status --json.
type statusJSON struct {
	Master  struct{ Name string }               `json:"master"`
	Slaves  []struct{ Name string }             `json:"slaves"`
	Applied map[string]struct{ Profile string } `json:"applied"`
}

// TestStatus: after up, status prints the replication table and the
// profile orch laid down on each host, as a table or JSON, and is happy;
// after down it prints what it finds and fails naming each problem.
func TestStatus(t *testing.T) {
	l := newSimLab(t, simInventory(false, "lab1"))
	if err := runUp(t, l, l.options(&bytes.Buffer{}, &bytes.Buffer{}), UpOptions{}); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	o := l.options(&out, &errOut)
	if err := Status(context.Background(), o, false); err != nil {
		t.Fatalf("status after up: %v", err)
	}
	text := out.String()
	if !row("", "db3 192.0.2.13", "slave", "MariaDB 10.11.19", "innodb", "no", "Yes", "Yes", "ON", "-", "-", "-", "0", "0", "ok").MatchString(text) {
		t.Errorf("no replication table:\n%s", text)
	}
	for _, name := range []string{"db1", "db2", "db3"} {
		if !hasLine(text, name+": profile innodb.cnf (embedded); profile.vars innodb_buffer_pool_size=256M") {
			t.Errorf("no profile line for %s:\n%s", name, text)
		}
	}
	out.Reset()
	if err := Status(context.Background(), o, true); err != nil {
		t.Fatalf("status --json after up: %v", err)
	}
	var st statusJSON
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, &out)
	}
	if st.Master.Name != "db1" || len(st.Slaves) != 2 || st.Applied["db2"].Profile != "innodb.cnf (embedded)" {
		t.Errorf("status --json: %+v", st)
	}

	if err := Down(context.Background(), l.options(&bytes.Buffer{}, &bytes.Buffer{}), false); err != nil {
		t.Fatal(err)
	}
	for _, asJSON := range []bool{false, true} {
		out.Reset()
		err := Status(context.Background(), o, asJSON)
		if err == nil || !strings.HasPrefix(err.Error(), "status: ") || orchestrator.IsBadInput(err) {
			t.Fatalf("status after down (json %v): %v", asJSON, err)
		}
		for _, p := range []string{"db2 192.0.2.12: not replicating (SHOW SLAVE STATUS is empty)", "db3 192.0.2.13: not replicating (SHOW SLAVE STATUS is empty)"} {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("status after down does not say %q: %v", p, err)
			}
		}
		if !asJSON && !hasLine(out.String(), "db1: not configured by orch") {
			t.Errorf("status after down:\n%s", &out)
		}
		if asJSON && (json.Unmarshal(out.Bytes(), &st) != nil || st.Applied["db1"].Profile != "") {
			t.Errorf("status --json after down:\n%s", &out)
		}
	}
	if errOut.Len() > 0 {
		t.Errorf("status wrote to stderr:\n%s", &errOut)
	}
}

// TestStatusOnTwoClusters: every line under its cluster's name; a cluster
// whose master cannot be reached fails, named, and prints nothing.
func TestStatusOnTwoClusters(t *testing.T) {
	l := newSimLab(t, simInventory(false, "east", "west"))
	if err := runUp(t, l, l.options(&bytes.Buffer{}, &bytes.Buffer{}), UpOptions{}); err != nil {
		t.Fatal(err)
	}
	l.down["192.0.2.31"] = true // west's master
	var out bytes.Buffer
	err := Status(context.Background(), l.options(&out, &bytes.Buffer{}), false)
	if err == nil || !strings.HasPrefix(err.Error(), "cluster west: ") || !strings.Contains(err.Error(), "db1 192.0.2.31") || strings.Contains(err.Error(), "cluster east") {
		t.Fatalf("status with west's master unreachable: %v", err)
	}
	if !hasLine(out.String(), "east: db2: profile innodb.cnf (embedded); profile.vars innodb_buffer_pool_size=256M") ||
		!rowStart("east: ", "db1 192.0.2.21", "master", "MariaDB 10.11.19", "innodb", "no", "-", "-", "ON", "2").MatchString(out.String()) {
		t.Errorf("east's status:\n%s", &out)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if !strings.HasPrefix(line, "east: ") {
			t.Errorf("a line not under east: %q", line)
		}
	}
}

// TestCommandLogMasksPasswordsMadeMeanwhile: what a cluster sends goes to
// the --log file until the returned function is called; a password orch
// generates after the log was set up (up makes the replication one as it
// goes) is masked too; with several clusters the host is cluster/host.
func TestCommandLogMasksPasswordsMadeMeanwhile(t *testing.T) {
	l := newSimLab(t, simInventory(true, "east", "west"))
	inv := l.cluster(t, "east")
	for _, several := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "up.jsonl")
		log, err := rundir.OpenCommandLog(path)
		if err != nil {
			t.Fatal(err)
		}
		o := l.options(&bytes.Buffer{}, &bytes.Buffer{})
		if !several {
			o.Clusters = o.Clusters[:1]
		}
		c := l.connect(context.Background(), inv, inv.DBHosts())
		stop := o.logCommands(c, log, inv)
		pwFile := inv.Replication.Password.File
		if err := os.MkdirAll(filepath.Dir(pwFile), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pwFile, []byte("made-by-up-7f3a9c\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		ex, err := c.Executor(inv.Master())
		if err != nil {
			t.Fatal(err)
		}
		ex.Run(context.Background(), executor.Command{Script: "echo made-by-up-7f3a9c"})
		stop()
		ex.Run(context.Background(), executor.Command{Script: "echo after the log"})
		c.Close()
		if err := log.Close(); err != nil {
			t.Fatal(err)
		}
		os.Remove(pwFile)
		b, _ := os.ReadFile(path)
		lines := readLog(t, path)
		want := map[bool]string{false: "db1", true: "east/db1"}[several]
		if len(lines) != 1 || lines[0].Host != want || lines[0].Command != "echo ***" || bytes.Contains(b, []byte("made-by-up")) {
			t.Errorf("several clusters %v: log, want one line of %s:\n%s", several, want, b)
		}
	}
}
