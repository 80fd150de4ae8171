package bench

import (
	"fmt"
	"io"
)

// slapDriver drives mysqlslap / mariadb-slap. It has only a run phase: the
// tool creates its schema (create-schema), loads it, runs the timed load and
// drops the schema itself.
type slapDriver struct {
	w *Workload
}

// slapPrograms are tried in order when the workload names no binary:
// MariaDB renamed the tool, and keeps mysqlslap only as a deprecated link.
var slapPrograms = []string{"mariadb-slap", "mysqlslap"}

func (d *slapDriver) Workload() *Workload { return d.w }

func (d *slapDriver) Step(p Phase, t Target) (Step, error) {
	if err := t.check(); err != nil {
		return Step{}, fmt.Errorf("workload %s: %w", d.w.Name, err)
	}
	if p != PhaseRun {
		return Step{}, fmt.Errorf("workload %s: mysqlslap has no %s phase (it creates and drops its schema itself)", d.w.Name, p)
	}
	w, o := d.w, &d.w.Options
	prog, fallbacks := w.Binary, []string(nil)
	if prog == "" {
		prog, fallbacks = slapPrograms[0], slapPrograms[1:]
	}
	var f flags
	f.add("host", t.Host)
	f.add("port", port(t.Port))
	f.add("user", t.User)
	f.add("create-schema", w.Database)
	f.add("concurrency", o.Concurrency.String())
	f.int("iterations", o.Iterations)
	f.set("auto-generate-sql", o.AutoGenerateSQL)
	f.add("auto-generate-sql-load-type", o.LoadType)
	f.set("auto-generate-sql-add-autoincrement", o.AddAutoIncrement)
	f.add("engine", o.Engine)
	f.int("number-of-queries", o.NumberOfQueries)
	f.int("auto-generate-sql-write-number", o.WriteNumber)
	f.set("debug-info", o.DebugInfo)
	argv := append(append([]string{prog}, f...), w.ExtraArgs...)
	s := newStep(w, p, "mysqlslap "+w.Name, argv, t)
	s.Fallbacks = fallbacks
	return s, nil
}

func (d *slapDriver) Parse(name string, r io.Reader) (Result, error) {
	return Parse(ToolMysqlslap, name, r)
}

// Progress is always false: mysqlslap prints nothing until it finishes.
func (d *slapDriver) Progress(string) (Interval, bool) { return Interval{}, false }

// Dataset is unknown: mysqlslap makes and drops its own schema every run.
func (d *slapDriver) Dataset() (DatasetSpec, bool) { return DatasetSpec{}, false }
