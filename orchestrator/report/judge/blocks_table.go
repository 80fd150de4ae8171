package judge

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// ClusterSection is a table's comparisons with the cluster as blocking
// factor; nil on a table whose runs come from one cluster.
type ClusterSection struct {
	Design   *load.ClusterDesign
	Clusters []string
	Groups   []BlockedGroup
	Header   []string
	Rows     [][]string
	Warnings []string
	// Notes introduce the table: the method, the seed, what happened to
	// the clusters.
	Notes []string
	// analysis names how each cluster's row is computed.
	analysis string
}

// BlockedGroup is one configuration compared with the baseline within and
// across clusters.
type BlockedGroup struct {
	Label string
	analyse.Blocked
}

// clusters lists the clusters of the table's runs, in order of first run.
func (t *Table) clusters() []string {
	var out []string
	for _, r := range t.Runs {
		if r.Cluster != "" && !slices.Contains(out, r.Cluster) {
			out = append(out, r.Cluster)
		}
	}
	return out
}

// compareBlocked replaces, when the table's runs come from several
// clusters, each group's comparison with the baseline by the blocked one
// (ratio within each cluster, combined across them): ratio, test and
// verdict then say what the design supports. With one cluster the table
// is left exactly as compare made it.
func (t *Table) compareBlocked(design *load.ClusterDesign) {
	clusters := t.clusters()
	if t.Baseline == nil {
		return
	}
	sec := &ClusterSection{Design: design, Clusters: clusters,
		analysis: "ratio of means, Fieller's 95% CI, Welch's p"}
	if t.rule().AnalysisOf(t.blocked()) == stats.AnalysisBlocked {
		sec.analysis = "its rounds' log ratios: their geometric mean, Student's t over the rounds"
	}
	if len(clusters) < 2 {
		// One cluster ran everything (the others were taken out): the
		// plain analysis, and the notes that say why.
		if design != nil && len(design.Notes) > 0 {
			sec.Notes = sec.notes()
			t.Blocks = sec
		}
		return
	}
	steady := func(g *Group, cluster string) []float64 {
		var out []float64
		for _, r := range g.Runs {
			if r.Cluster == cluster && r.Usable() {
				v, _ := t.SteadyOf(r)
				out = append(out, v)
			}
		}
		return out
	}
	for _, g := range t.Groups {
		if g == t.Baseline {
			continue
		}
		var pairs []analyse.ClusterPair
		for _, c := range clusters {
			pairs = append(pairs, analyse.ClusterPair{Cluster: c, Base: steady(t.Baseline, c), Other: steady(g, c)})
		}
		bl := analyse.CompareBlocked(pairs)
		t.JudgeClusters(g, bl.Clusters)
		// The combined row is the comparison's own (Table.compare: the
		// one judge, over the clusters as blocks), so the answer, this
		// table and configurations.csv print one interval and one p.
		bl.Ratio, bl.Test, bl.TestErr = g.Ratio, g.Test, g.TestErr
		bl.CILow, bl.CIHigh = math.NaN(), math.NaN()
		if g.RatioCI != nil {
			bl.CILow, bl.CIHigh = g.RatioCI.Low, g.RatioCI.High
		}
		sec.Groups = append(sec.Groups, BlockedGroup{Label: g.Label, Blocked: bl})
		if g.Verdict != "" && len(g.NoEffect) == 0 && g.Rate.N > 0 && t.Baseline.Rate.N > 0 {
			g.Verdict += fmt.Sprintf(" — combined over %d clusters", bl.Used)
		}
		if bl.Warning != "" {
			sec.Warnings = append(sec.Warnings, g.Label+": "+bl.Warning)
		}
	}
	sec.Header, sec.Rows = t.blockedRows(sec)
	sec.Notes = sec.notes()
	t.Blocks = sec
}

// JudgeClusters sets each cluster's ratio, interval and test by the
// analysis the combined row is judged with (Table.rule: blocked, each of
// the cluster's rounds' log ratios; unpaired, the ratio of the means,
// Fieller and Welch), so that the combined ratio is the geometric mean of
// the rows above it.
func (t *Table) JudgeClusters(g *Group, cs []analyse.ClusterRatio) {
	blocked := t.rule().AnalysisOf(t.blocked()) == stats.AnalysisBlocked
	pick := func(h *Group, cluster string) ([]float64, []stats.Block) {
		var xs []float64
		var bs []stats.Block
		for i, b := range h.Blocks {
			if b.Cluster == cluster && i < len(h.Steady) {
				xs, bs = append(xs, h.Steady[i]), append(bs, b)
			}
		}
		return xs, bs
	}
	for i := range cs {
		c := &cs[i]
		if !blocked || c.Base.N == 0 || c.Other.N == 0 {
			continue // unpaired: compareWithin's ratio of means, Fieller, Welch
		}
		o, ob := pick(g, c.Cluster)
		b, bb := pick(t.Baseline, c.Cluster)
		s := t.rule().At(stats.Comparison{Other: o, Base: b, OtherBlocks: ob, BaseBlocks: bb}, analyse.Alpha)
		c.Ratio, c.Test, c.TestErr, c.CILow, c.CIHigh = s.Ratio, nil, s.Err, math.NaN(), math.NaN()
		if s.Test != nil {
			c.Test = &analyse.TTest{T: s.Test.T, DF: s.Test.DF, P: s.Test.P}
			if s.Err == nil && !s.Interval.Unbounded {
				c.CILow, c.CIHigh = s.Interval.Low, s.Interval.High
			}
		}
	}
}

// blockedRows is the by-cluster table: per configuration, one row per
// cluster (its runs, means, ratio with its interval and p by the table's analysis),
// then the combined row (geometric mean of the clusters' ratios, its
// interval across clusters, the t-test over their log ratios).
func (t *Table) blockedRows(sec *ClusterSection) ([]string, [][]string) {
	header := []string{"configuration", "cluster", "n baseline / n", "baseline " + t.Metric, t.Metric, "ratio", "95% CI", "p"}
	var rows [][]string
	for _, g := range sec.Groups {
		for _, c := range g.Clusters {
			rows = append(rows, []string{g.Label, c.Cluster, strconv.Itoa(c.Base.N) + " / " + strconv.Itoa(c.Other.N),
				analyse.Num(c.Base.Mean, 2), analyse.Num(c.Other.Mean, 2), analyse.Ratio(c.Ratio), ratioCI(c.CILow, c.CIHigh), Significance(c.Test, c.TestErr)})
		}
		rows = append(rows, []string{g.Label, fmt.Sprintf("combined (%d clusters)", g.Used), "", "", "",
			analyse.Ratio(g.Ratio), ratioCI(g.CILow, g.CIHigh), Significance(g.Test, g.TestErr)})
	}
	return header, rows
}

func ratioCI(lo, hi float64) string {
	if lo != lo || hi != hi { // NaN
		return "—"
	}
	return analyse.Ratio(lo) + "–" + analyse.Ratio(hi)
}

// notes are the lines that introduce the by-cluster table.
func (sec *ClusterSection) notes() []string {
	var out []string
	if len(sec.Clusters) < 2 {
		out = append(out, fmt.Sprintf("Every run that counts ran on %s: the comparisons above are within that cluster.", strings.Join(sec.Clusters, ", ")))
	} else {
		out = append(out, fmt.Sprintf("Runs on %d clusters (%s), each running every configuration the same number of times: "+
			"each cluster's row compares its runs alone by the combined row's analysis (%s); "+
			"the combined row is the comparison the answer and configurations.csv print, with the clusters as blocks (see Analysis in the Method).",
			len(sec.Clusters), strings.Join(sec.Clusters, ", "), sec.analysis))
	}
	if d := sec.Design; d != nil {
		out = append(out, fmt.Sprintf("Each cluster's order was randomised with seed %d (orch matrix --seed %d reproduces it).", d.Seed, d.Seed))
		out = append(out, d.Notes...)
	}
	return out
}
