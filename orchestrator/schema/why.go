package schema

// why.json is the report's machine-readable "Where the time went": the
// figures of hosts.csv and the tables, with the sentences they make. The
// report writes it; internal/recheck reads it back to recompute it.

// WhyVersion is why.json's schema_version: raised when a key is renamed or
// changes meaning. 2: the host figures' keys carry their units
// (host_tx_per_s, *_frac).
const WhyVersion = 2

// Why is why.json.
type Why struct {
	SchemaVersion int        `json:"schema_version"`
	WarmupS       float64    `json:"warmup_s"`
	Tables        []WhyTable `json:"tables"`
}

// WhyTable is one table of the report: its configurations and its runs.
type WhyTable struct {
	Workload string     `json:"workload"`
	Baseline string     `json:"baseline"`
	Groups   []WhyGroup `json:"configurations"`
	Runs     []WhyRun   `json:"runs"`
	// NoiseFloor is the A/A floor this table measured or was held
	// against (noise-floor.json has the details).
	NoiseFloor map[string]any `json:"noise_floor,omitempty"`
}

// WhyGroup is one configuration: its means, sentence, USE figures and top
// stacks.
type WhyGroup struct {
	Label       string               `json:"label"`
	Ratio       any                  `json:"ratio_vs_baseline"`
	Sentence    string               `json:"sentence"`
	ClientBound bool                 `json:"client_bound"`
	Hosts       []WhyHost            `json:"hosts"`
	LoadBox     WhyHost              `json:"loadbox,omitempty"`   // the first load box
	LoadBoxes   []WhyHost            `json:"loadboxes,omitempty"` // every one, each with its client_bound
	Stacks      map[string]WhyStacks `json:"stacks,omitempty"`
}

// WhyRun is one run's own host figures.
type WhyRun struct {
	Run   string    `json:"run"`
	Label string    `json:"label"`
	Hosts []WhyHost `json:"hosts"`
	// Window is the run's one window: the client's seconds, how its start
	// was decided, the seconds left out for instruments and the clock
	// shift of the client onto the load's.
	Window map[string]any `json:"window"`
	Flags  []string       `json:"flags,omitempty"`
}

// WhyHost is one host's figures under hosts.csv's column names (units in
// the names: host_tx_per_s, server_cpu_frac ...), null when not measured,
// and "host", "host_role".
type WhyHost = map[string]any

// WhyStacks is one host's top stacks.
type WhyStacks struct {
	Host       string     `json:"host"`
	Mode       string     `json:"mode"`
	Snapshots  int        `json:"snapshots"`
	Samples    int        `json:"samples"`
	MaxPauseMs *float64   `json:"max_pause_ms"`
	Top        []WhyStack `json:"top"`
}

// WhyStack is one stack and its share of the samples.
type WhyStack struct {
	Share  float64  `json:"share"`
	Frames []string `json:"frames"`
}
