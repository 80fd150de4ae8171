package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runFigures prints what the report reads from a run directory: every
// figure, health value, replica, span and piece of evidence, so that two
// readings of the same run can be compared whole.
func runFigures(r *Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "id=%s workload=%s tool=%s engine=%s state=%q error=%q\n", r.ID, r.Workload, r.Tool, r.Engine, r.State, r.Error)
	fmt.Fprintf(&b, "knobs=%v\n", r.Knobs)
	if r.Bench != nil {
		fmt.Fprintf(&b, "bench=%+v\n", *r.Bench)
	}
	fmt.Fprintf(&b, "health=%+v\n", r.Health)
	fmt.Fprintf(&b, "spans=%+v\nlag=%v\n", r.Spans, r.Lag)
	for _, rp := range r.Replicas {
		fmt.Fprintf(&b, "replica %s catch_up_s=%v behind_tx=%v caught_up=%v\n", rp.Host, rp.CatchUpS, rp.BehindTx, rp.CaughtUp)
	}
	fmt.Fprintf(&b, "load=%v..%v instrument=%+v instruments=%q\n", r.LoadOffsetS, r.LoadEndS, r.Instrument, r.Instruments)
	fmt.Fprintf(&b, "params=%+v\ntopology=%q data=%q\n", r.Params, r.Topology, r.Data)
	if ev := r.Evidence; ev != nil {
		fmt.Fprintf(&b, "evidence: orch=%s command=%q start=%s cluster=%q\n", ev.OrchVersion, ev.Command, ev.Start.UTC().Format("2006-01-02T15:04:05.999999999Z"), ev.Cluster)
		fmt.Fprintf(&b, "servers=%v clients=%v\nfacts=%+v\nhosts=%v roles=%v\n", ev.Servers, ev.Clients, ev.Facts, ev.Hosts, ev.Roles)
		fmt.Fprintf(&b, "config=%v\nvariables=%v\n", ev.Config, ev.Variables)
	}
	return b.String()
}

// TestRunDirV0 reads run directories as orch wrote them before
// schema_version (version 0): 01-innodb-r1 is a copy of
// testdata/demo/cells/01-innodb-r1 (the newest shape, with catch-up, sizes
// of the binary and relay logs and phases) and 20261129T221023Z-... of
// testdata/runs (an older orch: no binlog_bytes or engine_disk_bytes).
// They still read, with the figures the report read from them before the
// run directory's types were shared (<name>.figures.txt, written then).
func TestRunDirV0(t *testing.T) {
	for _, name := range []string{"01-innodb-r1", "20261129T221023Z-pure-random-writes-innodb"} {
		t.Run(name, func(t *testing.T) {
			r, err := ReadRunDir(filepath.Join("..", "testdata", "rundir-v0", name))
			if err != nil {
				t.Fatal(err)
			}
			got := runFigures(r)
			if strings.Contains(got, "0xc") {
				t.Fatalf("figures print a pointer:\n%s", got)
			}
			wantPath := filepath.Join("..", "testdata", "rundir-v0", name+".figures.txt")
			want, err := os.ReadFile(wantPath)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("figures differ from %s:\n%s", wantPath, lineDiff(string(want), got))
			}
			// A few figures spelled out, so that the fixture cannot drift unseen.
			if r.Bench == nil || r.Tool != "sysbench" || r.Engine != "innodb" || r.State != "ok" || r.Health.Consistency != "ok" {
				t.Fatalf("run %+v", r)
			}
		})
	}
}

// lineDiff lists the lines of want and got that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "line %d\n- %s\n+ %s\n", i+1, a, c)
		}
	}
	return b.String()
}
