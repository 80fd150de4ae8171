// Package fakemaria simulates Debian hosts running MariaDB 10.11, for the
// unit tests of the packages that drive whole clusters (up, runner,
// matrix). It is written from what such a host does (shell, option files,
// service scripts) and what the server answers (the MariaDB manual), not
// from orch's code: the shell side is in host.go, the SQL side in sql.go. A
// command or statement it does not know fails loudly, so a test sees every
// new conversation.
package fakemaria

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/internal/sqlfake"
	"github.com/orch-bench/orch/topology"
)

const (
	ConfDir   = "/etc/mysql/conf.d"
	boxLog    = "/var/log/mysql/error.log"
	StartCmd  = "/opt/db/start"
	StopCmd   = "/opt/db/stop"
	boxStatus = "/opt/db/status"
)

// Host is one host: its files, its server and what it was asked.
type Host struct {
	lab  *Lab
	name string
	addr string
	// cut is set while the host's link is down; gen counts the cuts, so a
	// connection made before one stays dead.
	cut   bool
	gen   int
	dials int
	// noSocket: the server runs but its socket file is gone (a second
	// instance's start removed it), so only open connections work.
	noSocket bool

	mu      sync.Mutex
	files   map[string]string
	running bool
	errLog  string
	// badOption, when set, is an option name the server refuses to start
	// with (as a typo in a config file makes it).
	badOption string
	cmds      []string
	db        *DB
}

// Lab is the network: hosts by address, so slaves reach their master.
type Lab struct {
	sql   sync.Mutex // every server's SQL state
	mu    sync.Mutex
	hosts map[string]*Host
	Hosts []*Host
}

// NewLab is a lab of stock, running servers on inv's database hosts.
func NewLab(inv *topology.Inventory) *Lab {
	l := &Lab{hosts: map[string]*Host{}}
	for _, h := range inv.DBHosts() {
		mh := &Host{lab: l, name: h.Name, addr: h.Address, files: map[string]string{}, running: true}
		mh.db = newDB(mh)
		l.hosts[h.Address] = mh
		l.Hosts = append(l.Hosts, mh)
	}
	return l
}

func (l *Lab) host(addr string) *Host {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hosts[addr]
}

// Dial is the cluster's executor dialer: this lab's host for h.
func (l *Lab) Dial(_ context.Context, h *topology.Host, _ executor.DialConfig) (executor.Executor, error) {
	mh := l.host(h.Address)
	if mh == nil {
		return nil, fmt.Errorf("%s: no route to host", h)
	}
	mh.mu.Lock()
	defer mh.mu.Unlock()
	if mh.cut {
		return nil, fmt.Errorf("%s: connect %s:22: no route to host", h, h.Address)
	}
	mh.dials++
	return &link{Host: mh, gen: mh.gen}, nil
}

// OpenDB is the cluster's MySQL opener: a pool to the host's server.
func (l *Lab) OpenDB(ctx context.Context, h *topology.Host, ex executor.Executor) (*sql.DB, error) {
	mh := l.host(h.Address)
	if mh == nil {
		return nil, fmt.Errorf("%s: no route to host", h)
	}
	ln, _ := ex.(*link) // the tunnel the pool's connections go through
	db := sqlfake.Open(func(context.Context) (sqlfake.Session, error) { return mh.connect(ln) })
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: mysql: %w", h, err)
	}
	return db, nil
}

func (h *Host) Name() string { return h.name + " " + h.addr }
func (h *Host) Close() error { return nil }

func (h *Host) Upload(_ context.Context, r io.Reader, p string, _ os.FileMode, _ bool) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cmds = append(h.cmds, "upload "+p)
	h.files[p] = string(b)
	return nil
}

func (h *Host) Download(_ context.Context, p string, w io.Writer, _ bool) (os.FileMode, error) {
	h.mu.Lock()
	text, ok := h.files[p]
	h.mu.Unlock()
	if !ok {
		return 0, fmt.Errorf("%s: %s: no such file", h.Name(), p)
	}
	_, err := io.WriteString(w, text)
	return 0o644, err
}

func (h *Host) exit(code int, stderr string) error {
	return &executor.ExitError{Host: h.Name(), ExitCode: code, Stderr: stderr}
}

var (
	reQuotedP = regexp.MustCompile(`^p='?([^'\s]+)'?`)
	reTail    = regexp.MustCompile(`tail -c \+(\d+)`)
	reHead    = regexp.MustCompile(`\| head -c (\d+)`)
)

func (h *Host) Run(ctx context.Context, c executor.Command) (executor.Result, error) {
	if err := ctx.Err(); err != nil {
		return executor.Result{}, err
	}
	s := c.Script
	h.mu.Lock()
	h.cmds = append(h.cmds, s)
	h.mu.Unlock()
	out := func(text string) (executor.Result, error) { return h.output(c, []byte(text)) }
	switch {
	case s == "true":
		return out("")
	case strings.Contains(s, "/proc/1/comm"):
		// A host without systemd, with the option-file tool installed.
		return out("pid1=sh\nprint_defaults=my_print_defaults\n")
	case strings.Contains(s, "echo orig="):
		p := reQuotedP.FindStringSubmatch(s)[1]
		h.mu.Lock()
		defer h.mu.Unlock()
		b := "orig=0\n"
		if _, ok := h.files[p+".orig"]; ok {
			b = "orig=1\n"
		}
		if text, ok := h.files[p]; ok {
			b += "exists=1\n" + text
		} else {
			b += "exists=0\n"
		}
		return out(b)
	case strings.HasPrefix(s, "cp -p "), strings.HasPrefix(s, "rm -f "):
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, part := range strings.Split(s, " && ") {
			f := strings.Fields(strings.ReplaceAll(part, "'", ""))
			switch f[0] {
			case "cp":
				h.files[f[3]] = h.files[f[2]]
			case "rm":
				for _, p := range f[2:] {
					delete(h.files, p)
				}
			}
		}
		return out("")
	case strings.HasPrefix(s, "cd ") && strings.Contains(s, "ls -1A"):
		// A directory listing: the base names of the files under it.
		dir := strings.Trim(strings.Fields(s)[1], "'")
		h.mu.Lock()
		defer h.mu.Unlock()
		var names []string
		for f := range h.files {
			if path.Dir(f) == dir {
				names = append(names, path.Base(f))
			}
		}
		sort.Strings(names)
		return out(strings.Join(names, "\n") + "\n")
	case s == "my_print_defaults --mysqld", s == "my_print_defaults mysqld server":
		return out(strings.Join(h.options(), "\n") + "\n")
	case strings.HasPrefix(s, "stat -c %s "):
		h.mu.Lock()
		defer h.mu.Unlock()
		return out(strconv.Itoa(len(h.errLog)) + "\n")
	case reTail.MatchString(s):
		from, _ := strconv.Atoi(reTail.FindStringSubmatch(s)[1])
		h.mu.Lock()
		defer h.mu.Unlock()
		text := ""
		if from-1 <= len(h.errLog) {
			text = h.errLog[from-1:]
		}
		if m := reHead.FindStringSubmatch(s); m != nil {
			n, _ := strconv.Atoi(m[1])
			text = text[:min(n, len(text))]
		}
		if strings.Contains(s, "| gzip -c") {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write([]byte(text))
			zw.Close()
			return h.output(c, b.Bytes())
		}
		return out(text)
	case s == StopCmd:
		h.mu.Lock()
		h.running = false
		h.mu.Unlock()
		return out("")
	case s == StartCmd:
		return h.start()
	case s == boxStatus:
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.running {
			return out("running\n")
		}
		return executor.Result{ExitCode: 3}, h.exit(3, "")
	}
	return executor.Result{}, fmt.Errorf("fake host %s: unexpected command %q", h.Name(), s)
}

// output is a command's standard output: streamed to c.Stdout when the
// caller gave one, as an executor does, else returned in the Result.
func (h *Host) output(c executor.Command, b []byte) (executor.Result, error) {
	if c.Stdout != nil {
		_, err := c.Stdout.Write(b)
		return executor.Result{}, err
	}
	return executor.Result{Stdout: b}, nil
}

// options are the [mysqld] options of the config dir's files in the order
// the server reads them (file names sorted), as my_print_defaults prints.
func (h *Host) options() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var names []string
	for p := range h.files {
		if path.Dir(p) == ConfDir && strings.HasSuffix(p, ".cnf") {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	var opts []string
	for _, p := range names {
		section := ""
		sc := bufio.NewScanner(strings.NewReader(h.files[p]))
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			switch {
			case line == "" || strings.HasPrefix(line, "#"):
			case strings.HasPrefix(line, "["):
				section = strings.Trim(line, "[]")
			case section == "mysqld" || section == "server" || section == "mariadb":
				k, v, ok := strings.Cut(line, "=")
				k = strings.ReplaceAll(strings.TrimSpace(k), "-", "_")
				if ok {
					opts = append(opts, "--"+k+"="+strings.TrimSpace(v))
				} else {
					opts = append(opts, "--"+k)
				}
			}
		}
	}
	return opts
}

// start brings the server up on the option files, or fails as mariadbd
// does on an option it does not know.
func (h *Host) start() (executor.Result, error) {
	opts := h.options()
	h.mu.Lock()
	for _, o := range opts {
		name, _, _ := strings.Cut(strings.TrimPrefix(o, "--"), "=")
		if name == h.badOption {
			h.errLog += "2026-12-01  9:00:00 0 [ERROR] /usr/sbin/mariadbd: unknown variable '" + strings.TrimPrefix(o, "--") + "'\n" +
				"2026-12-01  9:00:00 0 [ERROR] Aborting\n"
			h.mu.Unlock()
			return executor.Result{ExitCode: 1}, h.exit(1, "mariadb failed to start")
		}
	}
	h.mu.Unlock()
	h.db.boot(opts)
	h.mu.Lock()
	h.running = true
	h.mu.Unlock()
	return executor.Result{}, nil
}

// Ran reports the host's commands (scripts, "upload PATH") from index from.
func (h *Host) Ran(from int) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.cmds[from:]...)
}

// Running says whether the host's server runs.
func (h *Host) Running() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running
}

var errDown = errors.New("dial unix /run/mysqld/mysqld.sock: connect: connection refused")
