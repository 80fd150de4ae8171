package recheck

import (
	"strconv"
	"testing"
)

// lagRun is a run of 20 s whose master commits 1,000 tx/s; slave1 keeps
// up to second 12, then falls behind by 300 tx/s (2,400 tx behind at 20);
// slave2 keeps up; both caught up 2.5 s after the load. By the stated
// rule it fell behind: over the window's last 5 s slave1's lag grew 300
// tx/s (> 5% of 1,000) to 2,400 tx (> the 2,000 the master commits in
// 10% of the 20 s window); its peak is 2,400 at 20 s, rising since 12 s
// (its last sample at most a tenth of the peak).
func lagRun(id string) *run {
	row := func(t, seq float64) []string {
		return []string{strconv.FormatFloat(t, 'f', -1, 64), "0-1-" + strconv.FormatFloat(seq, 'f', 0, 64)}
	}
	idx := map[string]int{"elapsed_s": 0, "gtid_pos": 1}
	master, s1, s2 := &table{idx: idx}, &table{idx: idx}, &table{idx: idx}
	for t := 0.0; t <= 21; t++ {
		lag := 0.0
		if t > 12 {
			lag = 300 * (t - 12)
		}
		master.rows = append(master.rows, row(t, 1000*t))
		s1.rows = append(s1.rows, row(t, 1000*t-lag))
		s2.rows = append(s2.rows, row(t, 1000*t))
	}
	ns := int64(2.5e9)
	zero, behind := int64(0), int64(2400)
	return &run{id: id, roles: map[string]string{"master": "master", "slave1": "slave", "slave2": "slave", "loadbox": "loadbox"},
		mysql:  map[string]*table{"master": master, "slave1": s1, "slave2": s2},
		kept:   [][2]float64{{0, 20}},
		master: 1000, windowS: 20, catchUp: 2.5, lagEnd: 2400, lagGrowth: 150,
		slavesDone: []slaveCatchUp{{Host: "slave1", CatchUpNS: &ns, CaughtUp: true, BehindTx: &behind}, {Host: "slave2", CatchUpNS: &ns, CaughtUp: true, BehindTx: &zero}}}
}

const lagLine = "a: 0.500x b writes/s on the master [0.4, 0.6] (p=0.01, significant); replicas: 1 of 1 run fell behind, worst: a-r1 (lag grew 300 tx/s over the window's last 5 s, to 2.4k tx); " +
	"peak lag 2.4k tx (a-r1 slave1 at 20.0 s, rising from 12.0 s); after the load every slave caught up within 2.5 s of orch seeing the load end"

func lagResult() *Result {
	return &Result{replicas: map[string]replicaRuns{"a": judgeRuns([]*run{lagRun("a-r1")}), "b": {}}}
}

// TestReplicaPhrase: the phrase above checks out, every figure claimed;
// each altered figure is caught.
func TestReplicaPhrase(t *testing.T) {
	res := lagResult()
	spans := res.checkReplicaPhrases(lagLine, "b", []string{"b", "a"})
	if len(res.Problems) > 0 {
		t.Fatalf("problems: %q", res.Problems)
	}
	if res.Compared < 10 || len(spans) < 10 {
		t.Errorf("%d figures compared, %d spans", res.Compared, len(spans))
	}
	expectCaught(t, lagLine, func(line string) *Result {
		res := lagResult()
		res.checkReplicaPhrases(line, "b", []string{"b", "a"})
		return res
	}, []alteration{
		{"to 2.4k tx", "to 3.4k tx", "lag at the window's end tx: report 3400"},
		{"lag grew 300 tx/s", "lag grew 200 tx/s", "lag growth over the window's end tx/s: report 200"},
		{"at 20.0 s", "at 17.0 s", "peak lag at s: report 17"},
		{"rising from 12.0 s", "rising from 4.0 s", "rising from s: report 4"},
		{"peak lag 2.4k tx", "peak lag 5.4k tx", "peak lag tx: report 5400"},
		{"(a-r1 slave1", "(a-r1 slave2", "peak lag's run and slave: report a-r1 slave2"},
		{"within 2.5 s", "within 0.5 s", "longest catch-up after the load s: report 0.5"},
		{"every slave caught up within 2.5 s of orch seeing the load end", "every slave had caught up by orch's first look, 2.5 s after it saw the load end",
			`after the load: report "caught up by orch's first look"`},
		{"1 of 1 run fell behind, worst: a-r1 (lag grew 300 tx/s over the window's last 5 s, to 2.4k tx)", "kept up in 1 of 1 run", "report kept up in every run"},
	})
}
