package bench

import (
	"fmt"
	"io"
	"path"
)

// customDriver runs any program (binary plus extra_args) and reads its
// output with the parser the workload names. The program learns the target
// from ORCH_MYSQL_HOST, ORCH_MYSQL_PORT, ORCH_MYSQL_USER and
// ORCH_MYSQL_DATABASE, and gets the password as MYSQL_PWD, which MySQL
// client libraries read by themselves.
type customDriver struct {
	w *Workload
}

func (d *customDriver) Workload() *Workload { return d.w }

func (d *customDriver) Step(p Phase, t Target) (Step, error) {
	if err := t.check(); err != nil {
		return Step{}, fmt.Errorf("workload %s: %w", d.w.Name, err)
	}
	if p != PhaseRun {
		return Step{}, fmt.Errorf("workload %s: a custom program has no %s phase", d.w.Name, p)
	}
	w := d.w
	argv := append([]string{w.Binary}, w.ExtraArgs...)
	s := newStep(w, p, path.Base(w.Binary)+" "+w.Name, argv, t)
	for k, v := range map[string]string{
		"ORCH_MYSQL_HOST":     t.Host,
		"ORCH_MYSQL_PORT":     port(t.Port),
		"ORCH_MYSQL_USER":     t.User,
		"ORCH_MYSQL_DATABASE": w.Database,
	} {
		if v == "" {
			continue
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[k] = v
	}
	return s, nil
}

// Parse uses the named parser; "mariadb-slap" is mysqlslap's.
func (d *customDriver) Parse(name string, r io.Reader) (Result, error) {
	return Parse(Tool(d.w.Parser), name, r)
}

// Progress reads sysbench interval lines when the program's output is
// sysbench's (a wrapper script); other parsers have no progress lines.
func (d *customDriver) Progress(line string) (Interval, bool) {
	if Tool(d.w.Parser) != ToolSysbench {
		return Interval{}, false
	}
	return ParseSysbenchInterval(line)
}

// Dataset is unknown: orch cannot see what a custom program creates.
func (d *customDriver) Dataset() (DatasetSpec, bool) { return DatasetSpec{}, false }
