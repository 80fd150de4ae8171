package analyse

import (
	"fmt"

	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// Analysis is how a table's comparisons are analysed, chosen before the
// data: a matrix runs every configuration once per round (and on every
// cluster), so rounds and clusters are blocks and the design calls for
// the blocked analysis; matrix.json records the one `orch matrix
// --analysis` pre-registered instead, and `orch report --analysis` may
// choose only for inputs that recorded none (said so in the Method).
type Analysis struct {
	// Asked is the analysis asked for ("" : the design's).
	Asked string
	// From says who asked: FileMatrix, "--analysis", or "" (the design).
	From string
	// Used is what the comparisons were analysed with
	// (stats.AnalysisBlocked or stats.AnalysisUnpaired).
	Used string
}

// CheckAnalysis refuses an --analysis that contradicts the one the
// matrix pre-registered: choosing the analysis after seeing the data
// would make its error rates dishonest.
func CheckAnalysis(in *load.Input, opts Options) error {
	if err := stats.ValidAnalysis(opts.Analysis); err != nil {
		return &load.InputError{Err: err}
	}
	if opts.Analysis != "" && in.Analysis != "" && opts.Analysis != in.Analysis {
		return &load.InputError{Path: "--analysis " + opts.Analysis, Err: fmt.Errorf("the matrix pre-registered --analysis %s in %s; a report cannot choose another after the data", in.Analysis, load.FileMatrix)}
	}
	return nil
}

// AnalysisOf is the analysis asked for the input's tables.
func AnalysisOf(in *load.Input, opts Options) Analysis {
	switch {
	case in.Analysis != "":
		return Analysis{Asked: in.Analysis, From: load.FileMatrix}
	case opts.Analysis != "":
		return Analysis{Asked: opts.Analysis, From: "--analysis"}
	}
	return Analysis{}
}

// CiMethod names how the analysis's intervals are computed, for
// noise-floor.json's ci_method: "blocked" (t on the rounds' log ratios)
// or "Fieller".
func (a Analysis) CiMethod() string {
	if a.Used == stats.AnalysisBlocked {
		return stats.AnalysisBlocked
	}
	return "Fieller"
}

// Options tune a report.
type Options struct {
	// Baseline is the label others are compared with; default: the
	// matrix's baseline, else the first label of each table.
	Baseline string
	// WarmupS, when not nil, overrides the warm-up detected per run.
	WarmupS *float64
	// Headline is the figure verdicts lead with: HeadlineMaster,
	// HeadlineSustained or HeadlineBoth (the default, "").
	Headline string
	// AllowMixed compares runs whose servers (flavour or major.minor
	// version), workload parameters, client or topology differ (labelled
	// as such) instead of refusing.
	AllowMixed bool
	// NoiseFloor is an A/A matrix directory whose noise floor the verdicts
	// are held against (default: the one the matrix names).
	NoiseFloor string
	// Labels group inputs explicitly (--label NAME=GLOB, load_group.go).
	Labels []load.LabelGlob
	// Analysis is --analysis (stats.AnalysisBlocked or
	// stats.AnalysisUnpaired) for inputs whose matrix.json pre-registered
	// none; "" leaves it to the design (analysis.go).
	Analysis string
}
