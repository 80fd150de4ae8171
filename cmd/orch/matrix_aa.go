package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/matrix"
	"github.com/orch-bench/orch/orchestrator/report"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// --noise-floor values besides a directory.
const (
	noiseFloorAuto = "auto"
	noiseFloorNone = "none"
)

// checkAAFlags refuses flag combinations an A/A matrix cannot honour,
// before any inventory is read.
func checkAAFlags(cmd *cobra.Command, aa bool, noiseFloor string) error {
	if !aa {
		return nil
	}
	if cmd.Flags().Changed("noise-floor") && noiseFloor != noiseFloorNone {
		return usagef("matrix: --aa measures a noise floor; --noise-floor %s holds a comparison against one: give one or the other", noiseFloor)
	}
	if cmd.Flags().Changed("resume") {
		return usagef("matrix: --aa with --resume: a resumed matrix keeps its plan; drop --aa")
	}
	return nil
}

// planNoiseFloor records in a new matrix the A/A matrix its report holds
// verdicts against: the one --noise-floor names (checked now, before any
// host), the newest finished A/A of the workload under root (auto), or
// none. An A/A matrix has none: it measures one.
func planNoiseFloor(cmd *cobra.Command, m *matrix.Matrix, flag, root string) error {
	if m.AA || flag == noiseFloorNone {
		return nil
	}
	dir := flag
	if flag == noiseFloorAuto || flag == "" {
		if dir = matrix.FindNoiseFloor(root, m.Workload); dir == "" {
			return nil
		}
	} else if _, err := matrix.CheckNoiseFloor(dir); err != nil {
		return usagef("matrix: --noise-floor: %v", err)
	}
	if err := m.SetNoiseFloor(dir, root); err != nil {
		return usagef("matrix: --noise-floor %s: %v", dir, err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Noise floor: A/A matrix %s (the report says which verdicts lie inside it)\n", m.NoiseFloor)
	if u := m.Until; u != nil && u.Precision > 0 {
		// What the floor's noise says the rule will take.
		if cv, err := report.NoiseCV(dir); err == nil {
			n, ok := stats.ExpectedRounds(cv, u.Precision, u.MinRounds, u.MaxRounds)
			word := fmt.Sprintf("about %d rounds", n)
			if !ok {
				word = fmt.Sprintf("more than --max-repeat %d rounds", u.MaxRounds)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Expected: %s to reach ±%g%% (the noise floor's runs vary by CV %.1f%%)\n", word, 100*u.Precision, 100*cv)
		}
	}
	return nil
}
