// Package render is the report's top room: it writes what judge decided as
// report.md, report.html (self-contained: plots are SVG data URIs),
// results.csv, configurations.csv, hosts.csv, why.json, noise-floor.json and
// the plots, and words the answer `orch report` and `orch run` print.
//
// render imports judge, analyse and load; orchestrator/report (the façade)
// calls it.
package render
