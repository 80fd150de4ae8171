package bench

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// formatSamples is one real output of each format (testdata, captured from
// the real programs): a format without one fails the completeness test.
var formatSamples = map[Tool]string{
	ToolSysbench:  "sysbench-1.0-oltp_insert-innodb-run.txt",
	ToolMysqlslap: "mariadb-slap-write-innodb.txt",
	ToolDBInsert:  "db-insert-tokudb-real.txt",
}

// optionalFields may be left empty without a reason: empty has a meaning
// of its own there (no other names; a tail can be carried; nothing beyond
// the common defaults, rules and password options).
var optionalFields = []string{"Aliases", "Tail", "None", "Defaults", "Validate", "PasswordArg"}

// TestDriverTableComplete fails on an entry of Drivers that leaves a field
// empty without saying why in None, naming the driver and the field, and
// on reasons given for fields that are set (stale).
func TestDriverTableComplete(t *testing.T) {
	for _, d := range Drivers {
		for _, problem := range specProblems(d) {
			t.Errorf("driver %s: %s", d.Kind, problem)
		}
	}
}

func specProblems(d DriverSpec) []string {
	var out []string
	v, ty := reflect.ValueOf(d), reflect.TypeFor[DriverSpec]()
	for i := range ty.NumField() {
		name := ty.Field(i).Name
		if slices.Contains(optionalFields, name) {
			continue
		}
		why, hasWhy := d.None[name]
		switch empty := v.Field(i).IsZero() || (v.Field(i).Kind() == reflect.Slice && v.Field(i).Len() == 0); {
		case empty && (!hasWhy || strings.TrimSpace(why) == ""):
			out = append(out, "no "+name+" (set it, or say why not in None)")
		case !empty && hasWhy:
			out = append(out, name+" is set, but None says why it is not: "+why)
		}
	}
	for name := range d.None {
		if _, ok := ty.FieldByName(name); !ok {
			out = append(out, "None names "+name+", which is no field")
		}
	}
	return out
}

// The completeness test itself fails on an entry missing a field.
func TestDriverTableCompleteNamesTheMissing(t *testing.T) {
	d := Drivers[0]
	d.Processes = nil
	d.None = map[string]string{"Program": "x", "Checks": "y"}
	got := strings.Join(specProblems(d), "; ")
	for _, want := range []string{"no Processes", "Checks is set, but None says why it is not: y"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %q lack %q", got, want)
		}
	}
}

// TestDriverTableTrue holds each entry to its driver: the phases it lists
// are the ones its Step builds, each output format has a parser that reads
// a real sample of it into a result of that format with figures, and a
// metric has one direction whichever driver names it.
func TestDriverTableTrue(t *testing.T) {
	kinds := map[DriverKind]bool{}
	direction := map[string]bool{}
	for _, d := range Drivers {
		if kinds[d.Kind] {
			t.Errorf("driver %s: two entries", d.Kind)
		}
		kinds[d.Kind] = true
		w := &Workload{Name: "t", Tool: d.Kind, Binary: "/bin/prog", Test: "oltp_insert", Parser: string(ToolSysbench)}
		drv := d.New(w)
		for _, p := range []Phase{PhasePrepare, PhaseRun, PhaseCleanup} {
			s, err := drv.Step(p, Target{})
			if has := d.has(p); has != (err == nil) {
				t.Errorf("driver %s: phase %s listed %v, but Step says %v", d.Kind, p, has, err)
			} else if has && s.Output != p.Output() {
				t.Errorf("driver %s: phase %s writes %q, not %q", d.Kind, p, s.Output, p.Output())
			}
		}
		for _, m := range d.Metrics {
			if prev, ok := direction[m.Name]; ok && prev != m.LowerIsBetter {
				t.Errorf("metric %q: lower is better %v for %s, %v elsewhere", m.Name, m.LowerIsBetter, d.Kind, prev)
			}
			direction[m.Name] = m.LowerIsBetter
			if LowerIsBetter(m.Name) != m.LowerIsBetter {
				t.Errorf("LowerIsBetter(%q) disagrees with %s's entry", m.Name, d.Kind)
			}
		}
		if d.Tool == "" {
			continue
		}
		sample, ok := formatSamples[d.Tool]
		if !ok {
			t.Errorf("driver %s: no real sample of %s output in formatSamples", d.Kind, d.Tool)
			continue
		}
		f, err := os.Open(filepath.Join("testdata", sample))
		if err != nil {
			t.Fatal(err)
		}
		res, err := d.Parse(sample, f)
		f.Close()
		if err != nil || res == nil || res.Kind() != d.Tool {
			t.Errorf("driver %s: parsing %s: %v, %v", d.Kind, sample, res, err)
		}
		if got, err := Parse(d.Tool, sample, strings.NewReader("")); got != nil || err == nil {
			t.Errorf("driver %s: empty output parsed as %v", d.Kind, got)
		}
	}
}

// A workload's defaults and checks come from its driver's entry.
func TestDriverTableDrivesWorkloads(t *testing.T) {
	for _, d := range Drivers {
		w := &Workload{Name: "t", Tool: d.Kind, Binary: "/bin/prog", Test: "oltp_insert", Parser: string(ToolSysbench)}
		if d.Tool != "" {
			w.Parser = ""
		}
		if !d.Test {
			w.Test = ""
		}
		w.Binary = ""
		w.applyDefaults()
		if w.Binary != d.Program {
			t.Errorf("driver %s: default binary %q, entry says %q", d.Kind, w.Binary, d.Program)
		}
		if w.Prepare != d.has(PhasePrepare) {
			t.Errorf("driver %s: prepare by default %v, entry's phases %v", d.Kind, w.Prepare, d.Phases)
		}
		if got := w.LatencyPercentile(); got != d.Percentile {
			t.Errorf("driver %s: latency percentile %d, entry says %d", d.Kind, got, d.Percentile)
		}
		if w.Binary == "" && d.Tool == "" {
			w.Binary = "/bin/prog" // a custom workload's own program
		}
		if err := w.validate(); err != nil {
			t.Errorf("driver %s: %v", d.Kind, err)
			continue
		}
		if len(d.Schemas) > 0 && w.Database != d.Schemas[0] {
			t.Errorf("driver %s: database %q, want its first schema %q", d.Kind, w.Database, d.Schemas[0])
		}
		if w.UsesServer() != d.Server {
			t.Errorf("driver %s: uses the server %v, entry says %v", d.Kind, w.UsesServer(), d.Server)
		}
		w.Prepare = true
		if err := w.validate(); (err == nil) != d.has(PhasePrepare) {
			t.Errorf("driver %s: prepare asked: %v", d.Kind, err)
		}
	}
	if got := strings.Join(ClientProcesses(), ","); got != "sysbench,mariadb-slap,mysqlslap,db-insert,db-insert-bdb" {
		t.Errorf("client processes %s", got)
	}
	if got := strings.Join(BenchSchemas(), ","); got != "sbtest,mysqlslap" {
		t.Errorf("bench schemas %s", got)
	}
	for _, c := range []struct {
		schema, table string
		own           bool
	}{{"sbtest", "sbtest12", true}, {"sbtest", "sbtest", false}, {"sbtest", "t1", false}, {"mysqlslap", "t1", true}, {"mysqlslap", "t2", false}, {"app", "sbtest1", false}} {
		if OwnTable(c.schema, c.table) != c.own {
			t.Errorf("OwnTable(%s, %s) = %v", c.schema, c.table, !c.own)
		}
	}
}
