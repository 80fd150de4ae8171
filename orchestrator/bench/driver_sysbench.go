package bench

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
)

// sysbenchDriver drives sysbench 1.x and, with legacy set, 0.4/0.5. Both take
// the same knobs under different names (reference: mysql-sysbench.md §5.3).
type sysbenchDriver struct {
	w      *Workload
	legacy bool
}

// sysbenchNames maps a knob to its flag in 1.x and in legacy versions.
type sysbenchNames struct {
	tables, tableSize, engine, autoInc, threads, time, events string
}

var (
	sysbench1Names = sysbenchNames{"tables", "table-size", "mysql-storage-engine", "auto_inc", "threads", "time", "events"}
	legacyNames    = sysbenchNames{"oltp-tables-count", "oltp-table-size", "mysql-table-engine", "oltp-auto-inc", "num-threads", "max-time", "max-requests"}
)

func (d *sysbenchDriver) Workload() *Workload { return d.w }

// Step builds `sysbench TEST [flags] PHASE` (1.x) or
// `sysbench --test=TEST [flags] PHASE` (legacy). Each phase gets only the
// flags that matter to it: prepare the table layout, run the load knobs,
// cleanup the table count. extra_args come last, before the phase.
func (d *sysbenchDriver) Step(p Phase, t Target) (Step, error) {
	if err := t.check(); err != nil {
		return Step{}, fmt.Errorf("workload %s: %w", d.w.Name, err)
	}
	if p != PhasePrepare && p != PhaseRun && p != PhaseCleanup {
		return Step{}, fmt.Errorf("workload %s: sysbench has no %q phase", d.w.Name, p)
	}
	w, o := d.w, &d.w.Options
	prog := w.Binary
	if prog == "" {
		prog = "sysbench" // a workload built in code, without defaults
	}
	names := sysbench1Names
	argv := []string{prog, w.Test}
	if d.legacy {
		names = legacyNames
		argv = []string{prog, "--test=" + w.Test}
	}
	f := flags{"--db-driver=mysql"}
	f.add("mysql-host", t.Host)
	f.add("mysql-port", port(t.Port))
	f.add("mysql-user", t.User)
	f.add("mysql-db", w.Database)
	f.int(names.tables, o.Tables)
	switch p {
	case PhasePrepare:
		f.int(names.tableSize, o.TableSize)
		f.add(names.engine, o.Engine)
		f.onOff(names.autoInc, o.AutoInc)
		// 1.x prepares tables in parallel, one thread per table at most;
		// legacy prepare is single-threaded.
		if !d.legacy && o.Threads != nil {
			f.int(names.threads, ptr(min(*o.Threads, d.tables())))
		}
	case PhaseRun:
		// The run needs the layout too: table_size bounds the k column and
		// auto_inc decides whether inserts bring their own ids.
		f.int(names.tableSize, o.TableSize)
		f.onOff(names.autoInc, o.AutoInc)
		f.int(names.threads, o.Threads)
		f.int(names.time, o.TimeS)
		f.int(names.events, o.Events)
		if d.legacy && o.Events == nil && o.TimeS != nil {
			// 0.5 stops after 10000 requests by default: let time_s decide,
			// as it does in 1.x.
			f.add(names.events, "0")
		}
		f.int("report-interval", o.ReportIntervalS)
		f.int("percentile", o.Percentile)
		f.onOff("histogram", o.Histogram)
	}
	argv = append(append(append(argv, f...), w.ExtraArgs...), string(p))
	return newStep(w, p, fmt.Sprintf("sysbench %s %s", w.Test, p), argv, t), nil
}

func (d *sysbenchDriver) Parse(name string, r io.Reader) (Result, error) {
	return Parse(ToolSysbench, name, r)
}

func (d *sysbenchDriver) Progress(line string) (Interval, bool) {
	return ParseSysbenchInterval(line)
}

// oltpCommonTests are the sysbench 1.x tests whose prepare is oltp_common's:
// tables sbtest1..N of table_size rows in the chosen engine.
var oltpCommonTests = []string{
	"oltp_delete", "oltp_insert", "oltp_point_select", "oltp_read_only", "oltp_read_write",
	"oltp_update_index", "oltp_update_non_index", "oltp_write_only",
	"select_random_points", "select_random_ranges",
}

// Dataset is known for the oltp_common tests (also given as a path to a
// script of that name) and for legacy tests, whose database tests all
// prepare the same sbtest tables: sbtest1..N in 0.5, a single sbtest table
// in 0.4's built-in oltp test.
func (d *sysbenchDriver) Dataset() (DatasetSpec, bool) {
	o := &d.w.Options
	spec := DatasetSpec{Database: d.w.Database, TableSize: 10000, Engine: "innodb"}
	if o.TableSize != nil {
		spec.TableSize = *o.TableSize
	}
	if o.Engine != "" {
		spec.Engine = o.Engine
	}
	test := strings.TrimSuffix(path.Base(d.w.Test), ".lua")
	switch {
	case d.legacy && d.w.Test == "oltp":
		spec.Tables = []string{"sbtest"}
		return spec, true
	case !d.legacy && !slices.Contains(oltpCommonTests, test):
		return DatasetSpec{}, false
	case !d.legacy && test == "oltp_insert" && o.AutoInc != nil && !*o.AutoInc:
		// oltp_insert prepares empty tables when ids are client-generated,
		// so they cannot collide with the random ids the run inserts; the
		// run still draws column k from 1..table_size (oltp_insert.lua).
		spec.EmptyWhy = fmt.Sprintf("oltp_insert with auto_inc=off prepares no rows whatever table_size says "+
			"(table_size=%d only bounds the values of column k)", spec.TableSize)
		spec.TableSize = 0
	}
	for i := 1; i <= d.tables(); i++ {
		spec.Tables = append(spec.Tables, fmt.Sprintf("sbtest%d", i))
	}
	return spec, true
}

// tables is the table count sysbench will use (its default is 1).
func (d *sysbenchDriver) tables() int {
	if t := d.w.Options.Tables; t != nil {
		return *t
	}
	return 1
}

func ptr[T any](v T) *T { return &v }
