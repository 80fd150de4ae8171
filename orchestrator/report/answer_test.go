package report

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// answerTable is a table of a baseline and the given configurations, as
// compare would have left them.
func answerTable(base *judge.Group, gs ...*judge.Group) *judge.Table {
	return &judge.Table{Metric: "writes/s", Baseline: base, Groups: append([]*judge.Group{base}, gs...)}
}

func TestAnswerSignificant(t *testing.T) {
	base := &judge.Group{Label: "innodb", Rate: analyse.Sample{N: 5, Mean: 1000}, Stats: analyse.Stats{CV: 0.02}}
	g := &judge.Group{Label: "rocksdb", Rate: analyse.Sample{N: 5, Mean: 660}, Ratio: 0.66, Test: &analyse.TTest{P: 0.003},
		Stats: analyse.Stats{CV: 0.03, RatioCI: &analyse.RatioCI{Low: 0.59, High: 0.73}}}
	got := render.TableAnswer(answerTable(base, g))
	if want := []string{"rocksdb vs innodb: -34% writes/s [-41%, -27%] (p=0.003, n=5+5)"}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("answer = %q, want %q", got, want)
	}
}

func TestAnswerNotSignificant(t *testing.T) {
	base := &judge.Group{Label: "innodb", Rate: analyse.Sample{N: 2, Mean: 1000}, Stats: analyse.Stats{CV: 0.226, Noisy: true}}
	g := &judge.Group{Label: "rocksdb", Rate: analyse.Sample{N: 2, Mean: 660}, Ratio: 0.66, Test: &analyse.TTest{P: 0.276},
		Stats: analyse.Stats{CV: 0.015, RepsNeeded: 6, RatioCI: &analyse.RatioCI{Low: 0.2, High: 2.1}}}
	got := render.TableAnswer(answerTable(base, g))
	want := []string{
		// Not the ratio first: it is not a finding.
		"rocksdb vs innodb: ~ no significant difference (p=0.276, n=2+2): need ~6 runs each",
		// The noisy side is named with its own CV.
		"Noise: CV above 5%: innodb 22.6%; n=2: too few runs to judge the noise",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("answer =\n %q, want\n %q", got, want)
	}
	if v := judge.Verdict(answerTable(base, g), base, g, nil); !strings.Contains(v, "noisy: innodb CV 22.6% above 5% (rocksdb 1.5%)") {
		t.Errorf("verdict's noise clause: %q", v)
	}
	// Enough runs already: no advice.
	g.RepsNeeded = 2
	if got := render.ComparisonLine(answerTable(base, g), base, g); got != "rocksdb vs innodb: ~ no significant difference (p=0.276, n=2+2)" {
		t.Errorf("no advice when n suffices: %q", got)
	}
}

func TestAnswerEquivalence(t *testing.T) {
	base := &judge.Group{Label: "innodb", Rate: analyse.Sample{N: 5, Mean: 1000}}
	g := &judge.Group{Label: "rocksdb", Rate: analyse.Sample{N: 5, Mean: 1010}, Ratio: 1.01, Test: &analyse.TTest{P: 0.41},
		Stats: analyse.Stats{RatioCI: &analyse.RatioCI{Low: 0.97, High: 1.04}}}
	tb := answerTable(base, g)
	tb.Until = &load.UntilDoc{Until: schema.Until{Precision: 0.05, MinRounds: 2, MaxRounds: 10, Equivalence: 0.1, Judged: 5, Stopped: true, Why: "stopped"}}
	if got, want := render.ComparisonLine(tb, base, g), "rocksdb vs innodb: ~ no significant difference (p=0.41, n=5+5); equivalent within ±10% [-3%, +4%]"; got != want {
		t.Errorf("equivalent:\n got %q\nwant %q", got, want)
	}
	g.RatioCI = &analyse.RatioCI{Low: 0.85, High: 1.04}
	if got, want := render.ComparisonLine(tb, base, g), "rocksdb vs innodb: ~ no significant difference (p=0.41, n=5+5); not resolved: the interval overlaps ±10%"; got != want {
		t.Errorf("unresolved:\n got %q\nwant %q", got, want)
	}
	if lines := render.TableAnswer(tb); len(lines) != 2 || !strings.HasPrefix(lines[1], "Stopping rule: ") {
		t.Errorf("the stopping rule belongs to the answer: %q", lines)
	}
}

func TestAnswerSeveralComparisons(t *testing.T) {
	base := &judge.Group{Label: "innodb", Rate: analyse.Sample{N: 3, Mean: 1000}}
	rocks := &judge.Group{Label: "rocksdb", Rate: analyse.Sample{N: 3, Mean: 790}, Ratio: 0.79, Test: &analyse.TTest{P: 0.003, Level: 0.025, M: 2},
		Stats: analyse.Stats{RatioCI: &analyse.RatioCI{Low: 0.76, High: 0.82, Level: 0.025}}}
	toku := &judge.Group{Label: "tokudb", Rate: analyse.Sample{N: 3, Mean: 1040}, Ratio: 1.04, Test: &analyse.TTest{P: 0.3, Level: 0.05, M: 2},
		Stats: analyse.Stats{RatioCI: &analyse.RatioCI{Low: 0.9, High: 1.2, Level: 0.05}, RepsNeeded: 40}}
	got := render.TableAnswer(answerTable(base, rocks, toku))
	want := []string{
		"rocksdb vs innodb: -21% writes/s [-24%, -18%] (97.5% CI, Holm) (p=0.003 at Holm's 0.025, n=3+3)",
		"tokudb vs innodb: ~ no significant difference (p=0.3 at Holm's 0.05, n=3+3): need ~40 runs each",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("answer =\n %q, want\n %q", got, want)
	}
}

func TestAnswerTooFewRuns(t *testing.T) {
	base := &judge.Group{Label: "innodb", Rate: analyse.Sample{N: 1, Mean: 1000}, Stats: analyse.Stats{CV: math.NaN()}}
	g := &judge.Group{Label: "tokudb", Rate: analyse.Sample{N: 1, Mean: 1630}, Ratio: 1.63, TestErr: analyse.ErrTooFew, Stats: analyse.Stats{CV: math.NaN()}}
	got := render.TableAnswer(answerTable(base, g))
	want := []string{
		"tokudb vs innodb: +63% writes/s, untested: n=1+1, too few runs, a test needs 2 or more each",
		"Noise: n=1: too few runs to judge the noise",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("answer =\n %q, want\n %q", got, want)
	}
	// One configuration: its level, nothing compared.
	solo := &judge.Group{Label: "innodb", Rate: analyse.Sample{N: 2, Mean: 9648.53, SD: 178.21}}
	if got := render.TableAnswer(answerTable(solo)); len(got) != 2 || got[0] != "innodb: 9648.53 writes/s ± 178.21 (n=2); one configuration, nothing compared" {
		t.Errorf("one configuration: %q", got)
	}
	// A time: its change says so.
	slap := &judge.Table{Metric: load.MetricSeconds, LowerIsBetter: true, Baseline: base, Groups: []*judge.Group{base, g}}
	if got, want := render.ComparisonLine(slap, base, g), "tokudb vs innodb: +63% time ("+load.MetricSeconds+", lower is better), untested: n=1+1, too few runs, a test needs 2 or more each"; got != want {
		t.Errorf("time:\n got %q\nwant %q", got, want)
	}
	none := &judge.Group{Label: "tokudb", Rate: analyse.Sample{N: 0}, TestErr: analyse.ErrNoRuns}
	if got := render.ComparisonLine(answerTable(base, none), base, none); got != "tokudb vs innodb: nothing to compare (n=0+1: no run ended ok)" {
		t.Errorf("no runs: %q", got)
	}
	// A mean's interval that runs below 0 is not printed as a range.
	if got := render.CI(analyse.Sample{N: 2, Mean: 3623, CILow: -2819.81, CIHigh: 10066.55}, 2); got != "n=2 too small (interval reaches below 0)" {
		t.Errorf("ci below 0 = %q", got)
	}
}

func TestAnswerReplicasBehind(t *testing.T) {
	kept := load.ReplicaFigures{Has: true, MasterTxPS: 3500, ApplyTxPS: 3490, LagGrowthTxPS: 1, CatchUpS: 0.001, RunS: 20}
	behind := load.ReplicaFigures{Has: true, MasterTxPS: 2765, ApplyTxPS: 872.5, LagGrowthTxPS: 2600, CatchUpS: 38, RunS: 20}
	base := &judge.Group{Label: "innodb", Rate: analyse.Sample{N: 3, Mean: 3500}, Stats: analyse.Stats{Replica: kept, KeptUp: true, ReplicaRuns: judge.JudgeRuns(runsWith("i", kept))}}
	rr := judge.JudgeRuns(runsWith("r", behind))
	g := &judge.Group{Label: "rocksdb", Rate: analyse.Sample{N: 3, Mean: 2765}, Ratio: 0.79, Test: &analyse.TTest{P: 0.003},
		Stats: analyse.Stats{Replica: behind, KeptUp: rr.Behind == 0, ReplicaRuns: rr, RatioCI: &analyse.RatioCI{Low: 0.76, High: 0.82},
			SustainedRatio: 0.45, SustainedCI: &analyse.RatioCI{Low: 0.41, High: 0.49}, ApplyRatio: 0.25}}
	want := "Replicas: did NOT keep up: rocksdb (1 of 1 run fell behind, worst: r1 (catch-up 38 s, over 10% of the 20 s window); after the load every slave caught up within 38 s of orch seeing the load end); " +
		"rocksdb sustained 0.450x [0.410, 0.490]; applied vs innodb: rocksdb 0.250x"
	tb := answerTable(base, g)
	if got := render.ReplicaLine(tb); got != want {
		t.Errorf("replica line:\n got %q\nwant %q", got, want)
	}
	// A time (mysqlslap's seconds): the cluster's is the load's plus the
	// catch-up, said as a time, not as a "sustained" rate.
	slap := &judge.Table{Metric: load.MetricSeconds, LowerIsBetter: true, Baseline: base, Groups: []*judge.Group{base, g}}
	g.SustainedRatio, g.SustainedCI = 16.7, &analyse.RatioCI{Low: 13.5, High: 21.2}
	if got, want := render.ReplicaLine(slap), "Replicas: did NOT keep up: rocksdb (1 of 1 run fell behind, worst: r1 (catch-up 38 s, over 10% of the 20 s window); "+
		"after the load every slave caught up within 38 s of orch seeing the load end); rocksdb's cluster took 16.7x innodb's time "+
		"(the load and the slowest replica's catch-up) [13.5, 21.2]; applied vs innodb: rocksdb 0.250x"; got != want {
		t.Errorf("time's replica line:\n got %q\nwant %q", got, want)
	}
	g.SustainedRatio, g.SustainedCI = 0.45, &analyse.RatioCI{Low: 0.41, High: 0.49}
	// --headline sustained: the comparison leads with the sustained ratio,
	// an estimate with its interval, then the master's rate and its test.
	tb.Headline = analyse.HeadlineSustained
	if got, want := render.ComparisonLine(tb, base, g), "rocksdb vs innodb: sustained -55% writes/s [-59%, -51%] (an estimate with its interval, not tested); "+
		"client: -21% writes/s [-24%, -18%] (p=0.003, n=3+3)"; got != want {
		t.Errorf("sustained headline:\n got %q\nwant %q", got, want)
	}
	// A master rate not significantly different beside a sustained
	// interval that excludes 0: two quantities, each named, never "no
	// significant difference" and an interval excluding 0 said of one.
	g.Test, g.RatioCI = &analyse.TTest{P: 0.2}, &analyse.RatioCI{Low: 0.7, High: 1.1}
	if got, want := render.ComparisonLine(tb, base, g), "rocksdb vs innodb: sustained -55% writes/s [-59%, -51%] (an estimate with its interval, not tested); "+
		"client: ~ no significant difference (p=0.2, n=3+3)"; got != want {
		t.Errorf("sustained headline, master not significant:\n got %q\nwant %q", got, want)
	}
}

// The answer's change is the verdict's ratio, never a digit apart.
func TestPctChangeIsTheRatio(t *testing.T) {
	for r := 0.0; r < 3; r += 0.0005 {
		v, err := strconv.ParseFloat(strings.TrimSuffix(analyse.Ratio(r), "x"), 64)
		if err != nil {
			t.Fatal(err)
		}
		want := int(math.Round(100*v)) - 100
		got := render.PctChange(r)
		if want == 0 && got != "±0%" || want != 0 && got != strconv.FormatInt(int64(want), 10)+"%" && got != "+"+strconv.Itoa(want)+"%" {
			t.Fatalf("pctChange(%v) = %q, Ratio = %q", r, got, analyse.Ratio(r))
		}
	}
}

// On the demo, the head's figures are the verdict's.
func TestAnswerReusesTheVerdictsFigures(t *testing.T) {
	rep := build(t, analyse.Options{}, demoDir)
	tb := rep.Tables[0]
	g := tb.Group("rocksdb")
	line := render.TableAnswer(tb)[0]
	// The demo's two runs each sit at the edge (p=0.0501): whichever side
	// its figures fall on, the answer says it with the verdict's numbers.
	wants := []string{"rocksdb vs innodb: ~ no significant difference (" + judge.PValue(g.Test.P) + ", n=2+2)"}
	if g.Test.Significant() {
		wants = []string{render.PctChange(g.Ratio) + " writes/s", render.PctInterval(g.RatioCI, g.RatioCIErr), judge.PValue(g.Test.P) + ", n=2+2"}
	}
	for _, want := range wants {
		if !strings.Contains(line, want) {
			t.Errorf("answer %q lacks %q", line, want)
		}
	}
	for _, want := range []string{analyse.Ratio(g.Ratio) + " innodb writes/s", judge.CIPhrase(g.RatioCI, g.RatioCIErr), judge.PValue(g.Test.P)} {
		if !strings.Contains(g.Verdict, want) {
			t.Errorf("verdict %q lacks %q", g.Verdict, want)
		}
	}
	// Hosts not recorded in the demo's trimmed manifests: said so.
	if s := render.Setting(rep, tb); len(s) != 3 || !strings.HasPrefix(s[0], "Servers: MariaDB 10.11.19 (master, 2 replicas), semi-sync on; ran 2026-12-01 20:05-20:06 UTC on cluster lab; client sysbench 1.0.20") {
		t.Errorf("setting = %q", s)
	}
}

func TestHostLines(t *testing.T) {
	facts := func(host, cpus, boot string) load.HostFacts {
		return load.HostFacts{Host: host, Facts: [][2]string{{"cpu_model", "AMD EPYC 7B13"}, {"cpus", cpus}, {"memory_mb", "24105"}, {"boot_id", boot},
			{"disk_path", "/var/lib/mysql"}, {"disk_device", "/dev/vda"}, {"disk_fs", "ext4"}, {"disk_size_mb", "258019"}, {"disk_kind", "rotational"}}}
	}
	r := &load.Run{Evidence: &load.Evidence{Facts: []load.HostFacts{facts("master", "2", "b1"), facts("slave1", "2", "b1"), facts("loadbox", "4", "b1")}}}
	base := &judge.Group{Label: "innodb", Runs: []*load.Run{r}}
	tb := &judge.Table{Baseline: base, Groups: []*judge.Group{base}, Runs: []*load.Run{r}}
	want := []string{
		"Hosts master, slave1: AMD EPYC 7B13 x 2 cores, 23.5 GiB RAM; datadir /var/lib/mysql: ext4 on /dev/vda, 252 GiB, rotational",
		"Host loadbox: AMD EPYC 7B13 x 4 cores, 23.5 GiB RAM; datadir /var/lib/mysql: ext4 on /dev/vda, 252 GiB, rotational",
		"All 3 hosts share one kernel: one machine, its cores shared",
	}
	if got := render.HostLines(tb); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hostLines =\n %q, want\n %q", got, want)
	}
	// systemd-nspawn containers: a boot id each, one kernel (release and
	// boot time) for all; and three machines that each boot their own.
	for name, c := range map[string]struct {
		kernel [3]string
		shared bool
	}{
		"containers on one kernel": {[3]string{"Linux 6.1.0-40-amd64 booted 1764650000", "Linux 6.1.0-40-amd64 booted 1764650000", "Linux 6.1.0-40-amd64 booted 1764650000"}, true},
		"three machines":           {[3]string{"Linux 6.1.0-40-amd64 booted 1764650000", "Linux 6.1.0-40-amd64 booted 1764650071", "Linux 6.12.5 booted 1764650000"}, false},
	} {
		for i, h := range r.Evidence.Facts {
			h.Facts[3] = [2]string{"boot_id", "container-" + h.Host}
			r.Evidence.Facts[i].Facts = append(h.Facts[:9:9], [2]string{"kernel_id", c.kernel[i]})
		}
		got := render.HostLines(tb)
		if shared := strings.Contains(strings.Join(got, "\n"), "All 3 hosts share one kernel"); shared != c.shared {
			t.Errorf("%s: hostLines %q: shared kernel said %v, want %v", name, got, shared, c.shared)
		}
	}
	r.Evidence.Facts = nil
	if got := render.HostLines(tb); len(got) != 1 || !strings.Contains(got[0], "not recorded") {
		t.Errorf("no facts: %q", got)
	}
}

// Several tables: each table's answer under its name, in report.md too.
func TestAnswerSeveralTables(t *testing.T) {
	rep := build(t, analyse.Options{}, matrixDir, "testdata/logs/slap-innodb.txt", "testdata/logs/slap-rocksdb.txt")
	if len(rep.Tables) != 2 {
		t.Fatalf("%d tables, want 2", len(rep.Tables))
	}
	got := render.ReportAnswer(rep)
	var md strings.Builder
	if err := render.WriteMarkdown(rep, &md); err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(md.String(), "\n## ")
	for _, tb := range rep.Tables {
		name := render.AnswerFor(tb) + ":"
		i := slices.Index(got, name)
		if i < 0 || i+1 >= len(got) || got[i+1] != render.TableAnswer(tb)[0] {
			t.Errorf("Answer() lacks %q followed by its first line: %q", name, got)
		}
		if !strings.Contains(head, name+"\n\n- "+render.TableAnswer(tb)[0]+"\n") {
			t.Errorf("report.md's head lacks %q and its answer:\n%s", name, head)
		}
	}
}

// The setting opens with the servers: one value when every server of the
// runs agrees, else each with its hosts, by cluster over several; runs
// without recorded servers fall back to their topology, parsed logs to
// "Ran"/"Client".
func TestServersLine(t *testing.T) {
	start := time.Date(2026, 12, 1, 20, 5, 0, 0, time.UTC)
	roles := map[string]string{"master": "master", "slave1": "slave", "slave2": "slave"}
	run := func(cluster string, servers map[string]string) *load.Run {
		return &load.Run{Bench: &load.Bench{Tool: "sysbench", Version: "1.0.20"}, Topology: "1 master + 2 slaves, semi-sync on", SemiSync: "semi-sync on",
			Evidence: &load.Evidence{Start: start, Cluster: cluster, Servers: servers, Roles: roles}}
	}
	mysql := map[string]string{"master": "MySQL 9.7.4", "slave1": "MySQL 9.7.4", "slave2": "MySQL 9.7.4"}
	maria := map[string]string{"master": "MariaDB 10.11.19", "slave1": "MariaDB 10.11.19", "slave2": "MariaDB 10.11.19"}
	mixed := map[string]string{"master": "MariaDB 10.11.19", "slave1": "MariaDB 10.11.19", "slave2": "MySQL 9.7.4"}
	parsed := &load.Run{Bench: &load.Bench{Tool: "sysbench", Version: "1.0.20"}}
	for _, c := range []struct {
		runs []*load.Run
		want string
	}{
		{[]*load.Run{run("lab", mysql), run("lab", mysql)},
			"Servers: MySQL 9.7.4 (master, 2 replicas), semi-sync on; ran 2026-12-01 20:05 UTC on cluster lab; client sysbench 1.0.20"},
		{[]*load.Run{run("lab", mixed)},
			"Servers: MariaDB 10.11.19 (master, 1 replica), MySQL 9.7.4 (1 replica), semi-sync on; ran 2026-12-01 20:05 UTC on cluster lab; client sysbench 1.0.20"},
		{[]*load.Run{run("east", maria), run("west", mysql)},
			"Servers: MariaDB 10.11.19 (east: master, 2 replicas), MySQL 9.7.4 (west: master, 2 replicas), semi-sync on; ran 2026-12-01 20:05 UTC on clusters east, west; client sysbench 1.0.20"},
		{[]*load.Run{run("east", mysql), run("west", mysql)},
			"Servers: MySQL 9.7.4 (east: master, 2 replicas; west: master, 2 replicas), semi-sync on; ran 2026-12-01 20:05 UTC on clusters east, west; client sysbench 1.0.20"},
		{[]*load.Run{run("lab", nil)},
			"Servers: 1 master + 2 slaves, semi-sync on (versions not recorded); ran 2026-12-01 20:05 UTC on cluster lab; client sysbench 1.0.20"},
		{[]*load.Run{parsed}, "Client sysbench 1.0.20"},
	} {
		tb := &judge.Table{Runs: c.runs}
		if got := render.ServersLine(tb); got != c.want {
			t.Errorf("serversLine =\n %q, want\n %q", got, c.want)
		}
	}
}

// Replicas that applied a backlog from before the window: the applied
// ratio is said not to be the master's pace.
func TestAnswerReplicasCatchingUp(t *testing.T) {
	kept := load.ReplicaFigures{Has: true, MasterTxPS: 4400, ApplyTxPS: 4392, LagGrowthTxPS: 9.4, LagEndTx: 117, CatchUpS: 0.031, RunS: 15}
	catching := load.ReplicaFigures{Has: true, MasterTxPS: 3647, ApplyTxPS: 4421, LagGrowthTxPS: -1139.5, LagEndTx: 272, CatchUpS: 0.031, RunS: 15}
	base := &judge.Group{Label: "innodb", Rate: analyse.Sample{N: 4, Mean: 4400}, Stats: analyse.Stats{Replica: kept, KeptUp: true, ReplicaRuns: judge.JudgeRuns(runsWith("i", kept, kept))}}
	// Judged per run: one of rocksdb's two runs applied a backlog.
	g := &judge.Group{Label: "rocksdb", Rate: analyse.Sample{N: 4, Mean: 3650}, Ratio: 0.83, Stats: analyse.Stats{Replica: catching, KeptUp: true, ApplyRatio: 1.01,
		ReplicaRuns: judge.JudgeRuns(runsWith("r", catching, kept))}}
	want := "Replicas: kept up in every configuration; applied vs innodb: rocksdb 1.01x (a backlog from before the window in 1 run: not the master's pace)"
	if got := render.ReplicaLine(answerTable(base, g)); got != want {
		t.Errorf("replica line:\n got %q\nwant %q", got, want)
	}
}
