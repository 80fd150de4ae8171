// Package report compares benchmark runs: the cells of an `orch matrix`
// directory, single run directories of `orch run` (old ones included) and
// the JSON `orch parse` prints for hand-run client logs, in any mix.
//
// # Inputs
//
// Load accepts paths to:
//
//	a matrix directory     matrix.json + cells/<id>/ (or matrix.json itself);
//	                       labels, repetitions, baseline, warm-up and the
//	                       knobs the server ignores come from matrix.json
//	a run directory        results.json + manifest.json + timeseries/...;
//	                       labelled by its directory name
//	an `orch parse` file   one or more bare benchmark documents (a sysbench or
//	                       db-insert object, a mysqlslap array); labelled by
//	                       the file name, "#2", "#3"... for later documents
//
// A parse file carries no workload name: it joins the table of the one
// workload run with the same tool, so a legacy sysbench log sits next to a
// new run of the same test.
//
// # Figures
//
// Each workload gets a table with one row per configuration (label) and,
// below it, one row per run. The compared figure is the tool's main rate:
// writes/s for write-only sysbench tests, else tps (else queries/s for
// legacy logs without transactions), queries/s for mysqlslap, rows/s for
// db-insert. A run's steady-state rate is the mean of its per-second
// interval rates after the warm-up (interval t > warm-up); without interval
// reports after the warm-up it is the tool's final figure, and the report
// says so. Latency avg/pNN/max are the tool's whole-run figures.
//
// Only runs that ended "ok" (and complete parse files) enter the
// statistics; the others are listed with their state. Per label: n, mean,
// standard deviation, a 95% confidence interval from Student's t, and
// Welch's unequal-variance t-test against the baseline label, significant at
// p < 0.05; with fewer than two runs on either side there is no test.
//
// # Output
//
// Write produces report.md (plots referenced from plots/), report.html
// (self-contained: plots are SVG data URIs, evidence in <details>), and
// results.csv (one row per run, the label's statistics repeated on each).
package report
