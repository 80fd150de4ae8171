package history

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// Identity is what produced a run's figures: two runs are points of one
// series only when every field is equal (or ignored by the user). The
// workload's name and its metric are never ignored.
type Identity struct {
	Workload string `json:"workload"`
	Metric   string `json:"metric"`
	// Params are the workload's effective parameters ("threads=16 ...").
	Params string `json:"params"`
	Engine string `json:"engine"`
	// Knobs are the server variables the run set ("name=value ...").
	Knobs string `json:"knobs"`
	// Version is every server's flavour and version (and the engine's own
	// version where it has one), distinct values sorted.
	Version string `json:"version"`
	// Client is the client tool and its version.
	Client string `json:"client"`
	// Hardware is each host's CPU model and count, memory and disk.
	Hardware string `json:"hardware"`
	// Topology is the cluster's shape, semi-sync state and host names.
	Topology string `json:"topology"`
	Cluster  string `json:"cluster"`
}

// Fields are the identity fields --ignore accepts, in display order.
var Fields = []string{"params", "engine", "knobs", "version", "client", "hardware", "topology", "cluster"}

// field is the value of a named field.
func (id Identity) field(name string) string {
	switch name {
	case "workload":
		return id.Workload
	case "metric":
		return id.Metric
	case "params":
		return id.Params
	case "engine":
		return id.Engine
	case "knobs":
		return id.Knobs
	case "version":
		return id.Version
	case "client":
		return id.Client
	case "hardware":
		return id.Hardware
	case "topology":
		return id.Topology
	case "cluster":
		return id.Cluster
	}
	return ""
}

// allFields are every field, those never ignored first.
var allFields = append([]string{"workload", "metric"}, Fields...)

// CheckIgnore validates --ignore's field names.
func CheckIgnore(ignore []string) error {
	for _, f := range ignore {
		if !slices.Contains(Fields, f) {
			return fmt.Errorf("--ignore %s: want one of %s", f, strings.Join(Fields, ", "))
		}
	}
	return nil
}

// Key is the series the identity belongs to with the ignored fields left
// out: a short, stable name (the first 10 hex digits of a SHA-256).
func (id Identity) Key(ignore []string) string {
	h := sha256.New()
	for _, f := range allFields {
		if slices.Contains(ignore, f) {
			continue
		}
		fmt.Fprintf(h, "%s=%q\n", f, id.field(f))
	}
	return hex.EncodeToString(h.Sum(nil))[:10]
}

// Diff names the fields in which a and b differ, with both values
// ("version: MariaDB 10.11.19 -> MySQL 9.7.4").
func Diff(a, b Identity, ignore []string) []string {
	var out []string
	for _, f := range allFields {
		if slices.Contains(ignore, f) || a.field(f) == b.field(f) {
			continue
		}
		va, vb := changed(a.field(f), b.field(f), f == "params" || f == "knobs")
		out = append(out, fmt.Sprintf("%s: %s -> %s", f, orNone(va), orNone(vb)))
	}
	return out
}

// DiffFields is Diff's field names only.
func DiffFields(a, b Identity, ignore []string) []string {
	var out []string
	for _, f := range allFields {
		if !slices.Contains(ignore, f) && a.field(f) != b.field(f) {
			out = append(out, f)
		}
	}
	return out
}

// changed keeps the parts of two lists that are not in both, so that a
// long field's difference reads at a glance: words of a list of
// name=value (params, knobs), else the "; "-separated parts (a server and
// its engine's version, hosts): "MariaDB 10.11.19 -> MariaDB 10.5.23",
// never "10.11.19 -> 10.5.23".
func changed(a, b string, words bool) (string, string) {
	sep := "; "
	if words {
		sep = " "
	}
	pa, pb := strings.Split(a, sep), strings.Split(b, sep)
	var ka, kb []string
	for _, x := range pa {
		if !slices.Contains(pb, x) {
			ka = append(ka, x)
		}
	}
	for _, x := range pb {
		if !slices.Contains(pa, x) {
			kb = append(kb, x)
		}
	}
	if len(ka) == 0 && len(kb) == 0 {
		return a, b // the same parts in another order
	}
	return strings.Join(ka, sep), strings.Join(kb, sep)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// identityOf reads a run's identity from what its report loaded.
func identityOf(rec report.RunRecord) Identity {
	r := rec.Run
	id := Identity{Workload: rec.Workload, Metric: rec.Metric, Engine: r.Engine, Knobs: r.KnobString()}
	params := make([]string, len(r.Params))
	for i, p := range r.Params {
		params[i] = p.Name + "=" + p.Value
	}
	id.Params = strings.Join(params, " ")
	ev := r.Evidence
	if ev == nil {
		return id
	}
	id.Cluster = ev.Cluster
	if r.Cluster != "" {
		id.Cluster = r.Cluster
	}
	vs := distinct(ev.Servers)
	if ev := distinct(ev.EngineVersions); ev != "" {
		vs += "; " + ev
	}
	id.Version = vs
	id.Client = distinct(ev.Clients)
	if c, ok := ev.Clients[rec.Tool]; ok {
		id.Client = c
	}
	id.Hardware = hardware(ev.Facts)
	id.Topology = topology(r.Topology, ev)
	return id
}

// distinct is a map's distinct values, sorted and joined.
func distinct(m map[string]string) string {
	var vs []string
	for _, v := range m {
		if v != "" && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	sort.Strings(vs)
	return strings.Join(vs, "; ")
}

// hardwareFacts are the host facts that fingerprint a machine (the
// volatile ones, free disk or clock offset, are not).
var hardwareFacts = []string{"cpu_model", "cpus", "memory_mb", "disk_model", "disk_kind", "disk_fs", "disk_size_mb"}

func hardware(facts []load.HostFacts) string {
	var hosts []string
	for _, h := range facts {
		var parts []string
		for _, want := range hardwareFacts {
			for _, kv := range h.Facts {
				if kv[0] == want && kv[1] != "" {
					parts = append(parts, want+"="+kv[1])
				}
			}
		}
		if len(parts) > 0 {
			hosts = append(hosts, h.Host+": "+strings.Join(parts, ", "))
		}
	}
	sort.Strings(hosts)
	return strings.Join(hosts, "; ")
}

// topology is the report's shape line with the hosts by role.
func topology(shape string, ev *load.Evidence) string {
	var hosts []string
	for h, role := range ev.Roles {
		hosts = append(hosts, role+" "+h)
	}
	sort.Strings(hosts)
	if len(hosts) == 0 {
		return shape
	}
	return strings.TrimPrefix(shape+"; "+strings.Join(hosts, ", "), "; ")
}
