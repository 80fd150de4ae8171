package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// fakeHost is a host and its server in memory, for the paths no lab runs
// (Percona 5.7 with TokuDB, MySQL 8). It is both the executor and the SQL
// connection of a Node, understands exactly the commands and statements
// this package sends, records them, and fails the test run loudly (an
// error) on anything else.
type fakeHost struct {
	files    map[string]string
	vars     map[string]string
	readOnly map[string]bool
	engines  [][]string // ENGINE, SUPPORT
	plugins  map[string]bool
	running  bool
	errLog   string
	// baseDefaults are the options of the distribution's own files, read
	// before the config dir's.
	baseDefaults []string
	// startError, when it returns a line, makes a start fail with it.
	startError func(cnf string) string
	thp        string
	uptime     int
	// failInstall makes INSTALL PLUGIN of this plugin fail.
	failInstall string

	cmds []string // scripts run, "upload PATH", in order
	sql  []string // statements and queries, in order
}

const (
	fakeDir   = "/etc/mysql/conf.d"
	fakeLog   = "/var/log/mysql/error.log"
	fakeStart = "/usr/local/bin/start-mysqld"
	fakeStop  = "/usr/local/bin/stop-mysqld"
)

func newFakeHost(vars map[string]string) *fakeHost {
	return &fakeHost{files: map[string]string{}, vars: vars, readOnly: map[string]bool{}, plugins: map[string]bool{},
		running: true, thp: "never", engines: [][]string{{"InnoDB", "DEFAULT"}, {"MyISAM", "YES"}, {"CSV", "YES"}}}
}

// fakeNode is a Node on h with the facts Open would have found.
func fakeNode(h *fakeHost, host *topology.Host, s flavor.Server, pluginFiles ...string) *Node {
	return &Node{Host: host, Exec: h, Server: s, db: h, Facts: Facts{
		Datadir: "/var/lib/mysql/", PluginDir: "/usr/lib/mysql/plugin/", ErrorLog: fakeLog, ConfigDir: fakeDir,
		PrintDefaults: "my_print_defaults --mysqld", PluginFiles: pluginFiles,
		Service:    Service{Desc: "the inventory's service commands", Start: fakeStart, Stop: fakeStop},
		THPEnabled: h.thp, THPDefrag: h.thp,
	}}
}

func (h *fakeHost) Name() string   { return "fake" }
func (h *fakeHost) Close() error   { return nil }
func exit(code int) error          { return &executor.ExitError{Host: "fake", ExitCode: code} }
func out(s string) executor.Result { return executor.Result{Stdout: []byte(s)} }

func (h *fakeHost) Upload(_ context.Context, r io.Reader, p string, _ os.FileMode, _ bool) error {
	b, err := io.ReadAll(r)
	h.cmds = append(h.cmds, "upload "+p)
	h.files[p] = string(b)
	return err
}

func (h *fakeHost) Download(context.Context, string, io.Writer, bool) (os.FileMode, error) {
	return 0, errors.New("fake: download not used")
}

var quotedRE = regexp.MustCompile(`^p=(\S+)\n`)

func (h *fakeHost) Run(_ context.Context, c executor.Command) (executor.Result, error) {
	s := c.Script
	h.cmds = append(h.cmds, s)
	switch {
	case strings.Contains(s, "echo orig="):
		p := quotedRE.FindStringSubmatch(s)[1]
		var b strings.Builder
		b.WriteString("orig=" + strconv.Itoa(h.has(p+".orig")) + "\n")
		if text, ok := h.files[p]; ok {
			b.WriteString("exists=1\n" + text)
		} else {
			b.WriteString("exists=0\n")
		}
		return out(b.String()), nil
	case strings.HasPrefix(s, "cp -p "), strings.HasPrefix(s, "rm -f "):
		for _, part := range strings.Split(s, " && ") {
			f := strings.Fields(part)
			switch f[0] {
			case "cp":
				h.files[f[3]] = h.files[f[2]]
			case "rm":
				for _, p := range f[2:] {
					delete(h.files, p)
				}
			}
		}
		return out(""), nil
	case s == "my_print_defaults --mysqld":
		return out(h.defaults()), nil
	case s == fakeStop:
		h.running = false
		return out(""), nil
	case s == fakeStart:
		return h.start()
	case strings.HasPrefix(s, "stat -c %s "):
		return out(strconv.Itoa(len(h.errLog))), nil
	case strings.Contains(s, "tail -c +"):
		from, _ := strconv.Atoi(regexp.MustCompile(`tail -c \+(\d+)`).FindStringSubmatch(s)[1])
		return out(h.errLog[from-1:]), nil
	case s == thpScript:
		h.thp = "never"
		return out(""), nil
	}
	return executor.Result{}, fmt.Errorf("fake: unexpected command %q", s)
}

func (h *fakeHost) has(p string) int {
	if _, ok := h.files[p]; ok {
		return 1
	}
	return 0
}

// cnfFiles are the config dir's *.cnf files in the order mysqld reads them.
func (h *fakeHost) cnfFiles() []string {
	var names []string
	for p := range h.files {
		if path.Dir(p) == fakeDir && strings.HasSuffix(p, ".cnf") {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	return names
}

func (h *fakeHost) defaults() string {
	lines := append([]string{}, h.baseDefaults...)
	for _, p := range h.cnfFiles() {
		f, err := parseCnf(p, h.files[p])
		if err != nil {
			continue
		}
		for _, l := range f.lines {
			if l.kind == lineOption && isServerSection(l.section) {
				lines = append(lines, "--"+cnfOption(l))
			}
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func cnfOption(l cnfLine) string {
	name := l.name
	if l.loose {
		name = "loose_" + name
	}
	if l.bare {
		return name
	}
	return name + "=" + l.value
}

// start reads the option files like mysqld: a start error (if the test set
// one), then every server option becomes the running value.
func (h *fakeHost) start() (executor.Result, error) {
	var all strings.Builder
	for _, p := range h.cnfFiles() {
		all.WriteString(h.files[p])
	}
	if h.startError != nil {
		if line := h.startError(all.String()); line != "" {
			h.errLog += "2026-01-01 10:00:00 0 [Note] Starting\n2026-01-01 10:00:00 0 [ERROR] " + line + "\n2026-01-01 10:00:00 0 [ERROR] Aborting\n"
			return executor.Result{}, exit(1)
		}
	}
	for _, o := range parseDefaults(h.defaults()) {
		if o.name == "default_storage_engine" && !h.hasEngine(o.value) {
			h.errLog += "2026-01-01 10:00:00 0 [ERROR] Unknown/unsupported storage engine: " + o.value + "\n"
			return executor.Result{}, exit(1)
		}
		if _, known := h.vars[o.name]; known {
			h.vars[o.name] = shownValue(o.name, o.value, o.bare)
		}
	}
	h.running, h.uptime = true, 0
	return out(""), nil
}

func (h *fakeHost) hasEngine(name string) bool {
	for _, e := range h.engines {
		if strings.EqualFold(e[0], name) {
			return true
		}
	}
	return false
}

var (
	setRE     = regexp.MustCompile(`^SET GLOBAL (\w+) = (.*)$`)
	onlyIfRE  = regexp.MustCompile(`PLUGIN_NAME = '(\w+)'\)$`)
	loadedRE  = regexp.MustCompile(`^SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = '(\w+)'$`)
	installRE = regexp.MustCompile(`^INSTALL PLUGIN (\w+) SONAME '(\S+)'$`)
	roRE      = regexp.MustCompile(`VARIABLE_NAME = '(\w+)'$`)
)

func (h *fakeHost) Query(_ context.Context, q string) ([][]string, error) {
	h.sql = append(h.sql, q)
	if !h.running {
		return nil, errors.New("fake: connection refused")
	}
	switch {
	case q == "SELECT 1":
		return [][]string{{"1"}}, nil
	case q == "SHOW GLOBAL VARIABLES":
		var rows [][]string
		for _, k := range slices.Sorted(maps.Keys(h.vars)) {
			rows = append(rows, []string{k, h.vars[k]})
		}
		return rows, nil
	case q == "SHOW GLOBAL STATUS LIKE 'Uptime'":
		h.uptime++
		return [][]string{{"Uptime", strconv.Itoa(h.uptime)}}, nil
	case q == "SELECT ENGINE, SUPPORT FROM information_schema.ENGINES":
		return h.engines, nil
	case strings.HasPrefix(q, "SELECT PLUGIN_NAME FROM information_schema.PLUGINS"):
		var rows [][]string
		for _, p := range slices.Sorted(maps.Keys(h.plugins)) {
			rows = append(rows, []string{p})
		}
		return rows, nil
	case onlyIfRE.MatchString(q):
		if h.plugins[onlyIfRE.FindStringSubmatch(q)[1]] {
			return nil, nil
		}
		return [][]string{{"1"}}, nil
	case loadedRE.MatchString(q):
		if h.plugins[loadedRE.FindStringSubmatch(q)[1]] {
			return [][]string{{"1"}}, nil
		}
		return nil, nil
	case roRE.MatchString(q):
		ro := "NO"
		if h.readOnly[strings.ToLower(roRE.FindStringSubmatch(q)[1])] {
			ro = "YES"
		}
		return [][]string{{ro}}, nil
	}
	return nil, fmt.Errorf("fake: unexpected query %q", q)
}

func (h *fakeHost) Exec(ctx context.Context, stmts ...string) error {
	for _, stmt := range stmts {
		if err := h.exec1(stmt); err != nil {
			return err
		}
	}
	return nil
}

func (h *fakeHost) exec1(stmt string) error {
	h.sql = append(h.sql, stmt)
	if !h.running {
		return errors.New("fake: connection refused")
	}
	if m := setRE.FindStringSubmatch(stmt); m != nil {
		if h.readOnly[m[1]] {
			return &mysql.MySQLError{Number: 1238, Message: "Variable '" + m[1] + "' is a read only variable"}
		}
		if m[2] != "@@GLOBAL."+m[1] {
			h.vars[m[1]] = strings.Trim(m[2], "'")
		}
		return nil
	}
	if m := installRE.FindStringSubmatch(stmt); m != nil {
		if m[1] == h.failInstall {
			return &mysql.MySQLError{Number: 1123, Message: "Can't initialize function '" + m[1] + "'; Plugin initialization function failed."}
		}
		h.plugins[m[1]] = true
		if m[1] == "tokudb" {
			h.engines = append(h.engines, []string{"TokuDB", "YES"})
			for _, v := range []string{"tokudb_cache_size", "tokudb_directio", "tokudb_fsync_log_period"} {
				h.vars[v] = "0"
			}
		}
		return nil
	}
	if strings.HasPrefix(stmt, "UNINSTALL PLUGIN ") {
		delete(h.plugins, strings.TrimPrefix(stmt, "UNINSTALL PLUGIN "))
		return nil
	}
	return fmt.Errorf("fake: unexpected statement %q", stmt)
}
