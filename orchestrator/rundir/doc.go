// Package rundir is the directory one `orch run` leaves behind: everything
// needed to understand, compare and reproduce a benchmark, written as the
// run goes so that an interrupted run still explains itself, and completed
// later by `orch collect` from what the manifest says is missing.
//
// # Layout
//
// Runs live under a root (runs/ by default): each in
// <root>/<UTC start, 20060102T150405Z>-<name>/, with <root>/latest a
// relative symlink to the newest. Relative paths inside a run directory are
// the contract other tools read:
//
//	manifest.json                  orch version, command line (secrets redacted), inventory
//	                               (normalised, no secrets), workload, engine, knobs, server and
//	                               client versions, host facts, start/end (RFC 3339), status
//	                               running|ok|failed|interrupted, error, remote {host, dir, pid},
//	                               expected files (what collect fetches while they are missing)
//	results.json                   parsed benchmark result, consistency, sizes, semi-sync health
//	benchmark/prepare.txt          raw client output, likewise run.txt and cleanup.txt
//	hosts/<name>/config.cnf        orch's rendered config as on the host
//	hosts/<name>/variables.before.tsv, status.before.tsv, status.after.tsv
//	hosts/<name>/replication.before.json, replication.after.json
//	hosts/<name>/error.log         error log slice for the run window; slow.log likewise
//	hosts/<name>/commands.jsonl    every command, transfer and statement sent to the host, redacted (CommandLog)
//	timeseries/<host>-mysql.csv    per-second SHOW GLOBAL STATUS deltas, semi-sync, lag
//	timeseries/<host>-os.csv       per-second CPU, iowait, disk from /proc
//	events.jsonl                   one schema.Event per line: the monitors', the command's steps
//
// manifest.json and results.json carry schema_version (SchemaVersion); a
// file without it is version 0 and still reads. Manifest (here) and
// schema.Results are their one Go type, for the writer and the readers.
//
// The constants and helpers below (FileManifest, HostFile, TimeseriesMySQL,
// ...) spell these paths; use them rather than literals.
//
// # Guarantees
//
// Small files (manifest, results, host files) are written atomically: a
// temporary file in the same directory, fsync, rename. A reader sees the old
// or the new content, never a torn one. Streams (raw output, time series)
// are written in place, so they can be followed live.
//
// No file in a run directory may hold a password. The manifest's command
// line goes through RedactArgs, free text through Redact, and ScanForSecrets
// is the last check over the whole directory.
package rundir

import "github.com/orch-bench/orch/orchestrator/schema"

// Paths inside a run directory: the layout is plain data
// (orchestrator/schema), named here for the writers.
const (
	FileManifest          = schema.FileManifest
	FileResults           = schema.FileResults
	FileEvents            = schema.FileEvents
	BenchmarkPrepare      = schema.BenchmarkPrepare
	BenchmarkRun          = schema.BenchmarkRun
	BenchmarkCleanup      = schema.BenchmarkCleanup
	BenchmarkRunMerged    = schema.BenchmarkRunMerged
	LatestLink            = schema.LatestLink
	TimeLayout            = schema.RunTimeLayout
	HostConfig            = schema.HostConfig
	HostVariablesBefore   = schema.HostVariablesBefore
	HostStatusBefore      = schema.HostStatusBefore
	HostStatusAfter       = schema.HostStatusAfter
	HostReplicationBefore = schema.HostReplicationBefore
	HostReplicationAfter  = schema.HostReplicationAfter
	HostErrorLog          = schema.HostErrorLog
	HostSlowLog           = schema.HostSlowLog
)

// ClientRun is one load box's raw output (schema.ClientRun).
func ClientRun(host string) string { return schema.ClientRun(host) }

// HostFile is the relative path of file in host's directory (schema.HostFile).
func HostFile(host, file string) string { return schema.HostFile(host, file) }

// TimeseriesMySQL is host's server time series (schema.TimeseriesMySQL).
func TimeseriesMySQL(host string) string { return schema.TimeseriesMySQL(host) }

// TimeseriesOS is host's operating system time series (schema.TimeseriesOS).
func TimeseriesOS(host string) string { return schema.TimeseriesOS(host) }

// Sanitize makes name safe as one path element (schema.Sanitize).
func Sanitize(name string) string { return schema.Sanitize(name) }
