package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/orch-bench/orch/topology"
)

// flagMinimum is the smallest value an integer flag accepts, wherever it
// is defined. Every duration flag must be 0 or more.
var flagMinimum = map[string]int64{
	"parallel": 1,
	"repeat":   1,
	"warmup":   0,
	"ssh-port": 0,
}

// checkFlags rejects flag values no command could use (a negative timeout,
// --parallel 0) before anything runs: a usage error naming the flag.
func checkFlags(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil || !f.Changed {
			return
		}
		switch f.Value.Type() {
		case "duration":
			if d, perr := time.ParseDuration(f.Value.String()); perr == nil && d < 0 {
				err = usagef("--%s %s: want a duration of 0 or more", f.Name, f.Value)
			}
		case "int", "int64":
			min, ok := flagMinimum[f.Name]
			var n int64
			if _, serr := fmt.Sscan(f.Value.String(), &n); ok && serr == nil && n < min {
				err = usagef("--%s %s: want %d or more", f.Name, f.Value, min)
			}
		case "float64":
			if min, ok := flagMinimum[f.Name]; ok {
				var x float64
				if _, serr := fmt.Sscan(f.Value.String(), &x); serr == nil && x < float64(min) {
					err = usagef("--%s %s: want %d or more", f.Name, f.Value, min)
				}
			}
		}
	})
	return err
}

// unknownCommand makes `orch mtrix` a one-line usage error (exit status 2)
// with cobra's suggestion, instead of a multi-line failure (status 1).
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usagef("%s (see %s --help)", msg, cmd.CommandPath())
}

// maxErrorLines caps what an error prints: per-host failures of a large
// inventory must not scroll the first one off the screen.
const maxErrorLines = topology.MaxErrors

// capLines keeps the first lines of a multi-line message and counts the
// rest. A message of maxErrorLines lines and its own count (an
// inventory's problems, capped by topology) is kept whole.
func capLines(msg string) string {
	lines := strings.Split(msg, "\n")
	if len(lines) <= maxErrorLines+1 {
		return msg
	}
	return strings.Join(lines[:maxErrorLines], "\n") + fmt.Sprintf("\n... and %d more lines", len(lines)-maxErrorLines)
}
