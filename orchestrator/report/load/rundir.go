package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/schema"
)

// ManifestDoc is manifest.json as the runner writes it: the shared type
// (why.go reads it under this name).
type ManifestDoc = schema.Manifest

// ReadRunDir reads one run directory. A run without results.json (still
// running, or failed before the benchmark) is returned without figures.
func ReadRunDir(dir string) (*Run, error) {
	r := &Run{ID: filepath.Base(dir), Source: dir, Dir: dir, Health: emptyHealth()}
	r.Label = r.ID
	var man ManifestDoc
	haveMan, err := ReadJSON(filepath.Join(dir, schema.FileManifest), &man)
	if err != nil {
		return nil, err
	}
	res, haveRes, err := schema.ReadResults(filepath.Join(dir, schema.FileResults))
	if err != nil {
		return nil, err
	}
	if !haveRes {
		res = &schema.Results{}
	}
	if !haveMan && !haveRes {
		return nil, fmt.Errorf("%s: neither %s nor %s: not a run directory", dir, schema.FileManifest, schema.FileResults)
	}
	r.State, r.Error, r.Engine, r.Workload = string(man.Status), man.Error, man.Engine, workloadName(man.Workload)
	for _, k := range SortedKeys(man.Knobs) {
		r.Knobs = append(r.Knobs, Knob{Name: k, Value: man.Knobs[k]})
	}
	if haveRes {
		if res.Workload != "" {
			r.Workload = res.Workload
		}
		if res.Engine != "" {
			r.Engine = res.Engine
		}
		r.Tool = res.Tool
		// A benchmark this report cannot read leaves the run without
		// figures rather than failing the whole report.
		if r.Bench, err = DecodeBench(res.Benchmark.JSON(), res.Tool); err != nil {
			r.Bench, r.Error = nil, schema.FileResults+": "+err.Error()
		}
		if r.Bench != nil && r.Tool == "" {
			r.Tool = r.Bench.Tool
		}
		if r.Bench == nil && res.ParseError != "" && r.Error == "" {
			// Why a run that ended ok has no figures.
			r.Error = "benchmark output: " + res.ParseError
		}
		r.Health = health(res, masterName(man.Inventory.Hosts))
		if in := res.Instruments; in != nil {
			r.Instruments = InstrumentsText(in.Monitors, in.Stacks, in.StacksIn)
		}
	} else if r.State == StateOK {
		r.State = "ok, but no " + schema.FileResults
	}
	start := man.Start
	if res.Monitor != nil && !res.Monitor.Start.IsZero() {
		start = res.Monitor.Start
	}
	events, err := readEvents(filepath.Join(dir, schema.FileEvents))
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		if e.Kind == "monitor_start" && (res.Monitor == nil || res.Monitor.Start.IsZero()) {
			start = e.T
			break
		}
	}
	r.Spans = Spans(events, start)
	r.LoadOffsetS, r.LoadEndS = LoadBounds(events, start)
	r.Instrument = InstrumentSpans(r.Spans, r.LoadOffsetS, r.LoadEndS)
	roles := map[string]string{}
	for _, h := range man.Inventory.Hosts {
		roles[h.Name] = h.Role
	}
	catchUp := map[string]catchUpDoc{}
	final := FinalPosition{At: math.NaN()}
	if res.CatchUp != nil {
		final = FinalPosition{pos: res.CatchUp.MasterGTID, At: r.LoadOffsetS + r.LoadEndS}
		for _, s := range res.CatchUp.Slaves {
			// The runner names hosts "slave1 10.99.0.12": the name is the
			// first word.
			name, _, _ := strings.Cut(s.Host, " ")
			catchUp[name] = catchUpFrom(s)
		}
	}
	if r.Replicas, r.Master, err = readReplicas(dir, roles, catchUp, r.LoadOffsetS, final); err != nil {
		return nil, err
	}
	r.Lag = worstLag(r.Replicas)
	if m := maxLag(r.Replicas); !math.IsNaN(m) {
		r.Health.MaxLagTx = m // at each sample's instant, not the monitor's live figure
	}
	r.Params = workloadParams(man.Workload)
	r.Data = startingData(man.Workload)
	r.Topology = topologyText(man.Inventory.Hosts, res.Monitor != nil && res.Monitor.SemiSync != nil, r.Health.SemiSync)
	r.SemiSync = semiSyncText(res.Monitor != nil && res.Monitor.SemiSync != nil, r.Health.SemiSync)
	r.Evidence, err = readEvidence(dir, &man, roles)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// workloadName reads the workload's name from the manifest, which stores
// the workload as it marshalled ({"Name": ...}); a bare string or another
// shape from an older orch is taken as it comes or ignored.
func workloadName(raw json.RawMessage) string {
	var name string
	if json.Unmarshal(raw, &name) == nil {
		return name
	}
	var w map[string]any
	if json.Unmarshal(raw, &w) != nil {
		return ""
	}
	for _, k := range []string{"Name", "name"} {
		if s, ok := w[k].(string); ok {
			return s
		}
	}
	return ""
}

func emptyHealth() Health {
	n := math.NaN()
	return Health{FallbackS: n, NoTx: n, MaxLagS: n, MaxLagTx: n, TableBytes: n, DatadirBytes: n,
		DiskBytes: n, BinlogBytes: n, RelayBytes: n, Rows: n}
}

// catchUpFrom is the report's view of one slave's catch-up wait.
func catchUpFrom(s schema.SlaveCatchUp) catchUpDoc {
	cu := catchUpDoc{Host: s.Host, WaitedNS: int64(s.Waited), CaughtUp: s.CaughtUp, BehindTx: s.BehindAtWaitTx}
	if s.CatchUpNs != nil {
		ns := int64(*s.CatchUpNs)
		cu.CatchUpNS = &ns
	}
	return cu
}

// masterName is the inventory's master ("master" when the manifest names
// none): results.json's sizes are by host name.
func masterName(hosts []schema.InventoryHost) string {
	for _, h := range hosts {
		if h.Role == "master" {
			return h.Name
		}
	}
	return "master"
}

// health is what results.json says besides the benchmark; master is the
// master's host name. In a version 0 file (no schema_version) a zero size
// of the binary or relay logs is one an older orch did not record: not
// measured, NaN.
func health(res *schema.Results, master string) Health {
	h := emptyHealth()
	h.FailedChecks = res.Checks
	if res.Consistency != nil {
		h.Consistency = "ok"
		if !res.Consistency.OK {
			h.Consistency = "MISMATCH"
		}
	}
	logBytes := func(n int64) float64 {
		if n == 0 && res.SchemaVersion == 0 {
			return math.NaN()
		}
		return float64(n)
	}
	if s := res.Sizes[master]; s != nil {
		h.TableBytes = float64(s.DataBytes + s.IndexBytes)
		h.DatadirBytes = float64(s.DatadirBytes)
		if v, ok := s.EngineDiskBytes[strings.ToLower(res.Engine)]; ok {
			h.DiskBytes = float64(v)
		}
		h.BinlogBytes = logBytes(s.BinlogBytes)
	}
	for host, s := range res.Sizes {
		if host != master && s != nil {
			h.RelayBytes = MaxNaN(h.RelayBytes, logBytes(s.RelayLogBytes))
		}
	}
	if c := res.Consistency; c != nil {
		// The master's row counts (the first host of each table's values).
		var rows int64
		for _, t := range c.Tables {
			if len(t.Values) > 0 {
				rows += t.Values[0].Rows
			}
		}
		if rows > 0 {
			h.Rows = float64(rows)
		}
	}
	if m := res.Monitor; m != nil {
		if ss := m.SemiSync; ss != nil && ss.Enabled {
			h.SemiSync = true
			h.FallbackS, h.NoTx = ss.AsyncFallbackSeconds, float64(ss.NoTx)
		}
		for _, l := range m.Lag {
			h.MaxLagS = MaxNaN(h.MaxLagS, intNaN(l.MaxSeconds))
			h.MaxLagTx = MaxNaN(h.MaxLagTx, intNaN(l.MaxTransactions))
		}
		h.Stalls = len(m.Stalls)
	}
	return h
}

// intNaN is *p, or NaN when p is nil (not recorded).
func intNaN(p *int64) float64 {
	if p == nil {
		return math.NaN()
	}
	return float64(*p)
}

// ReadJSON decodes path into v; a missing file is not an error (false).
func ReadJSON(path string, v any) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}

// readEvents reads events.jsonl, skipping a torn last line (the file is
// appended to while a run goes on).
func readEvents(path string) ([]Event, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Event
	lines := strings.Split(string(b), "\n")
	for i, line := range lines {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var e Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			if i == len(lines)-1 {
				break
			}
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// spanKinds pairs the event kinds that open a shaded period with the kinds
// that close it.
var spanKinds = map[string]struct{ end, what string }{
	"semisync_off":    {"semisync_on", "semi-sync off"},
	"stall":           {"stall_cleared", "stall"},
	"replica_stopped": {"replica_running", "replica stopped"},
	"host_error":      {"host_recovered", "host not answering"},
	"stacks_start":    {"stacks_end", SpanStacks},
}

// isFault reports whether kind is a fault-injection event and whether it
// opens (fault, fault_start, fault_partition...) or closes (fault_end,
// fault_cleared, fault_healed...) a fault.
func isFault(kind string) (fault, closes bool) {
	if kind != "fault" && !strings.HasPrefix(kind, "fault_") {
		return false, false
	}
	for _, s := range []string{"_end", "_cleared", "_healed", "_stop", "_removed", "_off"} {
		if strings.HasSuffix(kind, s) {
			return true, true
		}
	}
	return true, false
}

// Spans turns events into shaded periods, in seconds since start. A period
// still open when the events end lasts until the monitor stopped (or the
// last event); a fault without an end is shaded for one second.
func Spans(events []Event, start time.Time) []Span {
	if start.IsZero() && len(events) > 0 {
		start = events[0].T
	}
	sec := func(t time.Time) float64 { return t.Sub(start).Seconds() }
	end := 0.0
	for _, e := range events {
		end = math.Max(end, sec(e.T))
	}
	var out []Span
	open := map[string]int{} // host+closing kind -> index in out
	for _, e := range events {
		if k, ok := spanKinds[e.Kind]; ok {
			key := e.Host + "\x00" + k.end
			if _, dup := open[key]; !dup {
				open[key] = len(out)
				out = append(out, Span{From: sec(e.T), To: math.NaN(), What: k.what, Host: e.Host, Detail: stackTool(e)})
			}
			continue
		}
		if fault, closes := isFault(e.Kind); fault {
			key := e.Host + "\x00fault"
			if closes {
				if i, ok := open[key]; ok {
					out[i].To = sec(e.T)
					delete(open, key)
				}
				continue
			}
			if _, dup := open[key]; !dup {
				open[key] = len(out)
				what := "fault"
				if e.Detail != "" {
					what += ": " + e.Detail
				}
				out = append(out, Span{From: sec(e.T), To: math.NaN(), What: what, Host: e.Host})
			}
			continue
		}
		if i, ok := open[e.Host+"\x00"+e.Kind]; ok {
			out[i].To = sec(e.T)
			delete(open, e.Host+"\x00"+e.Kind)
		}
	}
	for key, i := range open {
		out[i].To = end
		if strings.HasSuffix(key, "\x00fault") {
			out[i].To = out[i].From + 1
		}
	}
	return out
}

func MaxNaN(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Max(a, b)
}

func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
