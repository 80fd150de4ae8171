package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Status is where a run stands.
type Status string

const (
	StatusRunning     Status = "running"
	StatusOK          Status = "ok"
	StatusFailed      Status = "failed"
	StatusInterrupted Status = "interrupted"
)

// Valid reports whether s is a known status.
func (s Status) Valid() bool {
	switch s {
	case StatusRunning, StatusOK, StatusFailed, StatusInterrupted:
		return true
	}
	return false
}

// SchemaVersion is the version of the run directory's JSON files
// (manifest.json, results.json, a matrix's matrix.json) this orch writes:
// each new file carries it as schema_version. A file without it is
// version 0, the format before the key existed, and still reads.
//
// Version 1 is version 0 with schema_version, and every key of the shared
// types written (results.json's sizes always have binlog_bytes and
// relay_log_bytes; in version 0 an older orch may have left them out).
const SchemaVersion = 1

// Manifest is manifest.json: what ran, where, with what, and how it ended.
// It holds no secret: Command is redacted (RedactArgs) and Inventory is the
// normalised inventory, whose secrets marshal as references only.
//
// The runner writes it and the report reads it through this type.
type Manifest struct {
	// SchemaVersion is SchemaVersion in a manifest this orch made, 0 in
	// one made before the key existed. An update keeps it.
	SchemaVersion int    `json:"schema_version,omitempty"`
	OrchVersion   string `json:"orch_version"`
	// Command is orch's argv with secrets redacted.
	Command []string `json:"command"`
	// Inventory and Workload are stored as JSON (see SetInventory,
	// SetWorkload): the manifest keeps what they marshalled to, which need
	// not unmarshal back into their Go types.
	Inventory Inventory       `json:"inventory,omitzero"`
	Workload  json.RawMessage `json:"workload,omitempty"`
	// Description is the workload's description with the figures it
	// states set to the options the run used ("4 tables, 16 threads, 20 s").
	Description string            `json:"description,omitempty"`
	Engine      string            `json:"engine,omitempty"`
	Knobs       map[string]string `json:"knobs,omitempty"`
	// Servers maps a host name to its server ("MariaDB 10.11.19"); Clients
	// a client tool to its version line ("sysbench 1.0.20").
	Servers map[string]string `json:"servers,omitempty"`
	// EngineVersions maps a host name to the run's engine's own version,
	// for an engine that has one apart from the server's ("TokuDB
	// 5.6.49-89.0").
	EngineVersions map[string]string `json:"engine_versions,omitempty"`
	Clients        map[string]string `json:"clients,omitempty"`
	// HostFacts maps a host name to what was learnt about it (CPU, memory,
	// kernel, disks), as JSON.
	HostFacts map[string]json.RawMessage `json:"host_facts,omitempty"`

	Start  time.Time `json:"start"`
	End    time.Time `json:"end,omitzero"`
	Status Status    `json:"status"`
	Error  string    `json:"error,omitempty"`
	// Remote is where the benchmark runs detached, so that a later orch
	// can find it again.
	Remote *Remote `json:"remote,omitempty"`
	// ClientRemotes are the other load boxes' detached benchmarks when the run
	// drove the cluster from several at once (Remote is the first's, which
	// also prepared the dataset): each has its own private directory.
	ClientRemotes []*Remote `json:"client_remotes,omitempty"`
	// Expected lists the files that belong in the run directory but come
	// from the hosts; Collect fetches those not Done.
	Expected []ExpectedFile `json:"expected,omitempty"`
}

// Remote is the detached benchmark process on the load box.
type Remote struct {
	Host string `json:"host"`
	Dir  string `json:"dir"`
	PID  int    `json:"pid,omitempty"`
	// StartAt is the common start (this machine's clock) when the run drove
	// the cluster from several load boxes: a later collect aligns the
	// clients' outputs on it.
	StartAt time.Time `json:"start_at,omitzero"`
	// Marker is the random value every process of the run's benchmark
	// carries in its environment (see ValidMarker): orch finds them by it,
	// never by a process name or a PID the system may have reused.
	Marker string `json:"marker,omitempty"`
	// Removed is set once Dir is deleted after a complete collect.
	Removed bool `json:"removed,omitempty"`
}

// FileKind says how an expected file is fetched.
type FileKind string

const (
	// KindFile is a whole file.
	KindFile FileKind = "file"
	// KindLogSlice is the part of a growing log written during the run:
	// from Offset (the log's size when the run started) to End, or to the
	// end of the file when End is 0.
	KindLogSlice FileKind = "log-slice"
)

// ExpectedFile is one file to fetch from a host into the run directory.
type ExpectedFile struct {
	// Host is the inventory host name: the key of Collect's executors.
	Host string `json:"host"`
	// Remote is the absolute path on the host.
	Remote string `json:"remote"`
	// Local is the path relative to the run directory.
	Local  string   `json:"local"`
	Kind   FileKind `json:"kind"`
	Offset int64    `json:"offset,omitempty"`
	End    int64    `json:"end,omitempty"`
	// Sudo reads the file as root (error logs are owned by the server).
	Sudo bool `json:"sudo,omitempty"`
	// Done is set once the file is complete in the run directory.
	Done bool `json:"done,omitempty"`
}

// Validate checks f's paths, offsets and kind.
func (f ExpectedFile) Validate() error {
	switch {
	case f.Host == "":
		return errors.New("no host")
	case !path.IsAbs(f.Remote):
		return fmt.Errorf("remote path %q is not absolute", f.Remote)
	case !filepath.IsLocal(f.Local):
		return fmt.Errorf("local path %q is not inside the run directory", f.Local)
	case f.Offset < 0 || f.End < 0:
		return errors.New("negative offset")
	}
	switch f.Kind {
	case KindFile:
		if f.Offset != 0 || f.End != 0 {
			return errors.New("a whole file has no offsets")
		}
	case KindLogSlice:
		if f.End != 0 && f.End < f.Offset {
			return fmt.Errorf("slice ends (%d) before it starts (%d)", f.End, f.Offset)
		}
	default:
		return fmt.Errorf("kind %q: want %s or %s", f.Kind, KindFile, KindLogSlice)
	}
	return nil
}

// SetInventory stores v (a *topology.Inventory) as JSON. Secrets in an
// inventory marshal as references ("file:/path (***)"), never values.
func (m *Manifest) SetInventory(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("manifest: inventory: %w", err)
	}
	return m.Inventory.UnmarshalJSON(raw)
}

// SetWorkload stores v (the resolved workload) as JSON, its description
// rewritten to the options it runs with (see descriptionRules).
func (m *Manifest) SetWorkload(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("manifest: workload: %w", err)
	}
	m.Workload, m.Description = effectiveDescription(raw)
	return nil
}

// Expect adds f to the expected files, replacing an entry with the same
// Local path (a file has one source).
func (m *Manifest) Expect(f ExpectedFile) error {
	if err := f.Validate(); err != nil {
		return fmt.Errorf("manifest: expected file %s: %w", f.Local, err)
	}
	for i := range m.Expected {
		if m.Expected[i].Local == f.Local {
			m.Expected[i] = f
			return nil
		}
	}
	m.Expected = append(m.Expected, f)
	return nil
}

// MarkDone records that the expected file at rel is complete. It reports
// whether rel was expected.
func (m *Manifest) MarkDone(rel string) bool {
	for i := range m.Expected {
		if m.Expected[i].Local == rel {
			m.Expected[i].Done = true
			return true
		}
	}
	return false
}

// Missing returns the expected files not yet complete.
func (m *Manifest) Missing() []ExpectedFile {
	var out []ExpectedFile
	for _, f := range m.Expected {
		if !f.Done {
			out = append(out, f)
		}
	}
	return out
}

// Finish sets the end time, status and error of the run.
func (m *Manifest) Finish(end time.Time, status Status, err error) {
	m.End = end.UTC()
	m.Status = status
	m.Error = ""
	if err != nil {
		m.Error = err.Error()
	}
}

// Validate checks the status and every expected file.
func (m *Manifest) Validate() error {
	if !m.Status.Valid() {
		return fmt.Errorf("status %q: want running, ok, failed or interrupted", m.Status)
	}
	for _, f := range m.Expected {
		if err := f.Validate(); err != nil {
			return fmt.Errorf("expected file %s: %w", f.Local, err)
		}
	}
	return nil
}

// descriptionRules rewrite the figures a workload's description states
// ("8 tables, 128 threads, 3600 s") to the options the run used, so that a
// manifest never describes the file's defaults when overrides shortened
// the run. Each rule is a pattern with one number group and the option
// (as the workload marshals it) whose value replaces that number.
var descriptionRules = []struct {
	re     *regexp.Regexp
	option string
}{
	{regexp.MustCompile(`\b([\d,]+)( tables\b)`), "Tables"},
	{regexp.MustCompile(`\b([\d,]+)( threads\b)`), "Threads"},
	{regexp.MustCompile(`\b([\d,]+)( s\b)`), "TimeS"},
	{regexp.MustCompile(`\b([\d,]+)( rows\b)`), "TableSize"},
	{regexp.MustCompile(`\b([\d,]+)( clients\b)`), "Concurrency"},
	{regexp.MustCompile(`\b([\d,]+)( iterations\b)`), "Iterations"},
	{regexp.MustCompile(`\b([\d,]+)( (?:writes|queries)\b)`), "NumberOfQueries"},
}

// effectiveDescription rewrites the workload JSON's Description with its
// effective options and returns the new JSON and the description.
func effectiveDescription(raw json.RawMessage) (json.RawMessage, string) {
	var w map[string]json.RawMessage
	if json.Unmarshal(raw, &w) != nil {
		return raw, ""
	}
	var desc string
	if json.Unmarshal(w["Description"], &desc) != nil || desc == "" {
		return raw, ""
	}
	var opts map[string]any
	_ = json.Unmarshal(w["Options"], &opts) // absent options leave the text alone
	for _, r := range descriptionRules {
		v, ok := opts[r.option]
		if !ok || v == nil {
			continue
		}
		desc = r.re.ReplaceAllString(desc, strings.ReplaceAll(OptionText(v), "$", "")+"${2}")
	}
	d, _ := json.Marshal(desc) // a string always marshals
	w["Description"] = d
	out, err := json.Marshal(w)
	if err != nil {
		return raw, desc
	}
	return out, desc
}

// OptionText formats a workload option decoded from the manifest's JSON as
// the workload files write it: lists as "4,8", numbers in plain digits
// ("1000000", never fmt's "1e+06": JSON numbers decode as float64).
func OptionText(v any) string {
	l, ok := v.([]any)
	if !ok {
		return optionScalar(v)
	}
	parts := make([]string, len(l))
	for i, x := range l {
		parts[i] = optionScalar(x)
	}
	return strings.Join(parts, ",")
}

func optionScalar(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// Remotes are every load box's working directory: Remote, then ClientRemotes.
func (m *Manifest) Remotes() []*Remote {
	if m.Remote == nil {
		return nil
	}
	return append([]*Remote{m.Remote}, m.ClientRemotes...)
}

// RemoteOf is the working directory the benchmark had on host, or nil.
func (m *Manifest) RemoteOf(host string) *Remote {
	for _, rem := range m.Remotes() {
		if rem != nil && rem.Host == host {
			return rem
		}
	}
	return nil
}
