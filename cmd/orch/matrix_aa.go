package main

import (
	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/matrix"
)

// checkAAFlags refuses flag combinations an A/A matrix cannot honour,
// before any inventory is read.
func checkAAFlags(cmd *cobra.Command, aa bool, noiseFloor string) error {
	if !aa {
		return nil
	}
	if cmd.Flags().Changed("noise-floor") && noiseFloor != matrix.NoiseFloorNone {
		return usagef("matrix: --aa measures a noise floor; --noise-floor %s holds a comparison against one: give one or the other", noiseFloor)
	}
	if cmd.Flags().Changed("resume") {
		return usagef("matrix: --aa with --resume: a resumed matrix keeps its plan; drop --aa")
	}
	return nil
}
