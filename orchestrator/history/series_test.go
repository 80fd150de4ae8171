package history

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/changepoint"
)

// knobHistory is 8 campaigns of 3 runs; from campaign 6 the knob
// innodb_flush_log_at_trx_commit=2 raises the rate by 30%, and from
// campaign 7 a new kernel comes with it. The noise is a fixed wobble of
// about 2%.
func knobHistory() []Entry {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	wobble := []float64{0.98, 1.01, 1.02, 0.99, 1.0, 1.015, 0.985}
	var out []Entry
	k := 0
	for c := 0; c < 8; c++ {
		for r := 0; r < 3; r++ {
			id := Identity{Workload: "pure-random-writes", Metric: "writes/s", Engine: "innodb", Version: "MariaDB 10.11.19"}
			level := 1000.0
			kernel := "Linux 6.1"
			if c >= 5 {
				id.Knobs, level = "innodb_flush_log_at_trx_commit=2", 1300
			}
			if c >= 6 {
				kernel = "Linux 6.18"
			}
			out = append(out, Entry{Key: fmt.Sprint(k), Identity: id, Start: t0.Add(time.Duration(k) * time.Minute), Campaign: fmt.Sprintf("m%d", c),
				Value: level * wobble[k%len(wobble)], State: "ok", Context: map[string]string{"kernel": kernel}})
			k++
		}
	}
	return out
}

func TestSeriesSplitUnlessIgnored(t *testing.T) {
	es := knobHistory()
	split := Build(es, nil, changepoint.Options{})
	if len(split) != 2 {
		t.Fatalf("%d series, want 2 (knobs differ)", len(split))
	}
	var out bytes.Buffer
	WriteTable(&out, split, nil)
	if !strings.Contains(out.String(), "differ only in knobs: (none) -> innodb_flush_log_at_trx_commit=2; --ignore knobs makes them one") {
		t.Errorf("the table does not say what --ignore would merge:\n%s", out.String())
	}
	merged := Build(es, []string{"knobs"}, changepoint.Options{})
	if len(merged) != 1 {
		t.Fatalf("--ignore knobs: %d series, want 1", len(merged))
	}
	s := merged[0]
	if len(s.Points) != 8 || len(s.Changes) != 1 {
		t.Fatalf("%d points, change points %+v; want 8 points, one change", len(s.Points), s.Changes)
	}
	c := s.Changes[0]
	if c.At != 5 || c.Campaign != "m5" || c.Worse || c.Relative < 0.25 || c.Relative > 0.35 {
		t.Errorf("change %+v, want at m5, +30%%, not worse", c)
	}
	if len(c.What) != 1 || c.What[0] != "knobs: (none) -> innodb_flush_log_at_trx_commit=2" {
		t.Errorf("what changed: %q, want the knob alone (the kernel changed a campaign later)", c.What)
	}
	out.Reset()
	WriteTable(&out, merged, []string{"knobs"})
	for _, want := range []string{"merged across knobs (--ignore)", "series " + s.Key + " merges runs whose knobs differ", "latest at m5 +30"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	WriteSeries(&out, s)
	if !strings.Contains(out.String(), "changed there: knobs: (none) -> innodb_flush_log_at_trx_commit=2") {
		t.Errorf("series view:\n%s", out.String())
	}
}

func TestRegressionCheck(t *testing.T) {
	es := knobHistory()
	for i := range es { // the other way round: the knob made it slower
		es[i].Value = 2300 - es[i].Value
	}
	s := Build(es, []string{"knobs"}, changepoint.Options{})
	var out bytes.Buffer
	if n := WriteRegressions(&out, s, 0.05, 5); n != 1 || !strings.Contains(out.String(), "REGRESSION "+s[0].Key) || !strings.Contains(out.String(), "innodb_flush_log_at_trx_commit=2") {
		t.Errorf("%d regressions:\n%s", n, out.String())
	}
	if n := WriteRegressions(&out, s, 0.50, 5); n != 0 {
		t.Errorf("a -23%% change flagged beyond a 50%% threshold")
	}
	if n := WriteRegressions(&out, s, 0.05, 2); n != 0 {
		t.Errorf("a change 3 points back flagged with --within 2")
	}
}

// The master's option file names what changed, its settings only: orch's
// comment restating the knobs (as the lab's files have it) is no setting.
func TestConfigDiffSettingsOnly(t *testing.T) {
	a := "[mysqld]\n# overrides: --knob innodb_flush_log_at_trx_commit=2\ninnodb_flush_log_at_trx_commit = 2\nsync_binlog = 1\n"
	b := "[mysqld]\n# overrides: --knob innodb_flush_log_at_trx_commit=1\ninnodb_flush_log_at_trx_commit = 1\nsync_binlog = 1\n; a note\n"
	got := strings.Join(configDiff(a, b), " | ")
	if want := "master config: +innodb_flush_log_at_trx_commit = 1 | master config: -innodb_flush_log_at_trx_commit = 2"; got != want {
		t.Errorf("configDiff: %q, want %q", got, want)
	}
}

// --knob NAME or NAME=VALUE matches a knob, not a piece of one.
func TestHasKnob(t *testing.T) {
	knobs := "sync_binlog=10 innodb_flush_log_at_trx_commit=2"
	for knob, want := range map[string]bool{
		"sync_binlog": true, "sync_binlog=10": true, "sync_binlog=1": false, "log=1": false,
		"innodb_flush_log_at_trx_commit=2": true, "innodb_flush_log_at_trx_commit": true, "flush": false,
	} {
		if got := hasKnob(knobs, knob); got != want {
			t.Errorf("--knob %s on %q: %v, want %v", knob, knobs, got, want)
		}
	}
}

// --since and --until: dates, times and ages back from now; anything else
// (a fraction of a day, a negative age, a word) is refused, not read in part.
func TestParseDate(t *testing.T) {
	if got, err := ParseDate("2026-12-06"); err != nil || !got.Equal(time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("a date: %v, %v", got, err)
	}
	if got, err := ParseDate("7d"); err != nil || time.Since(got) < 7*24*time.Hour-time.Minute || time.Since(got) > 7*24*time.Hour+time.Minute {
		t.Errorf("7d: %v, %v", got, err)
	}
	if got, err := ParseDate("36h"); err != nil || time.Since(got) < 36*time.Hour-time.Minute {
		t.Errorf("36h: %v, %v", got, err)
	}
	for _, bad := range []string{"1.5d", "-3d", "-2h", "last tuesday", "d"} {
		if got, err := ParseDate(bad); err == nil {
			t.Errorf("%q read as %v, want an error", bad, got)
		}
	}
}

// Diff keeps what differs of a long field: the words of params and knobs,
// the parts of the others (a version keeps its flavour's name).
func TestDiffNamesTheDifference(t *testing.T) {
	a := Identity{Workload: "w", Params: "tables=4 threads=16 time_s=20", Version: "MariaDB 10.11.19", Knobs: "sync_binlog=1"}
	b := Identity{Workload: "w", Params: "tables=4 threads=8 time_s=20", Version: "MariaDB 10.5.23; TokuDB 5.6.49-89.0", Knobs: "sync_binlog=1"}
	got := strings.Join(Diff(a, b, nil), " | ")
	if want := "params: threads=16 -> threads=8 | version: MariaDB 10.11.19 -> MariaDB 10.5.23; TokuDB 5.6.49-89.0"; got != want {
		t.Errorf("Diff: %q, want %q", got, want)
	}
	b.Version = "MariaDB 10.5.23"
	if got := Diff(a, b, []string{"params"}); len(got) != 1 || got[0] != "version: MariaDB 10.11.19 -> MariaDB 10.5.23" {
		t.Errorf("Diff of versions: %q", got)
	}
}
