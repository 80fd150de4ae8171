package matrix

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/server"
)

var syncBinlog = Axis{Name: "sync_binlog", Values: []string{"0", "1"}}

func ids(cells []Cell) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = c.ID
	}
	return out
}

func TestPlanOrder(t *testing.T) {
	cells := Plan([]string{"innodb", "rocksdb"}, []Axis{syncBinlog}, 2)
	want := []string{
		"1-innodb-sync_binlog=0-r1", "2-innodb-sync_binlog=1-r1",
		"3-rocksdb-sync_binlog=0-r1", "4-rocksdb-sync_binlog=1-r1",
		// round 2 starts on the engine round 1 ended on
		"5-rocksdb-sync_binlog=0-r2", "6-rocksdb-sync_binlog=1-r2",
		"7-innodb-sync_binlog=0-r2", "8-innodb-sync_binlog=1-r2",
	}
	for i := range want {
		want[i] = "0" + want[i]
	}
	if got := ids(cells); !reflect.DeepEqual(got, want) {
		t.Fatalf("ids\n got %q\nwant %q", got, want)
	}
	if got := EngineSwitches(cells); got != 2 {
		t.Errorf("EngineSwitches = %d, want 2 (one inside each round, none between)", got)
	}
	c := cells[2]
	wantCell := Cell{ID: "03-rocksdb-sync_binlog=0-r1", Label: "rocksdb sync_binlog=0", Engine: "rocksdb",
		Knobs: []KV{{Name: "sync_binlog", Value: "0"}}, Rep: 1, State: Pending, Dir: "cells/03-rocksdb-sync_binlog=0-r1"}
	if !reflect.DeepEqual(c, wantCell) {
		t.Errorf("cell 3\n got %+v\nwant %+v", c, wantCell)
	}
}

func TestPlanProductLastKnobFastest(t *testing.T) {
	cells := Plan([]string{"innodb"}, []Axis{syncBinlog, {Name: "binlog_order_commits", Values: []string{"ON", "OFF"}}}, 1)
	want := []string{
		"innodb sync_binlog=0 binlog_order_commits=ON",
		"innodb sync_binlog=0 binlog_order_commits=OFF",
		"innodb sync_binlog=1 binlog_order_commits=ON",
		"innodb sync_binlog=1 binlog_order_commits=OFF",
	}
	if got := Labels(cells); !reflect.DeepEqual(got, want) {
		t.Errorf("labels\n got %q\nwant %q", got, want)
	}
	if got := cells[0].ID; got != "01-innodb-sync_binlog=0-binlog_order_commits=ON-r1" {
		t.Errorf("first id = %s", got)
	}
	if got, want := serverKnobs(&cells[1]), []server.KV{{Name: "sync_binlog", Value: "0"}, {Name: "binlog_order_commits", Value: "OFF"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("ServerKnobs = %+v, want %+v", got, want)
	}
	// Knob slices must not share storage: changing one cell leaves the others.
	cells[0].Knobs[0].Value = "changed"
	if cells[1].Knobs[0].Value != "0" {
		t.Errorf("cells share knob storage: cell 2 knobs %+v", cells[1].Knobs)
	}
}

// TestPlanInterleavesAndMinimisesSwitches checks, over many shapes, that
// every round holds every label once (A B C A B C), and that the plan has
// the fewest engine switches possible: a round runs every engine, so it
// has at least engines-1 switches inside it.
func TestPlanInterleavesAndMinimisesSwitches(t *testing.T) {
	engineSets := [][]string{{"innodb"}, {"innodb", "rocksdb"}, {"innodb", "rocksdb", "tokudb"}}
	axisSets := [][]Axis{nil, {syncBinlog}, {syncBinlog, {Name: "b", Values: []string{"x", "y", "z"}}}}
	for _, engines := range engineSets {
		for _, axes := range axisSets {
			for repeat := 1; repeat <= 4; repeat++ {
				name := fmt.Sprintf("%d engines x %d axes x %d", len(engines), len(axes), repeat)
				cells := Plan(engines, axes, repeat)
				labels := Labels(cells)
				nLabels := len(engines)
				for _, ax := range axes {
					nLabels *= len(ax.Values)
				}
				if len(labels) != nLabels || len(cells) != nLabels*repeat {
					t.Fatalf("%s: %d labels, %d cells; want %d, %d", name, len(labels), len(cells), nLabels, nLabels*repeat)
				}
				for r := 0; r < repeat; r++ {
					round := cells[r*nLabels : (r+1)*nLabels]
					seen := map[string]bool{}
					for _, c := range round {
						if c.Rep != r+1 || seen[c.Label] {
							t.Fatalf("%s: round %d is not every label once: %q", name, r+1, ids(round))
						}
						seen[c.Label] = true
					}
				}
				if got, min := EngineSwitches(cells), repeat*(len(engines)-1); got != min {
					t.Errorf("%s: %d engine switches, want the minimum %d", name, got, min)
				}
			}
		}
	}
}

// TestPlanSwitchesMatchBruteForce confirms the minimum on small shapes by
// trying every order of every round.
func TestPlanSwitchesMatchBruteForce(t *testing.T) {
	for _, tc := range []struct {
		engines []string
		axes    []Axis
		repeat  int
	}{
		{[]string{"innodb", "rocksdb"}, []Axis{syncBinlog}, 2},
		{[]string{"innodb", "rocksdb", "tokudb"}, nil, 3},
	} {
		cells := Plan(tc.engines, tc.axes, tc.repeat)
		n := len(Labels(cells))
		best := bruteForceMinSwitches(cells[:n], tc.repeat)
		if got := EngineSwitches(cells); got != best {
			t.Errorf("%v x %d: plan has %d switches, brute force finds %d", tc.engines, tc.repeat, got, best)
		}
	}
}

// bruteForceMinSwitches is the fewest engine switches over every sequence
// of rounds, each round any permutation of round.
func bruteForceMinSwitches(round []Cell, repeat int) int {
	var perms [][]string
	var permute func(cur []string, rest []string)
	permute = func(cur, rest []string) {
		if len(rest) == 0 {
			perms = append(perms, append([]string(nil), cur...))
			return
		}
		for i := range rest {
			next := append(append([]string(nil), rest[:i]...), rest[i+1:]...)
			permute(append(cur, rest[i]), next)
		}
	}
	var engines []string
	for _, c := range round {
		engines = append(engines, c.Engine)
	}
	permute(nil, engines)
	best := -1
	var walk func(r int, last string, switches int)
	walk = func(r int, last string, switches int) {
		if r == repeat {
			if best < 0 || switches < best {
				best = switches
			}
			return
		}
		for _, p := range perms {
			s := switches
			for i, e := range p {
				if (i > 0 && e != p[i-1]) || (i == 0 && last != "" && e != last) {
					s++
				}
			}
			walk(r+1, p[len(p)-1], s)
		}
	}
	walk(0, "", 0)
	return best
}

func TestPlanIDsUniqueAndSafe(t *testing.T) {
	long := strings.Repeat("x", 300)
	axes := []Axis{
		{Name: "innodb_data_home_dir", Values: []string{"/var/lib/my sql", "../../etc"}},
		{Name: "long_one", Values: []string{long, long + "y"}},
		{Name: "c", Values: []string{"a", "A"}},
	}
	cells := Plan([]string{"innodb", "rocksdb"}, axes, 3)
	seen := map[string]bool{}
	for _, c := range cells {
		id := c.ID
		if seen[strings.ToLower(id)] {
			t.Errorf("id %s is not unique (even ignoring case)", id)
		}
		seen[strings.ToLower(id)] = true
		if len(id) > 200 || strings.ContainsAny(id, "/\\ :*?\"<>|") || strings.HasPrefix(id, ".") ||
			filepath.Base(id) != id || !filepath.IsLocal(c.Dir) {
			t.Errorf("id %q (dir %q) is not a safe path element", id, c.Dir)
		}
		if !strings.HasSuffix(id, fmt.Sprintf("-r%d", c.Rep)) {
			t.Errorf("id %q lost its repetition", id)
		}
	}
	// 48 cells: the position is two digits, so ids sort in execution order.
	if cells[9].ID[:3] != "10-" || cells[0].ID[:3] != "01-" {
		t.Errorf("positions: %s, %s", cells[0].ID, cells[9].ID)
	}
	if big := Plan([]string{"innodb"}, []Axis{{Name: "n", Values: strings.Split("1,2,3,4,5,6,7,8,9,10", ",")}}, 12); big[0].ID != "001-innodb-n=1-r1" {
		t.Errorf("120 cells: first id %s, want a three-digit position", big[0].ID)
	}
}

func TestPlanNoCells(t *testing.T) {
	if c := Plan(nil, []Axis{syncBinlog}, 2); c != nil {
		t.Errorf("no engines: %d cells", len(c))
	}
	if c := Plan([]string{"innodb"}, nil, 0); c != nil {
		t.Errorf("repeat 0: %d cells", len(c))
	}
	c := Plan([]string{"innodb"}, nil, 1)
	if len(c) != 1 || c[0].Label != "innodb" || c[0].ID != "01-innodb-r1" || c[0].Knobs == nil {
		t.Errorf("engine only: %+v", c)
	}
}

func TestDefaultBaseline(t *testing.T) {
	axes := []Axis{syncBinlog, {Name: "binlog_order_commits", Values: []string{"ON", "OFF"}}}
	if got, want := DefaultBaseline([]string{"rocksdb", "innodb"}, axes), "rocksdb sync_binlog=0 binlog_order_commits=ON"; got != want {
		t.Errorf("DefaultBaseline = %q, want %q", got, want)
	}
}

func TestEstimate(t *testing.T) {
	cells := Plan([]string{"innodb", "rocksdb", "tokudb"}, []Axis{syncBinlog}, 2) // 12 cells, 4 switches
	got := Estimate(cells, 5*time.Minute, 3*time.Minute)
	if want := 12*5*time.Minute + 4*3*time.Minute; got != want {
		t.Errorf("Estimate = %v, want %v", got, want)
	}
	if got := Estimate(nil, time.Minute, time.Minute); got != 0 {
		t.Errorf("Estimate(no cells) = %v", got)
	}
	// The longest workload over the largest plan: no wrap to a small or
	// negative figure.
	huge := Plan([]string{"innodb", "rocksdb"}, nil, MaxCells/2)
	if got := Estimate(huge, 30*24*time.Hour, time.Minute); got != math.MaxInt64 {
		t.Errorf("Estimate(%d cells x 30 days) = %v, want the saturated maximum", len(huge), got)
	}
}

// TestPlanLabelsOnlyVaryingKnobs: a knob with one value is set on every
// cell but named in no label (it tells no configuration apart; repeated in
// every label it made 171-character answer lines), and the default
// baseline is named the same way; a knob with several values is in every
// label.
func TestPlanLabelsOnlyVaryingKnobs(t *testing.T) {
	axes := []Axis{{Name: "innodb_flush_log_at_trx_commit", Values: []string{"1"}}, syncBinlog}
	cells := Plan([]string{"innodb", "rocksdb"}, axes, 1)
	var labels []string
	for _, c := range cells {
		labels = append(labels, c.Label)
		if len(c.Knobs) != 2 || c.Knobs[0] != (KV{Name: "innodb_flush_log_at_trx_commit", Value: "1"}) {
			t.Errorf("cell %s: knobs %v, want the one-valued knob set too", c.ID, c.Knobs)
		}
	}
	want := []string{"innodb sync_binlog=0", "innodb sync_binlog=1", "rocksdb sync_binlog=0", "rocksdb sync_binlog=1"}
	if !reflect.DeepEqual(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
	if b := DefaultBaseline([]string{"innodb", "rocksdb"}, axes); b != "innodb sync_binlog=0" {
		t.Errorf("default baseline %q", b)
	}
}

// TestConfigsKeepOlderLabels: a matrix planned by an older orch named a
// one-valued knob in its labels; a round added to it (a failed cluster's
// rounds moved) joins its configuration under the label it already has.
func TestConfigsKeepOlderLabels(t *testing.T) {
	m, err := New("pure-random-writes", []string{"innodb"}, []Axis{{Name: "sync_binlog", Values: []string{"1"}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.Cells[0].Label != "innodb" {
		t.Fatalf("label %q, want innodb", m.Cells[0].Label)
	}
	m.Cells[0].Label = "innodb sync_binlog=1" // as an older orch wrote it
	if c := m.configs(); len(c) != 1 || c[0].Label != "innodb sync_binlog=1" {
		t.Errorf("configs %+v, want the cells' own label", c)
	}
}
