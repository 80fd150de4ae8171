package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
	"github.com/orch-bench/orch/orchestrator/stacks"
)

// cost is a hand-made host figure set; unset figures are NaN.
func cost(host, role string, set func(c *analyse.Cost)) *analyse.Cost {
	n := math.NaN()
	c := &analyse.Cost{Host: host, Role: role, Tx: n, Seconds: n, TPS: n, CPUUs: n, CS: n, ReadKiB: n, WriteKiB: n, Fsync: n, BinlogBytes: n,
		SemisyncShare: n, NCPU: 2, ServerCPU: n, HostCPU: n, RunQueue: n, RunQueueP90: n, ServerRunnable: n, DiskBusy: n, ThreadsRunning: n,
		ClientCPU: n, BoxCPU: n, BoxRunQueue: n, BoxRunQueueP90: n, FsyncParts: map[string]float64{}}
	set(c)
	return c
}

func group(label string, ratio float64, hosts ...*analyse.Cost) *judge.GroupWhy {
	g := &judge.GroupWhy{Label: label, Ratio: ratio, Profiles: map[string]*stacks.Profile{}}
	for _, h := range hosts {
		if h.Role == "loadbox" {
			g.LoadBoxes = append(g.LoadBoxes, h)
			g.LoadBox = g.LoadBoxes[0]
			g.ClientBound, g.ClientWhy = judge.ClientsBound(g.LoadBoxes)
			continue
		}
		g.Hosts = append(g.Hosts, h)
		if h.Role == "slave" {
			g.Slaves = h
		}
	}
	return g
}

func TestAttributionCPUBound(t *testing.T) {
	base := group("innodb", 1, cost("master", "master", func(c *analyse.Cost) {
		c.TPS, c.CPUUs, c.ServerCPU, c.HostCPU, c.DiskBusy, c.Fsync = 6000, 325, 0.98, 0.99, 0.2, 1.0
	}))
	g := group("rocksdb", 0.79, cost("master", "master", func(c *analyse.Cost) {
		c.TPS, c.CPUUs, c.ServerCPU, c.HostCPU, c.DiskBusy, c.Fsync = 4740, 412, 0.97, 0.98, 0.1, 1.01
	}))
	got := judge.Attribution(base, g)
	for _, want := range []string{"rocksdb: 0.790x innodb.", "Master CPU saturated in both (98.0%, 99.0% of 2 cores)",
		"rocksdb used 1.27x CPU per transaction (412 vs 325 us), which alone predicts 0.789x."} {
		if !strings.Contains(got, want) {
			t.Errorf("sentence lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "only part") || strings.Contains(got, "fsync") {
		t.Errorf("fsyncs within the marks, prediction right: %s", got)
	}
	// The same CPU cost with twice the throughput loss: the cost explains
	// only part of it.
	g.Ratio, g.Master().TPS = 0.5, 3000
	if got := judge.Attribution(base, g); !strings.Contains(got, "predicts 0.789x, not the 0.500x measured; what else moved: master disk 10.0% vs 20.0% busy.") {
		t.Errorf("prediction off by far, not said: %s", got)
	}
}

func TestAttributionNamesFsyncs(t *testing.T) {
	base := group("flush=1", 1, cost("master", "master", func(c *analyse.Cost) {
		c.TPS, c.CPUUs, c.ServerCPU, c.HostCPU, c.DiskBusy, c.Fsync = 900, 300, 0.3, 0.4, 0.5, 1.2
		c.FsyncParts["InnoDB"] = 1.2
	}))
	g := group("flush=2", 2.5, cost("master", "master", func(c *analyse.Cost) {
		c.TPS, c.CPUUs, c.ServerCPU, c.HostCPU, c.DiskBusy, c.Fsync = 2250, 290, 0.5, 0.6, 0.2, 0.02
		c.FsyncParts["InnoDB"] = 0.02
	}))
	got := judge.Attribution(base, g)
	for _, want := range []string{"Master not saturated (CPU 60.0% vs 40.0% of 2 cores, disk 20.0% vs 50.0% busy)",
		"the largest per-transaction difference: 0.0167x fsyncs per transaction (0.0200 vs 1.20; InnoDB 0.0200)"} {
		if !strings.Contains(got, want) {
			t.Errorf("sentence lacks %q:\n%s", want, got)
		}
	}
}

func TestAttributionSlavesAndStacks(t *testing.T) {
	mk := func(label string, ratio, slaveTPS, slaveFsync float64, ordered int) *judge.GroupWhy {
		g := group(label, ratio,
			cost("master", "master", func(c *analyse.Cost) { c.TPS, c.HostCPU, c.DiskBusy = 1000*ratio, 0.5, 0.1 }),
			cost("slave1", "slave", func(c *analyse.Cost) { c.TPS, c.Fsync, c.DiskBusy = slaveTPS, slaveFsync, 0.95 }))
		g.ApplyTxPS = slaveTPS // the Replicas line's applied rate
		r := stacks.Raw{Snapshots: 1}
		for i := 0; i < 10; i++ {
			fr := []stacks.Frame{{Func: "__futex_abstimed_wait_common64", Lib: true}, {Func: "do_command"}}
			if i < ordered {
				fr = []stacks.Frame{{Func: "__futex_abstimed_wait_common64", Lib: true}, {Func: "MYSQL_BIN_LOG::ordered_commit"},
					{Func: "MYSQL_BIN_LOG::write_transaction_to_binlog"}, {Func: "do_command"}}
			}
			r.Stacks = append(r.Stacks, fr)
		}
		g.Profiles["master"] = stacks.NewProfile("master", "master", stacks.GDB, time.Time{}, time.Time{}, r)
		return g
	}
	base := mk("innodb", 1, 1000, 0.001, 1)
	g := mk("rocksdb", 1, 250, 2.0, 5)
	// The slave's applier waits on its fsyncs in rocksdb only.
	slaveProfile := func(fsyncing int) *stacks.Profile {
		r := stacks.Raw{Snapshots: 1}
		for i := 0; i < 4; i++ {
			fr := []stacks.Frame{{Func: "poll", Lib: true}, {Func: "handle_slave_sql"}}
			if i < fsyncing {
				fr = []stacks.Frame{{Func: "fdatasync", Lib: true}, {Func: "rocksdb::WritableFileWriter::Sync"}, {Func: "handle_slave_sql"}}
			}
			r.Stacks = append(r.Stacks, fr)
		}
		return stacks.NewProfile("slave1", "slave", stacks.GDB, time.Time{}, time.Time{}, r)
	}
	base.Profiles["slave"], g.Profiles["slave"] = slaveProfile(0), slaveProfile(3)
	got := judge.Attribution(base, g)
	for _, want := range []string{
		// 0.001 fsyncs is under the metric's floor (0.01): no "2,000x".
		"Slaves: the slowest applied 250 vs 1000 tx/s (Replicas), with fsyncs per applied transaction (2.00 vs 0.00100: the baseline's near 0, no ratio)",
		"they fell behind the master (250 of 1000 tx/s committed), disk-bound.",
		// Grew by 40 points along one chain: the innermost server frame.
		"Stacks (master): `MYSQL_BIN_LOG::ordered_commit` in 50.0% of thread samples (innodb 10.0%).",
		"Stacks (slave): `rocksdb::WritableFileWriter::Sync` in 75.0% of thread samples (innodb 0.0%).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("sentence lacks %q:\n%s", want, got)
		}
	}
	// The fairness lint found where the slaves keep their applied
	// position: named beside the fsyncs it costs (the seed's TokuDB
	// slaves: InnoDB 2.01 fsyncs per applied transaction).
	g.SidePosition = "mysql.gtid_slave_pos in innodb (gtid_pos_auto_engines=''), innodb_flush_log_at_trx_commit=1 (fsync at each commit)"
	if got, want := judge.Attribution(base, g), "(2.00 vs 0.00100: the baseline's near 0, no ratio); its slaves keep their applied position in "+
		"mysql.gtid_slave_pos in innodb (gtid_pos_auto_engines=''), innodb_flush_log_at_trx_commit=1 (fsync at each commit) (Fairness); they fell behind"; !strings.Contains(got, want) {
		t.Errorf("side position not named:\n%s", got)
	}
	g.SidePosition = ""
	if got := judge.Attribution(base, mk("same", 1, 1000, 0.001, 1)); !strings.Contains(got, "no server frame's share grew by 5 points") {
		t.Errorf("unchanged stacks: %s", got)
	}
}

func TestClientBound(t *testing.T) {
	for _, c := range []struct {
		client, box, runq float64
		bound             bool
		why               string
	}{
		{0.93, 0.95, 1, true, "client 93.0% of 2 cores"},
		{0.93, 0.95, 5, true, "client 93.0% of 2 cores, run queue median 5.0 > 2 cores (p90 5.0)"},
		// Neither the box's other processes nor its run queue alone: the
		// client's own CPU must be near the box's capacity.
		{0.2, 0.92, 1, false, ""},
		{0.3, 0.5, 5.1, false, ""},
		{0.5, 0.6, 2, false, ""},
	} {
		lb := cost("loadbox", "loadbox", func(x *analyse.Cost) {
			x.ClientCPU, x.BoxCPU, x.BoxRunQueue, x.BoxRunQueueP90 = c.client, c.box, c.runq, c.runq
		})
		bound, why := judge.ClientBound(lb)
		if bound != c.bound || why != c.why {
			t.Errorf("%+v: got %v %q", c, bound, why)
		}
	}
	base := group("a", 1, cost("master", "master", func(c *analyse.Cost) {}))
	g := group("b", 1.1, cost("master", "master", func(c *analyse.Cost) {}),
		cost("loadbox", "loadbox", func(x *analyse.Cost) { x.ClientCPU, x.BoxCPU, x.BoxRunQueue = 0.95, 0.97, 1 }))
	if got := judge.Attribution(base, g); !strings.Contains(got, "Client-bound: the load box was saturated in b (client 95.0% of 2 cores): the comparison measures the load box") {
		t.Errorf("client-bound not said: %s", got)
	}
}

// A run directory written by hand: the window leaves out the warm-up and
// what follows the load, and each figure is divided by the host's own
// transactions.
func TestReadRunWhy(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("manifest.json", `{"status":"ok","inventory":{"hosts":[{"name":"m","role":"master"},{"name":"s","role":"slave"},{"name":"lb","role":"loadbox"}]}}`)
	// Rows at 1 s (warm-up), 2, 3 s (the window (1, 3]), 4 s (after the
	// load); each row's figures hold over the second before it.
	write("timeseries/m-mysql.csv", "t,elapsed_s,interval_s,gtid_tx_ps,innodb_data_fsyncs_ps,rocksdb_wal_synced_ps,binlog_bytes_written_bps,semisync_avg_wait_us,semisync_yes_tx_ps,threads_running\n"+
		"x,1,1,50,50,,1000,100,50,4\n"+
		"x,2,1,100,30,,60000,200,100,6\n"+
		"x,3,1,100,10,,60000,400,100,8\n"+
		"x,4,1,7,7,,7,7,7,7\n")
	write("timeseries/m-os.csv", "t,elapsed_s,interval_s,cpu_idle_pct,procs_running,disk_util_pct,ncpu,server_cpu_us_ps,server_vcs_ps,server_ivcs_ps,server_read_bps,server_write_bps,server_threads_runnable\n"+
		"x,1,1,50,9,9,2,9,9,9,9,9,9\n"+
		"x,2,1,10,3,40,2,1000000,500,100,0,204800,1\n"+
		"x,3,1,20,5,60,2,1400000,300,100,1024,204800,3\n"+
		"x,4,1,9,9,9,2,9,9,9,9,9,9\n")
	write("timeseries/s-mysql.csv", "t,elapsed_s,interval_s,gtid_tx_ps,innodb_data_fsyncs_ps\n"+
		"x,2,1,50,100\nx,3,1,50,100\n")
	write("timeseries/lb-os.csv", "t,elapsed_s,interval_s,ncpu,client_cpu_us_ps,box_cpu_us_ps,box_tasks_runnable\n"+
		"x,2,1,2,1800000,1900000,3\nx,3,1,2,1900000,1950000,5\n")
	rw, err := analyse.ReadRunWhy(dir, load.LoadWindow(1, 3), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(rw.Hosts) != 2 || rw.Hosts[0].Host != "m" || len(rw.LoadBoxes) != 1 {
		t.Fatalf("%+v", rw)
	}
	m, s, lb := rw.Hosts[0], rw.Hosts[1], rw.LoadBoxes[0]
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("master tx", m.Tx, 200)
	near("master tps", m.TPS, 100)
	near("cpu_us_per_tx", m.CPUUs, 2400000.0/200)
	near("cs_per_tx", m.CS, 1000.0/200)
	near("read_kib_per_tx", m.ReadKiB, 1.0/200)
	near("write_kib_per_tx", m.WriteKiB, 400.0/200)
	near("fsync_per_tx", m.Fsync, 40.0/200)
	near("binlog_bytes_per_tx", m.BinlogBytes, 600)
	// ACK wait: 200 us x 100 + 400 us x 100 over 200 tx, over 1000 us.
	near("semisync_wait_share", m.SemisyncShare, 60000.0/200/1000)
	near("server CPU share", m.ServerCPU, 1.2/2)
	near("host CPU busy", m.HostCPU, 0.85)
	near("disk busy", m.DiskBusy, 0.5)
	near("threads_running", m.ThreadsRunning, 7)
	near("slave fsync per applied tx", s.Fsync, 2)
	near("client CPU share", lb.ClientCPU, 0.925)
	near("box run queue", lb.BoxRunQueue, 4)
	if bound, _ := judge.ClientBound(lb); !bound {
		t.Error("a client at 92% of its cores is not client-bound")
	}
	if !math.IsNaN(s.CPUUs) || !math.IsNaN(s.SemisyncShare) {
		t.Errorf("slave without os series: cpu %v, semi-sync share %v", s.CPUUs, s.SemisyncShare)
	}
	// The monitor of today writes the switches' sum (schedstat), where the
	// run above, an older one, had their two parts.
	write("timeseries/m-os.csv", "t,elapsed_s,interval_s,ncpu,server_cpu_us_ps,server_cs_ps\n"+
		"x,1,1,2,9,9\nx,2,1,2,1000000,600\nx,3,1,2,1400000,400\nx,4,1,2,9,9\n")
	if rw, err = analyse.ReadRunWhy(dir, load.LoadWindow(1, 3), 0, 1000); err != nil {
		t.Fatal(err)
	}
	near("cs_per_tx from server_cs_ps", rw.Hosts[0].CS, 1000.0/200)
}

func TestSmallSignificantDigits(t *testing.T) {
	// One column, three significant digits, plain decimals: never 4.4e-05
	// beside 0.00.
	for v, want := range map[float64]string{0.000044: "0.0000440", 0: "0", 0.00119: "0.00119", 1.35: "1.35", 86.31: "86.3", 627.2: "627", 9641.4: "9641"} {
		if got := judge.Small(v, 3); got != want {
			t.Errorf("small(%v, 3) = %q, want %q", v, got, want)
		}
	}
}

func TestCostRowsMarks(t *testing.T) {
	base := group("a", 1, cost("master", "master", func(c *analyse.Cost) { c.TPS, c.CPUUs, c.Fsync = 100, 100, 1 }))
	g := group("b", 1.03, cost("master", "master", func(c *analyse.Cost) { c.TPS, c.CPUUs, c.Fsync = 103, 130, 1.02 }))
	w := &judge.Why{Groups: []*judge.GroupWhy{base, g}, Base: base}
	rows := w.CostRows(func(s string) string { return "[" + s + "]" })
	if rows[0][3] != "100" || rows[0][4] != "100" {
		t.Errorf("baseline row %q", rows[0])
	}
	if rows[1][3] != "103 (1.03x)" || rows[1][4] != "[130 (1.30x)]" || rows[1][8] != "1.02 (1.02x)" {
		t.Errorf("row %q", rows[1])
	}
}

// hosts.csv carries the same figures, one row per run and host.
func TestWhyCSVRows(t *testing.T) {
	rep := build(t, analyse.Options{}, matrixDir)
	var b bytes.Buffer
	if err := render.WriteHostsCSV(rep, &b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	tb := rep.Tables[0]
	w := tb.Why
	if w == nil {
		t.Fatal("no why for the matrix")
	}
	perRun := map[string][]string{}
	for _, r := range rows[1:] {
		perRun[r[col["run"]]] = append(perRun[r[col["run"]]], r[col["host"]]+"/"+r[col["host_role"]])
		if r[col["run"]] == "01-innodb-r1" && r[col["host"]] == "slave1" {
			var run *load.Run
			for _, x := range tb.Runs {
				if x.ID == "01-innodb-r1" {
					run = x
				}
			}
			c := w.Runs[run].Hosts[1]
			if c.Host != "slave1" || r[col["fsync_per_tx"]] != render.F4(c.Fsync) || r[col["host_tx_per_s"]] != render.F4(c.TPS) || r[col["fsync_per_tx"]] == "" {
				t.Errorf("slave1 row %q, figures %+v", r, c)
			}
		}
	}
	if got := strings.Join(perRun["01-innodb-r1"], " "); got != "master/master slave1/slave slave2/slave" {
		t.Errorf("01-innodb-r1 rows: %s", got)
	}
	if got := perRun["06-rocksdb-r3"]; len(got) != 0 {
		t.Errorf("a pending cell has no host rows: %v", got)
	}
}

func TestWhyHTML(t *testing.T) {
	rep := build(t, analyse.Options{}, matrixDir)
	var b bytes.Buffer
	if err := render.WriteHTML(rep, &b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if _, err := checkHTML(b.Bytes()); err != nil {
		t.Fatalf("report.html is not well-formed: %v", err)
	}
	verdicts := strings.Index(page, `<ul class="verdicts">`)
	why := strings.Index(page, "<h3>"+render.WhyHeading+"</h3>")
	configs := strings.Index(page, `-configurations">Configurations</h3>`)
	// The configurations' table comes first, the diagnostics after it.
	if why < 0 || !(verdicts < configs && configs < why) {
		t.Errorf("the section is missing or not under the verdicts and the Configurations table (verdicts %d, configurations %d, why %d)", verdicts, configs, why)
	}
	for _, want := range []string{`<td class="marked"`, "<h4>Per transaction</h4>", "<h4>Utilisation and saturation (USE)</h4>",
		"rocksdb: " + analyse.Ratio(rep.Tables[0].Group("rocksdb").Ratio) + " innodb."} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

func TestWhyJSON(t *testing.T) {
	rep := build(t, analyse.Options{}, matrixDir)
	var b bytes.Buffer
	if err := render.WriteWhyJSON(rep, &b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tables []struct {
			Baseline string `json:"baseline"`
			Groups   []struct {
				Label    string           `json:"label"`
				Sentence string           `json:"sentence"`
				Hosts    []map[string]any `json:"hosts"`
			} `json:"configurations"`
			Runs []struct {
				Run   string           `json:"run"`
				Hosts []map[string]any `json:"hosts"`
			} `json:"runs"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	tb := rep.Tables[0]
	if len(doc.Tables) != 1 || doc.Tables[0].Baseline != "innodb" || len(doc.Tables[0].Groups) != len(tb.Why.Groups) {
		t.Fatalf("%+v", doc)
	}
	g := doc.Tables[0].Groups[1]
	want := tb.Why.Groups[1]
	if g.Label != "rocksdb" || g.Sentence != want.Sentence || g.Hosts[0]["host"] != "master" ||
		g.Hosts[0]["fsync_per_tx"] != want.Master().Fsync || g.Hosts[0]["cpu_us_per_tx"] != nil {
		t.Errorf("rocksdb: %+v", g)
	}
	if len(doc.Tables[0].Runs) != len(tb.Why.Runs) {
		t.Errorf("%d runs, want %d", len(doc.Tables[0].Runs), len(tb.Why.Runs))
	}
}
