package matrix

import (
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/orchestrator/stacks"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// judgeFrom answers each round with the half-width the test scripted for
// it, so the rule's reaction to each round can be checked.
func judgeFrom(t *testing.T, halfWidths map[int]float64) Judge {
	return func(dir string, rounds int) ([]stats.Status, error) {
		hw, ok := halfWidths[rounds]
		if !ok {
			t.Fatalf("judged round %d, which the test did not expect", rounds)
		}
		return []stats.Status{{Label: "rocksdb/innodb", Ratio: 0.74, HalfWidth: hw,
			Interval: stats.Interval{Low: 0.74 * (1 - hw), High: 0.74 * (1 + hw)}, Outcome: stats.Different}}, nil
	}
}

func runRounds(t *testing.T, m *Matrix, judge Judge) []string {
	var lines []string
	for {
		c, ok := m.Next()
		if !ok {
			return lines
		}
		if line := runCellOK(t, m, c, judge); line != "" {
			lines = append(lines, line)
		}
	}
}

// runCellOK runs c to OK, saves, and ends the round if it completed one:
// the round's line, "" otherwise.
func runCellOK(t *testing.T, m *Matrix, c *Cell, judge Judge) string {
	t.Helper()
	now := time.Unix(1_800_000_000, 0)
	if err := m.Start(c.ID, now); err != nil {
		t.Fatal(err)
	}
	if err := m.Finish(c.ID, OK, nil, now); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	line, _, err := m.EndRound(judge)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func TestUntilStopsWhenPrecise(t *testing.T) {
	m, err := New("w", []string{"innodb", "rocksdb"}, nil, 6)
	if err != nil {
		t.Fatal(err)
	}
	m.Until = &Until{Precision: 0.05, MinRounds: 3, MaxRounds: 6}
	if _, err := Create(t.TempDir(), m, time.Unix(1_800_000_000, 0)); err != nil {
		t.Fatal(err)
	}
	// Rounds 1 and 2 are below --min-repeat; 4 reaches the target.
	lines := runRounds(t, m, judgeFrom(t, map[int]float64{1: 0.5, 2: 0.2, 3: 0.08, 4: 0.04}))
	if len(lines) != 4 {
		t.Fatalf("lines: %q", lines)
	}
	if want := "round 3: rocksdb/innodb 0.740x [0.681, 0.799] half-width 8.0% (different): going on: rocksdb/innodb's half-width is ±8% (target ±5%)"; lines[2] != want {
		t.Errorf("round 3 line:\n got %s\nwant %s", lines[2], want)
	}
	if !strings.HasSuffix(lines[3], "±5% reached after 4 rounds: every interval's half-width is within it (worst rocksdb/innodb: ±4%)") {
		t.Errorf("round 4 line: %s", lines[3])
	}
	if n := m.Count(OK); n != 8 {
		t.Errorf("%d cells ran, want 8 (4 rounds of 2)", n)
	}
	if n := m.Count(Skipped); n != 4 {
		t.Errorf("%d cells skipped, want 4", n)
	}
	// The state survives a reload: a resume runs nothing more.
	again, err := Load(m.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if !again.Until.Stopped || again.Until.Judged != 4 || !again.Done() {
		t.Errorf("reloaded: %+v, done %v", again.Until, again.Done())
	}
}

func TestUntilStopsAtMax(t *testing.T) {
	m, err := New("w", []string{"innodb", "rocksdb"}, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	m.Until = &Until{Precision: 0.01, MinRounds: 3, MaxRounds: 3}
	if _, err := Create(t.TempDir(), m, time.Unix(1_800_000_000, 0)); err != nil {
		t.Fatal(err)
	}
	lines := runRounds(t, m, judgeFrom(t, map[int]float64{1: 0.5, 2: 0.2, 3: 0.1}))
	if !strings.HasSuffix(lines[2], "±1% not reached: ±10% after 3 rounds (rocksdb/innodb, --max-repeat 3)") {
		t.Errorf("last line: %s", lines[2])
	}
	if m.Count(OK) != 6 || m.Count(Skipped) != 0 || !m.Until.Stopped {
		t.Errorf("ok %d skipped %d until %+v", m.Count(OK), m.Count(Skipped), m.Until)
	}
}

func TestCompletedRounds(t *testing.T) {
	m := &Matrix{Matrix: schema.Matrix{Cells: []Cell{
		{Rep: 1, State: OK}, {Rep: 1, State: Failed}, {Rep: 2, State: OK}, {Rep: 2, State: Running}, {Rep: 3, State: Pending},
	}}}
	if k := m.CompletedRounds(); k != 1 {
		t.Errorf("got %d, want 1", k)
	}
	m.Cells[3].State = OK
	m.Cells[4].State = Skipped
	if k := m.CompletedRounds(); k != 2 {
		t.Errorf("got %d, want 2", k)
	}
}

// One profiling tail per configuration: a cell whose configuration
// already has a cell that ended ok runs without stacks; a failed first
// cell leaves the next one to take them; in a block design each cluster
// samples its own.
func TestCellStacksOncePerConfiguration(t *testing.T) {
	m := &Matrix{Matrix: schema.Matrix{Cells: []Cell{
		{ID: "01-innodb-r1", Label: "innodb", State: OK},
		{ID: "02-rocksdb-r1", Label: "rocksdb", State: Failed},
		{ID: "03-innodb-r2", Label: "innodb", State: Pending},
		{ID: "04-rocksdb-r2", Label: "rocksdb", State: Pending},
	}}}
	if got := cellStacks(m, &m.Cells[2], stacks.Perf); got != stacks.Off {
		t.Errorf("innodb's second cell: %s, want off", got)
	}
	if got := cellStacks(m, &m.Cells[3], stacks.Perf); got != stacks.Perf {
		t.Errorf("rocksdb's second cell after a failed first: %s, want perf", got)
	}
	if got := cellStacks(m, &m.Cells[0], stacks.GDB); got != stacks.GDB {
		t.Errorf("a cell does not count itself: %s", got)
	}
}

// TestUntilOverClusters: with several clusters a round is one block of
// every configuration on every cluster; the rule judges a round only when
// every cluster has finished it, and its stop skips the later rounds on
// all of them.
func TestUntilOverClusters(t *testing.T) {
	m, d := newBlocked(t, 6, []string{"east", "west"}, 7, false)
	m.Until = &Until{Precision: 0.05, MinRounds: 3, MaxRounds: 6}
	if _, err := Create(t.TempDir(), m, time.Unix(1_800_000_000, 0)); err != nil {
		t.Fatal(err)
	}
	judge := judgeFrom(t, map[int]float64{1: 0.5, 2: 0.2, 3: 0.08, 4: 0.04})
	var lines []string
	for more := true; more; {
		more = false
		// The clusters take turns, a cell each, as two running at once
		// might finish them.
		for _, cl := range []string{"east", "west"} {
			c, ok := d.Next(m, cl)
			if !ok {
				continue
			}
			more = true
			if line := runCellOK(t, m, c, judge); line != "" {
				lines = append(lines, line)
			}
		}
	}
	if len(lines) != 4 || !strings.HasSuffix(lines[3], "±5% reached after 4 rounds: every interval's half-width is within it (worst rocksdb/innodb: ±4%)") {
		t.Fatalf("round lines: %q", lines)
	}
	// 4 configurations x 2 clusters per round.
	if ok, skipped := m.Count(OK), m.Count(Skipped); ok != 4*8 || skipped != 2*8 {
		t.Errorf("%d cells ran and %d were skipped, want 32 and 16", ok, skipped)
	}
	for _, c := range m.Cells {
		if (c.State == OK) != (c.Rep <= 4) {
			t.Errorf("cell %s of round %d: %s", c.ID, c.Rep, c.State)
		}
	}
}
