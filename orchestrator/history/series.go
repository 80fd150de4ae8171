package history

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/changepoint"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// Series is the runs of one identity over time (ignored fields left out),
// a point per campaign, and where its level changed.
type Series struct {
	Key string `json:"key"`
	// Identity is the newest run's.
	Identity      Identity `json:"identity"`
	LowerIsBetter bool     `json:"lower_is_better"`
	Points        []Point  `json:"points"`
	Changes       []Change `json:"change_points"`
	// Merged names the ignored fields whose values differ among the
	// series' runs: what --ignore put together.
	Merged []string `json:"merged,omitempty"`
	runs   []Entry
}

// Point is one campaign's runs of the series: their steady figures'
// mean and 95% interval (stats.Describe, as the report describes a
// configuration), its start, and its report.
type Point struct {
	Campaign string       `json:"campaign"`
	Start    time.Time    `json:"start"`
	Sample   stats.Sample `json:"-"`
	// Runs counts every run, Sample.N those in the statistics.
	Runs   int      `json:"runs"`
	Report string   `json:"report,omitempty"`
	Dirs   []string `json:"dirs"`
}

// MarshalJSON writes the point with its sample's figures (null where
// there is none: JSON has no NaN).
func (p Point) MarshalJSON() ([]byte, error) {
	type plain Point
	return json.Marshal(struct {
		plain
		N      int      `json:"n"`
		Mean   *float64 `json:"mean_metric"`
		CILow  *float64 `json:"ci95_low_metric"`
		CIHigh *float64 `json:"ci95_high_metric"`
	}{plain(p), p.Sample.N, finite(p.Sample.Mean), finite(p.Sample.CILow), finite(p.Sample.CIHigh)})
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// Change is a change point: the first point of the new level, the levels
// (means over runs) of the segments either side, the permutation p, and
// what else changed between the last run before and the first after.
type Change struct {
	At       int      `json:"point"`
	Campaign string   `json:"campaign"`
	Before   float64  `json:"before_metric"`
	After    float64  `json:"after_metric"`
	Relative float64  `json:"relative"`
	P        float64  `json:"p"`
	Worse    bool     `json:"worse"`
	What     []string `json:"what_changed,omitempty"`
}

// Build groups entries into series (identity without the ignored fields),
// points by campaign in time order, and finds each series' change points
// over its runs, splits falling only between campaigns.
func Build(entries []Entry, ignore []string, o changepoint.Options) []*Series {
	byKey := map[string]*Series{}
	var out []*Series
	for _, e := range entries {
		k := e.Identity.Key(ignore)
		s := byKey[k]
		if s == nil {
			s = &Series{Key: k}
			byKey[k] = s
			out = append(out, s)
		}
		s.runs = append(s.runs, e)
	}
	for _, s := range out {
		s.build(ignore, o)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Identity, out[j].Identity
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		return out[i].Points[0].Start.Before(out[j].Points[0].Start)
	})
	return out
}

func (s *Series) build(ignore []string, o changepoint.Options) {
	sort.SliceStable(s.runs, func(i, j int) bool { return s.runs[i].Start.Before(s.runs[j].Start) })
	last := s.runs[len(s.runs)-1]
	s.Identity, s.LowerIsBetter = last.Identity, last.LowerIsBetter
	for _, f := range ignore {
		for _, e := range s.runs {
			if e.Identity.field(f) != last.Identity.field(f) && !slices.Contains(s.Merged, f) {
				s.Merged = append(s.Merged, f)
			}
		}
	}
	// Points: a campaign's runs, in the order campaigns first ran.
	at := map[string]int{}
	var vals [][]float64
	for _, e := range s.runs {
		i, ok := at[e.Campaign]
		if !ok {
			i = len(s.Points)
			at[e.Campaign] = i
			s.Points = append(s.Points, Point{Campaign: e.Campaign, Start: e.Start, Report: reportOf(e.Dir)})
			vals = append(vals, nil)
		}
		p := &s.Points[i]
		p.Runs++
		p.Dirs = append(p.Dirs, e.Dir)
		if e.Usable() {
			vals[i] = append(vals[i], e.Value)
		}
	}
	var xs []float64
	var blocks []int
	for i := range s.Points {
		s.Points[i].Sample = stats.Describe(vals[i])
		for _, v := range vals[i] {
			xs = append(xs, v)
			blocks = append(blocks, i)
		}
	}
	h := fnv.New64a()
	h.Write([]byte(s.Key))
	o.Seed = h.Sum64()
	for _, c := range changepoint.Detect(xs, blocks, o) {
		p := blocks[c.Index]
		ch := Change{At: p, Campaign: s.Points[p].Campaign, Before: c.Before, After: c.After, Relative: c.Relative(), P: c.P}
		ch.Worse = (ch.Relative < 0) != s.LowerIsBetter
		ch.What = s.whatChanged(s.Points[blocks[c.Index-1]].Campaign, s.Points[p].Campaign)
		s.Changes = append(s.Changes, ch)
	}
}

// whatChanged compares the last run of campaign a with the first of b:
// identity fields (those --ignore merged) and the context (hosts, kernel,
// orch, the master's option file).
func (s *Series) whatChanged(a, b string) []string {
	var ea, eb *Entry
	for i := range s.runs {
		switch s.runs[i].Campaign {
		case a:
			ea = &s.runs[i]
		case b:
			if eb == nil {
				eb = &s.runs[i]
			}
		}
	}
	if ea == nil || eb == nil {
		return nil
	}
	out := Diff(ea.Identity, eb.Identity, nil)
	keys := make([]string, 0, len(eb.Context))
	for k := range eb.Context {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		va, vb := ea.Context[k], eb.Context[k]
		if va == vb {
			continue
		}
		if k == "master config" {
			out = append(out, configDiff(va, vb)...)
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s -> %s", k, orNone(va), orNone(vb)))
	}
	return out
}

// configDiff names the option-file lines one side has and the other not.
// Comments are left out: they set nothing (orch's own "# overrides: ...
// --knob ..." restates the knobs, which the identity names already).
func configDiff(a, b string) []string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for _, l := range lb {
		if setting(l) && !slices.Contains(la, l) {
			out = append(out, "master config: +"+l)
		}
	}
	for _, l := range la {
		if setting(l) && !slices.Contains(lb, l) {
			out = append(out, "master config: -"+l)
		}
	}
	return out
}

// setting: an option-file line that is not blank nor a comment.
func setting(line string) bool {
	l := strings.TrimSpace(line)
	return l != "" && l[0] != '#' && l[0] != ';'
}

// reportOf is the report that covers a run: its own report.html, else its
// matrix's.
func reportOf(dir string) string {
	for _, d := range []string{dir, filepath.Dir(filepath.Dir(dir))} {
		p := filepath.Join(d, "report.html")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Regression is the series' latest change point when it is for the worse
// by more than threshold (0.05: 5%) and began within the newest within
// points; nil otherwise.
func (s *Series) Regression(threshold float64, within int) *Change {
	if len(s.Changes) == 0 {
		return nil
	}
	c := s.Changes[len(s.Changes)-1]
	if !c.Worse || math.Abs(c.Relative) <= threshold || c.At < len(s.Points)-within {
		return nil
	}
	return &c
}

// Find is the series whose key starts with prefix; an error lists the
// candidates when none or several do.
func Find(series []*Series, prefix string) (*Series, error) {
	var hits []*Series
	for _, s := range series {
		if strings.HasPrefix(s.Key, prefix) {
			hits = append(hits, s)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return nil, fmt.Errorf("no series %q (orch history lists them)", prefix)
	}
	var keys []string
	for _, s := range hits {
		keys = append(keys, s.Key)
	}
	return nil, fmt.Errorf("series %q is ambiguous: %s", prefix, strings.Join(keys, ", "))
}
