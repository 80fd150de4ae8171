// Package report compares benchmark runs: the cells of an `orch matrix`
// directory, single run directories of `orch run` (old ones included) and
// the JSON `orch parse` prints for hand-run client logs, in any mix.
//
// # Inputs
//
// load.Load accepts paths to:
//
//	a matrix directory     matrix.json + cells/<id>/ (or matrix.json itself);
//	                       labels, repetitions, baseline, warm-up and the
//	                       knobs the server ignores come from matrix.json
//	a run directory        results.json + manifest.json + timeseries/...;
//	                       labelled by its directory name
//	an `orch parse` file   one or more bare benchmark documents (a sysbench or
//	                       db-insert object, a mysqlslap array), labelled by
//	                       the file name ("#2", "#3"... for later documents),
//	                       or the array `orch parse a b` prints, labelled by
//	                       each document's file
//	a raw client log       sysbench, mysqlslap or db-insert output, parsed as
//	                       `orch parse` does; labelled by the file name
//
// A parse file carries no workload name: it joins the table of the one
// workload run with the same tool, so a legacy sysbench log sits next to a
// new run of the same test.
//
// # Figures
//
// Each workload gets a table with one row per configuration (label) and,
// below it, one row per run. The compared figure is the tool's own: writes/s
// for write-only sysbench tests, else tps (else queries/s for legacy logs
// without transactions), seconds to run all queries for mysqlslap (lower is
// better), rows/s for db-insert. A run's steady-state rate is the mean of
// its per-second interval rates after its warm-up, which is detected per run
// as a changepoint in that series (analyse/steady.go; Options.WarmupS fixes it);
// without intervals after the warm-up it is the tool's final figure.
//
// Only runs that ended "ok" (and complete parse files) enter the
// statistics. Per label: n, mean, sd, Student's 95% CI, median, coefficient
// of variation (noisy above 5%); against the baseline: the ratio with
// Fieller's 95% CI, Welch's t-test, Mann-Whitney U with 5+ runs per side,
// and the runs per configuration needed to resolve a difference the test
// did not. With replicas: the master's commit rate, the slowest slave's
// apply rate, lag at the end and its growth, catch-up after the run, and
// the sustained cluster rate (work / (run + catch-up)); verdicts say "not
// sustained" when the replicas did not keep up (analyse/replica.go,
// judge/verdict.go).
//
// Runs whose servers (flavour or major.minor version), workload
// parameters, client or topology differ are refused (judge/comparable.go)
// unless Options.AllowMixed; differences between the
// configurations' server variables that change durability, caching or IO
// are listed under the verdicts (judge/fair.go, orchestrator/fairness).
//
// # Output
//
// render.Write produces report.md (plots referenced from plots/), report.html
// (self-contained: plots are SVG data URIs, evidence in <details>), and
// tidy data (render/tidy.go): results.csv (one row per run, the label's
// statistics repeated on each), configurations.csv (one per label),
// hosts.csv (one per run and host), why.json and noise-floor.json (each
// with a schema_version).
//
// # Rooms
//
// The report is an offline program over files, in four rooms, each
// importing only those before it (orchestrator/report/rooms tests it, and
// that none reaches a host):
//
//	load     run directories, parse files and raw logs read into Runs
//	analyse  windows, steady rates, replicas, costs, statistics
//	judge    tables, verdicts, the stopping rule's judge, fairness, "why"
//	render   report.md, report.html, the CSV and JSON files, the plots
//
// This package is their façade: Answer (`orch report`), RunSummary (`orch
// run`'s last lines), Records (the results history) and the names the
// command line uses.
package report
