package load

// Files Write produces.
const (
	FileMarkdown = "report.md"
	FileHTML     = "report.html"
	FileCSV      = "results.csv"
	// FileHostsCSV has one row per run and host, FileConfigurationsCSV one
	// per configuration (tidy.go).
	FileHostsCSV          = "hosts.csv"
	FileConfigurationsCSV = "configurations.csv"
	PlotsDir              = "plots"
)

// FileWhy is the machine-readable "Where the time went": the figures of
// hosts.csv and the tables, with the sentences they make.
const FileWhy = "why.json"

// FileNoiseFloor is the machine-readable noise floor: the floors an A/A
// matrix measured, and how a regular report held its verdicts against one.
const FileNoiseFloor = "noise-floor.json"
