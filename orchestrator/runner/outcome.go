package runner

import (
	"fmt"
	"io"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report"
)

// Write prints where the run is and its figures, as its report computes
// them over the run's one window (report.RunSummary), so the console and
// the report never disagree.
func (o *Outcome) Write(w io.Writer) {
	fmt.Fprintf(w, "run %s: %s\n", o.Status, o.Dir.Path())
	res := o.Results
	if res == nil {
		return
	}
	if res.Benchmark.Result != nil {
		sum, err := report.RunSummary(o.Dir.Path())
		if err != nil {
			sum = fmt.Sprintf("no figures: %v (orch report %s says more)\n", err, o.Dir.Path())
		}
		for _, l := range strings.Split(strings.TrimSuffix(sum, "\n"), "\n") {
			fmt.Fprintln(w, "  "+l)
		}
	}
	if res.Consistency != nil {
		verdict := "ok: CHECKSUM TABLE and row counts match on master and slaves"
		if !res.Consistency.OK {
			verdict = "MISMATCH: " + res.Consistency.Summary()
		}
		fmt.Fprintf(w, "  consistency: %s\n", verdict)
	}
	for _, c := range res.Checks {
		fmt.Fprintf(w, "  FAILED CHECK: %s\n", c)
	}
}
