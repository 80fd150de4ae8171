package schema

import (
	"path"
	"strings"
)

// The run directory's layout (orchestrator/rundir describes it whole).

// Paths inside a run directory.
const (
	FileManifest = "manifest.json"
	FileResults  = "results.json"
	FileEvents   = "events.jsonl"
	// FileMatrix is the plan and state of a matrix directory.
	FileMatrix       = "matrix.json"
	BenchmarkPrepare = "benchmark/prepare.txt"
	BenchmarkRun     = "benchmark/run.txt"
	BenchmarkCleanup = "benchmark/cleanup.txt"

	// BenchmarkRunMerged is where a run from several load boxes keeps its
	// merged result (results.json's benchmark holds the same); each load
	// box's raw output is ClientRun(host).
	BenchmarkRunMerged = "benchmark/run.merged.json"

	// LatestLink is the symlink in the root naming the newest run.
	LatestLink = "latest"
	// RunTimeLayout is how a run directory's name starts: its UTC start.
	RunTimeLayout = "20060102T150405Z"
)

// ClientRun is one load box's raw benchmark output in a run driven from
// several load boxes at once (benchmark/run.<host>.txt); BenchmarkRun is
// not written then, since no single client's output is the run's result.
func ClientRun(host string) string { return "benchmark/run." + host + ".txt" }

// Files under hosts/<name>/.
const (
	HostConfig            = "config.cnf"
	HostVariablesBefore   = "variables.before.tsv"
	HostStatusBefore      = "status.before.tsv"
	HostStatusAfter       = "status.after.tsv"
	HostReplicationBefore = "replication.before.json"
	HostReplicationAfter  = "replication.after.json"
	HostErrorLog          = "error.log"
	HostSlowLog           = "slow.log"
)

// HostFile is the relative path of file in host's directory:
// HostFile("slave1", HostErrorLog) is "hosts/slave1/error.log".
func HostFile(host, file string) string {
	return path.Join("hosts", Sanitize(host), file)
}

// TimeseriesMySQL is the relative path of host's server time series.
func TimeseriesMySQL(host string) string {
	return "timeseries/" + Sanitize(host) + "-mysql.csv"
}

// TimeseriesOS is the relative path of host's operating system time series.
func TimeseriesOS(host string) string {
	return "timeseries/" + Sanitize(host) + "-os.csv"
}

// maxNameLen keeps directory names readable and far below NAME_MAX.
const maxNameLen = 64

// Sanitize makes name safe as one path element and readable in a listing:
// letters, digits, '.', '_' and '-' are kept, runs of anything else become
// one '-', leading dots and dashes go (no hidden files, no "..", no flags),
// and it is cut to 64 bytes. An empty result is "run".
func Sanitize(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			r = '-'
		}
		if r == '-' {
			if dash {
				continue
			}
			dash = true
		} else {
			dash = false
		}
		b.WriteRune(r)
	}
	s := strings.TrimLeft(b.String(), ".-")
	if len(s) > maxNameLen {
		s = s[:maxNameLen]
	}
	s = strings.TrimRight(s, "-")
	if s == "" {
		return "run"
	}
	return s
}
