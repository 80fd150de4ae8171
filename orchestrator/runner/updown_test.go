package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/up"
	"github.com/orch-bench/orch/topology"
)

// loadYAML loads an inventory file written by the test: every cluster of it.
func loadYAML(t *testing.T, yaml string) []*topology.Inventory {
	t.Helper()
	path := filepath.Join(t.TempDir(), "inventory.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := topology.LoadSet([]string{path}, topology.LoadOptions{HomeDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return set.Clusters
}

// A cluster of a master and one slave, and an existing server: inventories
// that load, and that up and down refuse.
const (
	oneSlaveYAML = `name: small
hosts:
  - {name: db1, role: master, address: 192.0.2.11}
  - {name: db2, role: slave, address: 192.0.2.12}
`
	existingYAML = `name: one
defaults:
  mysql: {user: bench, password: {env: ORCH_SIM_MYSQL_PW}}
hosts:
  - {name: db1, role: server, address: 192.0.2.11}
`
	eastWestYAML = `name: fleet
clusters:
  - name: east
    hosts:
      - {name: e1, role: master, address: 192.0.2.21}
      - {name: e2, role: slave, address: 192.0.2.22}
      - {name: e3, role: slave, address: 192.0.2.23}
  - name: west
    hosts:
      - {name: w1, role: master, address: 192.0.2.31}
      - {name: w2, role: slave, address: 192.0.2.32}
`
)

// NewUp refuses bad input before any host is contacted, as bad input (exit
// status 2), naming the flag, the inventory or the cluster at fault.
func TestNewUpRefusesBadInput(t *testing.T) {
	l := newSimLab(t, simInventory(false, "lab1"))
	good := l.set.Clusters
	withFlavor := loadYAML(t, strings.Replace(simInventory(false, "lab1"), "  mysql:\n", "  mysql:\n    flavor: mariadb\n", 1))
	missingDir := filepath.Join(t.TempDir(), "no-such-profiles")
	for _, c := range []struct {
		name     string
		clusters []*topology.Inventory
		o        UpOptions
		want     string
	}{
		{"one slave", loadYAML(t, oneSlaveYAML), UpOptions{}, "a cluster needs exactly 2 slaves; found 1 (db2)"},
		{"existing server", loadYAML(t, existingYAML), UpOptions{}, "cluster setup is not allowed on an existing server"},
		{"one bad cluster of two", loadYAML(t, eastWestYAML), UpOptions{}, "cluster west: "},
		{"one bad cluster of two, its slaves", loadYAML(t, eastWestYAML), UpOptions{}, "a cluster needs exactly 2 slaves; found 1 (w2)"},
		{"knob without a value", good, UpOptions{Knobs: []string{"sync_binlog="}}, `--knob "sync_binlog=": empty value`},
		{"knob without a name", good, UpOptions{Knobs: []string{"=1"}}, `--knob "=1": want NAME=VALUE`},
		{"knob twice", good, UpOptions{Knobs: []string{"sync_binlog=1", "sync-binlog=0"}}, "--knob sync_binlog is given twice"},
		{"unknown engine", good, UpOptions{Engine: "no_such_engine"}, "--engine no_such_engine: unknown engine profile"},
		{"~user profile dir", good, UpOptions{ProfileDir: "~someone/profiles"}, "--profile-dir: ~user paths are not supported"},
		{"missing profile dir", good, UpOptions{ProfileDir: missingDir}, "--profile-dir: stat " + missingDir},
		{"flavour without dry run", good, UpOptions{FlavorHint: "mariadb:10.11"}, "--flavor is for --dry-run"},
		{"unknown flavour", good, UpOptions{DryRun: true, FlavorHint: "oracle:23"}, `--flavor oracle:23: unknown server flavour "oracle"`},
		{"dry run without a flavour", good, UpOptions{DryRun: true}, "db1 192.0.2.11: not connected and no flavour known: set mysql.flavor in the inventory or pass --flavor"},
		{"engine the named flavour lacks", withFlavor, UpOptions{Engine: "tokudb"}, "--engine tokudb: db1 192.0.2.11: tokudb is not available on MariaDB 10.11"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.o.ClusterOptions = ClusterOptions{Clusters: c.clusters, Connect: l.connect, Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}
			u, err := NewUp(c.o)
			if !orchestrator.IsBadInput(err) || !strings.Contains(err.Error(), c.want) || u != nil {
				t.Errorf("NewUp: %v (bad input %v), want bad input naming %q", err, orchestrator.IsBadInput(err), c.want)
			}
			out, errOut := c.o.Out.(*bytes.Buffer), c.o.Err.(*bytes.Buffer)
			if out.Len()+errOut.Len() > 0 {
				t.Errorf("printed before refusing:\n%s%s", out, errOut)
			}
		})
	}
	if n := l.dialled(); n != 0 {
		t.Errorf("%d hosts dialled for bad input", n)
	}
	// The same options on a good request are accepted.
	for _, o := range []UpOptions{{Knobs: []string{"sync_binlog=1"}, Engine: "innodb"}, {DryRun: true, FlavorHint: "mariadb:10.11.19"}} {
		o.ClusterOptions = l.options(&bytes.Buffer{}, &bytes.Buffer{})
		if _, err := NewUp(o); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// Down refuses what up refuses, before any host is contacted.
func TestDownRefusesWhatIsNotACluster(t *testing.T) {
	l := newSimLab(t, simInventory(false, "lab1"))
	for _, yaml := range []string{oneSlaveYAML, existingYAML} {
		var out, errOut bytes.Buffer
		o := ClusterOptions{Clusters: loadYAML(t, yaml), Connect: l.connect, Out: &out, Err: &errOut}
		for _, purge := range []bool{false, true} {
			if err := Down(context.Background(), o, purge); !orchestrator.IsBadInput(err) {
				t.Errorf("down (purge %v) of %s: %v, want bad input", purge, o.Clusters[0].Name, err)
			}
		}
		if out.Len()+errOut.Len() > 0 {
			t.Errorf("printed before refusing:\n%s%s", &out, &errOut)
		}
	}
	if n := l.dialled(); n != 0 {
		t.Errorf("%d hosts dialled for bad input", n)
	}
}

// A --log file that cannot be written is bad input, found before any host
// is contacted, for up as for down; nothing says commands are in it.
func TestLogFileThatCannotBeWritten(t *testing.T) {
	l := newSimLab(t, simInventory(false, "lab1"))
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(file, "up.jsonl") // under a file: no such directory
	var out, errOut bytes.Buffer
	o := l.options(&out, &errOut)
	o.LogPath = logPath
	u, err := NewUp(UpOptions{ClusterOptions: o, VerifyTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = u.Run(context.Background())
	if !orchestrator.IsBadInput(err) || !strings.HasPrefix(err.Error(), "--log "+logPath+": ") {
		t.Errorf("up: %v, want bad input about --log %s", err, logPath)
	}
	err = Down(context.Background(), o, false)
	if !orchestrator.IsBadInput(err) || !strings.HasPrefix(err.Error(), "--log "+logPath+": ") {
		t.Errorf("down: %v, want bad input about --log %s", err, logPath)
	}
	if n := l.dialled(); n != 0 {
		t.Errorf("%d hosts dialled with an unwritable --log", n)
	}
	if strings.Contains(errOut.String(), "commands sent") || out.Len() > 0 {
		t.Errorf("printed:\n%s%s", &out, &errOut)
	}
}

// up --dry-run prints each cluster's files and statements for the named
// flavour, each line under its cluster's name when there are several,
// contacts no host and shows no password; the inventory's mysql.flavor
// does without --flavor.
func TestUpDryRun(t *testing.T) {
	l := newSimLab(t, simInventory(false, "east", "west"))
	var out, errOut bytes.Buffer
	o := l.options(&out, &errOut)
	o.LogPath = filepath.Join(t.TempDir(), "never.jsonl")
	u, err := NewUp(UpOptions{ClusterOptions: o, DryRun: true, FlavorHint: "mariadb:10.11.19", Engine: "innodb"})
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Run(context.Background()); err != nil {
		t.Fatalf("dry run: %v\n%s", err, &errOut)
	}
	text := out.String()
	for _, want := range []string{"east: ### db1 192.0.2.21: ", "east: ### db3 192.0.2.23: ", "west: ### db1 192.0.2.31: ",
		"west: ### db2 192.0.2.32: ", "east: CHANGE MASTER TO MASTER_HOST = '192.0.2.21'", "west: CHANGE MASTER TO MASTER_HOST = '192.0.2.31'"} {
		if !strings.Contains(text, want) {
			t.Errorf("dry run lacks %q", want)
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if !strings.HasPrefix(line, "east: ") && !strings.HasPrefix(line, "west: ") {
			t.Errorf("line without its cluster: %q", line)
		}
	}
	if strings.Contains(text, "sim-mysql-pw") || strings.Contains(text, "sim-bench-pw") {
		t.Error("the dry run shows a password")
	}
	if n := l.dialled(); n != 0 {
		t.Errorf("the dry run dialled %d hosts", n)
	}
	if _, err := os.Stat(o.LogPath); !os.IsNotExist(err) || strings.Contains(errOut.String(), "commands sent") {
		t.Errorf("a dry run opened --log: %v\n%s", err, &errOut)
	}
	if left := u.Unfinished(); len(left) != 0 {
		t.Errorf("unfinished after a dry run: %v", left)
	}

	withFlavor := loadYAML(t, strings.Replace(simInventory(false, "lab1"), "  mysql:\n", "  mysql:\n    flavor: mariadb\n", 1))
	out.Reset()
	u, err = NewUp(UpOptions{ClusterOptions: ClusterOptions{Clusters: withFlavor, Connect: l.connect, Out: &out, Err: &errOut}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Run(context.Background()); err != nil || !strings.Contains(out.String(), "### db2 192.0.2.12: ") || strings.Contains(out.String(), "lab1: ") {
		t.Errorf("dry run on the inventory's flavour: %v\n%s", err, &out)
	}
}

// writeTimings (up and down --verbose): a row per step, the hosts in name
// order, each time to the millisecond, and the total only when given.
func TestWriteTimings(t *testing.T) {
	steps := []up.Timing{
		{Host: "db2", Step: "restart", Took: 1234567890 * time.Nanosecond},
		{Host: "cluster", Step: "verify", Took: 3 * time.Millisecond},
		{Host: "db1", Step: "connect MariaDB 10.11.19", Took: 2400 * time.Microsecond},
		{Host: "db2", Step: "connect MariaDB 10.11.19", Took: 1900 * time.Microsecond},
		{Host: "db1", Step: "restart", Took: 1100 * time.Millisecond},
	}
	var b bytes.Buffer
	writeTimings(&b, steps, 2*time.Second+300*time.Microsecond)
	// By host, the slowest step first within each.
	want := "HOST     STEP                      TIME\n" +
		"cluster  verify                    3ms\n" +
		"db1      restart                   1.1s\n" +
		"db1      connect MariaDB 10.11.19  2ms\n" +
		"db2      restart                   1.235s\n" +
		"db2      connect MariaDB 10.11.19  2ms\n" +
		"total                              2s\n"
	if b.String() != want {
		t.Errorf("timings:\n%s\nwant:\n%s", &b, want)
	}
	b.Reset()
	writeTimings(&b, steps[:1], 0)
	if b.String() != "HOST  STEP     TIME\ndb2   restart  1.235s\n" {
		t.Errorf("timings without a total:\n%s", &b)
	}
}
