package load

import (
	"fmt"
	"strings"

	"github.com/orch-bench/orch/orchestrator/schema"
)

// ClusterDesign is what the report says about a matrix run over several
// clusters: how to reproduce its order, and what happened to its clusters.
type ClusterDesign struct {
	Seed     int64
	Clusters []string
	// Notes: clusters taken out, rounds moved, runs left out.
	Notes []string
}

// applyDesign names each run's cluster and leaves out of the statistics
// the runs of a round their cluster did not complete (the design ran that
// round again elsewhere, so counting them would give that cluster an
// extra repetition of some configurations).
func applyDesign(d *schema.Design, runs []*Run) *ClusterDesign {
	if d == nil || len(d.Blocks) == 0 {
		return nil
	}
	out := &ClusterDesign{Seed: d.Seed}
	byID := map[string]*Run{}
	for _, r := range runs {
		byID[r.ID] = r
	}
	for _, b := range d.Blocks {
		out.Clusters = append(out.Clusters, b.Cluster)
		for _, id := range b.Cells {
			if r := byID[id]; r != nil {
				r.Cluster = b.Cluster
			}
		}
		for _, id := range b.Excluded {
			if r := byID[id]; r != nil {
				r.Excluded = "its round on " + b.Cluster + " was not completed"
			}
		}
		if b.Failed != "" {
			out.Notes = append(out.Notes, fmt.Sprintf("Cluster %s was taken out of the schedule: %s.", b.Cluster, b.Failed))
		}
		if len(b.Excluded) > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("Left out of the statistics: %s (their round on %s did not complete and ran again, whole, elsewhere).",
				strings.Join(b.Excluded, ", "), b.Cluster))
		}
	}
	for _, mv := range d.Moved {
		out.Notes = append(out.Notes, fmt.Sprintf("Round %d of %s ran on %s as its round %d (%s).", mv.Round, mv.From, mv.To, mv.ToRound, mv.Reason))
	}
	return out
}
