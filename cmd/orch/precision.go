package main

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/orch-bench/orch/orchestrator/matrix"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// untilFlags are the stopping rule's flags of orch matrix.
type untilFlags struct {
	precision, equivalence, goal string
	maxRepeat, minRepeat         int
}

func (u *untilFlags) register(f *pflag.FlagSet) {
	f.StringVar(&u.precision, "precision", "", "run rounds until every ratio's 95% interval is within P% of it, e.g. --precision 5% (instead of --repeat)")
	f.StringVar(&u.goal, "until", "", "what ends the rounds: precision (with --precision, the default) or significant (every comparison decided, the false-positive rate spent over the rounds)")
	f.IntVar(&u.maxRepeat, "max-repeat", 10, "--precision: stop after this many rounds whatever the precision")
	f.IntVar(&u.minRepeat, "min-repeat", matrix.MinRounds, "--precision: run at least this many rounds")
	f.StringVar(&u.equivalence, "equivalence", "", "--precision: call two configurations equivalent when the interval lies within ±E%, different when it lies outside (default for --aa: the precision)")
}

// until is the rule the flags ask for: nil without --precision. The other
// flags of the rule are refused without it, as --resume refuses all of
// them (a resumed matrix goes on with the rule it recorded).
func (u *untilFlags) until(cmd *cobra.Command, resuming bool) (*matrix.Until, error) {
	fs := cmd.Flags()
	set := func(name string) bool { return fs.Changed(name) }
	significant := set("until") && u.goal == stats.GoalSignificant
	if !set("precision") && !significant {
		if set("until") {
			return nil, usagef("matrix: --until %s: want --until %s, or --precision P%% (which stops on precision)", u.goal, stats.GoalSignificant)
		}
		for _, name := range []string{"max-repeat", "min-repeat", "equivalence"} {
			if set(name) {
				return nil, usagef("matrix: --%s goes with --precision or --until significant", name)
			}
		}
		return nil, nil
	}
	if resuming {
		return nil, usagef("matrix: --resume goes on with the stopping rule the matrix recorded: drop --precision and --until")
	}
	until := &matrix.Until{MinRounds: u.minRepeat, MaxRounds: u.maxRepeat}
	if set("until") {
		until.Goal = u.goal
	}
	var err error
	if set("precision") {
		if until.Precision, err = parsePercent("matrix", "--precision", u.precision); err != nil {
			return nil, err
		}
	}
	if set("equivalence") {
		if until.Equivalence, err = parsePercent("matrix", "--equivalence", u.equivalence); err != nil {
			return nil, err
		}
	}
	return until, nil
}

// parsePercent reads "5%", "5" or "2.5%" as a share (0.05); bad text is
// one line naming the command and the flag.
func parsePercent(command, flag, s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil {
		return 0, usagef("%s: %s %q: want a percentage such as 5%%", command, flag, s)
	}
	return v / 100, nil
}
