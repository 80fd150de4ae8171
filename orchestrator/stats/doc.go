// Package stats holds the statistics orch's verdicts rest on, as pure
// functions of the runs' figures: the description of a sample, Welch's
// t-test, Fieller's interval of a ratio of means, the Holm correction of
// several comparisons against one baseline, and how many runs a
// comparison would need.
//
// One decision rule: a comparison is significant exactly when its
// printed interval of the ratio excludes 1. Fieller's interval is the set
// of ratios r for which "mean(a) = r·mean(b)" is not rejected by a
// Welch-type t-test of a - r·b, with the Welch–Satterthwaite degrees of
// freedom of that very combination (they change with r). At r = 1 that
// test is Welch's t-test of equal means, so the interval excludes 1 if and
// only if Welch's p is below the interval's alpha: the significance and
// the interval printed beside it can no longer contradict each other (a
// fixed degrees of freedom taken at the point estimate, as before, did
// near the edge).
package stats
