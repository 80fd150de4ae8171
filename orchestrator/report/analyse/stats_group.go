package analyse

import (
	"math"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// Stats are a configuration's noise figures, its comparison with the
// baseline beyond the mean ratio, and its replicas.
type Stats struct {
	// Median of the steady-state rates; CV their coefficient of variation;
	// Noisy when CV > MaxCV.
	Median, CV float64
	Noisy      bool
	// RatioCI is Fieller's 95% interval of Ratio (nil: RatioCIErr says why).
	RatioCI    *RatioCI
	RatioCIErr error
	// judged is the judge's status of the comparison (stats.Rule.Evaluate,
	// Table.compare); nil for the baseline and a comparison without runs.
	Judged *stats.Status
	// UTest is the Mann-Whitney test against the baseline, with at least
	// MinMannWhitney runs on both sides.
	UTest *UTest
	// RepsNeeded is how many runs per configuration would resolve the
	// observed difference (0: not computed); set when the difference is
	// not significant or either side is noisy, under the analysis that
	// judged it (stats.Rule.RunsNeeded: rounds when blocked).
	RepsNeeded int
	// needed is the judge's RunsNeeded, whatever the outcome.
	Needed int

	// Replica holds the means of the runs' replica figures.
	Replica load.ReplicaFigures
	// KeptUp: none of the configuration's runs fell behind (each judged
	// on its own: ReplicaFigures.KeptUp, ReplicaRuns), never its mean
	// figures; each run's own judgement is in results.csv.
	KeptUp      bool
	ReplicaRuns ReplicaRuns
	// Sustained are the runs' sustained cluster rates, SustainedRate their
	// description; SustainedRatio/SustainedCI compare them with the
	// baseline's, ApplyRatio the slowest replicas' apply rates.
	Sustained      []float64
	SustainedRate  Sample
	SustainedRatio float64
	SustainedCI    *RatioCI
	SustainedCIErr error
	ApplyRatio     float64
	// Warmups are the runs' warm-ups (seconds), in the statistics' order.
	Warmups []float64
	// Footprint: means of the runs' tables on disk (the run's engine),
	// binary and relay logs (bytes), and space amplification.
	DiskBytes, BinlogBytes, RelayBytes, SpaceAmp float64
}

// Headline choices (Options.Headline).
const (
	HeadlineBoth      = "both"
	HeadlineMaster    = "master"
	HeadlineSustained = "sustained"
)

// rowBytes are the logical bytes of one row of a workload's tables, where
// the test's schema is known: sysbench's oltp_* tables are id INT (4),
// k INT (4), c CHAR(120), pad CHAR(60) (sysbench oltp_common.lua).
var rowBytes = map[string]float64{"sysbench oltp": 4 + 4 + 120 + 60}

// SpaceAmp is the run's tables on disk over the logical bytes of its rows
// (NaN when either is unknown).
func SpaceAmp(r *load.Run) float64 {
	var tool, test string
	for _, p := range r.Params {
		switch p.Name {
		case "tool":
			tool = p.Value
		case "test":
			test = p.Value
		}
	}
	per, ok := rowBytes[tool+" "+strings.SplitN(test, "_", 2)[0]]
	if !ok || math.IsNaN(r.Health.Rows) || r.Health.Rows <= 0 {
		return math.NaN()
	}
	return r.Health.DiskBytes / (r.Health.Rows * per)
}

// MeanFigures averages each figure over the runs that have it.
func MeanFigures(fs []load.ReplicaFigures) load.ReplicaFigures {
	out := EmptyReplicaFigures()
	pick := []func(*load.ReplicaFigures) *float64{
		func(f *load.ReplicaFigures) *float64 { return &f.MasterTxPS },
		func(f *load.ReplicaFigures) *float64 { return &f.ApplyTxPS },
		func(f *load.ReplicaFigures) *float64 { return &f.LagEndTx },
		func(f *load.ReplicaFigures) *float64 { return &f.LagEndS },
		func(f *load.ReplicaFigures) *float64 { return &f.LagGrowthTxPS },
		func(f *load.ReplicaFigures) *float64 { return &f.CatchUpS },
		func(f *load.ReplicaFigures) *float64 { return &f.RunS },
		func(f *load.ReplicaFigures) *float64 { return &f.Sustained },
	}
	for _, p := range pick {
		var xs []float64
		for i := range fs {
			xs = append(xs, *p(&fs[i]))
		}
		*p(&out) = load.MeanOf(xs)
	}
	var worst, slowest []string
	for _, f := range fs {
		out.NotCaughtUp = out.NotCaughtUp || f.NotCaughtUp
		out.Has = out.Has || f.Has
		if f.Worst != "" && !slices.Contains(worst, f.Worst) {
			worst = append(worst, f.Worst)
		}
		if f.Slowest != "" && !slices.Contains(slowest, f.Slowest) {
			slowest = append(slowest, f.Slowest)
		}
	}
	// Each run's own worst slave: named, several when the runs differ.
	slices.Sort(worst)
	slices.Sort(slowest)
	out.Worst, out.Slowest = strings.Join(worst, "/"), strings.Join(slowest, "/")
	return out
}
