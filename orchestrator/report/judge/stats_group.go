package judge

import (
	"errors"
	"math"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// describeMore adds the noise and replica figures of g's runs in the
// statistics.
func (t *Table) describeMore(g *Group) {
	g.Median, g.CV = load.Median(g.Steady), analyse.CV(g.Rate)
	g.Noisy = !math.IsNaN(g.CV) && g.CV > analyse.MaxCV
	var figs []load.ReplicaFigures
	var usable []*load.Run
	for _, r := range g.Runs {
		r.Repl = t.runReplicas(r)
		t.CheckInvariants(r)
		if !r.Usable() {
			continue
		}
		g.Warmups = append(g.Warmups, r.WarmupS)
		figs, usable = append(figs, r.Repl), append(usable, r)
		g.Sustained = append(g.Sustained, r.Repl.Sustained)
	}
	g.Replica = analyse.MeanFigures(figs)
	g.ReplicaRuns = JudgeRuns(usable)
	g.KeptUp = g.ReplicaRuns.Behind == 0
	g.SustainedRate = analyse.Describe(g.Sustained)
	var disk, binlog, relay, amp []float64
	for _, r := range g.Runs {
		if r.Usable() {
			h := r.Health
			disk, binlog, relay = append(disk, h.DiskBytes), append(binlog, h.BinlogBytes), append(relay, h.RelayBytes)
			amp = append(amp, analyse.SpaceAmp(r))
		}
	}
	g.DiskBytes, g.BinlogBytes, g.RelayBytes, g.SpaceAmp = load.MeanOf(disk), load.MeanOf(binlog), load.MeanOf(relay), load.MeanOf(amp)
}

// runReplicas is a run's replica figures in this table's metric, over
// its window.
func (t *Table) runReplicas(r *load.Run) load.ReplicaFigures {
	if r.Bench == nil {
		return analyse.EmptyReplicaFigures()
	}
	steady, _ := t.SteadyOf(r)
	f := analyse.ReplicaFigures(r, r.Win, steady)
	if t.LowerIsBetter && f.Has {
		// A time metric: the cluster is done when the slowest replica is.
		runS := r.Bench.DurationS
		f.RunS = runS
		f.Sustained = runS + f.CatchUpS
	}
	return f
}

// CompareWith sets g's comparison figures against the baseline b.
func (g *Group) CompareWith(b *Group) {
	level := analyse.Alpha
	if g.Test != nil {
		level = g.Test.DecidedAt()
	}
	switch {
	case g.Judged != nil && g.Test != nil:
		// The judge's interval (take).
	case g.TestErr != nil && errors.Is(g.TestErr, stats.ErrZeroBaseline):
		g.RatioCIErr = g.TestErr
	default:
		if ci, err := analyse.FiellerAt(g.Steady, b.Steady, level); err == nil {
			g.RatioCI = &ci
		} else {
			g.RatioCIErr = err
		}
	}
	if len(load.Finite(g.Steady)) >= analyse.MinMannWhitney && len(load.Finite(b.Steady)) >= analyse.MinMannWhitney {
		if u, err := analyse.MannWhitney(g.Steady, b.Steady); err == nil {
			g.UTest = &u
		}
	}
	if (g.Test != nil && !g.Test.Significant()) || g.Noisy || b.Noisy {
		g.RepsNeeded = g.Needed
	}
	g.SustainedRatio = g.SustainedRate.Mean / b.SustainedRate.Mean
	if ci, err := analyse.FiellerAt(g.Sustained, b.Sustained, level); err == nil {
		g.SustainedCI = &ci
	} else {
		g.SustainedCIErr = err
	}
	g.ApplyRatio = g.Replica.ApplyTxPS / b.Replica.ApplyTxPS
}
