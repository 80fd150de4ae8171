// Package load is the report's first room: it reads what benchmark runs
// left on disk into Runs. Its inputs are matrix directories (matrix.json,
// cells/), run directories (results.json, manifest.json, events.jsonl,
// timeseries/*.csv, profiles), the JSON `orch parse` prints and raw client
// logs (sysbench, mysqlslap, db-insert); its types are orchestrator/schema's
// and the Run that carries one run's figures as its files state them (the
// benchmark's rates, the measured load's bounds, the replicas' lag).
//
// load imports no other room. The rooms above it: analyse (windows, series,
// statistics), judge (verdicts, fairness, the "why" rules), render (md, html,
// csv, plots); orchestrator/report is their façade. None of them reaches a
// host (orchestrator/report/rooms tests it).
package load
