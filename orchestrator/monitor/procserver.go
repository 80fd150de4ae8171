package monitor

import (
	"context"
	"database/sql"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/shell"
)

// The server's own counters, and a load box's, come from /proc/PID files:
// on hosts sharing a kernel (the lab, containers) /proc/stat and
// /proc/diskstats are the whole machine's and say nothing about one server.
//
// One awk per sample reads a server's threads: /proc/PID/status counts the
// context switches of the main thread only, so the process's are the sum
// over /proc/PID/task/*/status (a thread that exits takes its count with
// it: a drop reads as "no value", see serverSnap). That costs one fork per
// second; the shell builtins alone would read those files a byte at a time.

// procHzScript prints the clock ticks per second, once per session.
const procHzScript = "echo @hz; getconf CLK_TCK 2>/dev/null || echo 100\n"

// serverAwk sums a server's threads: runnable ones (state R), context
// switches, and passes /proc/PID/io through. Files are read with getline in
// BEGIN: a thread that exits between the glob and the read makes getline
// fail quietly, where a missing input file would end mawk with no output.
const serverAwk = `BEGIN { for (i = 1; i < ARGC; i++) { f = ARGV[i]
  k = f ~ /\/io$/ ? 1 : f ~ /\/stat$/ ? 2 : 3
  while ((getline l < f) > 0) {
    if (k == 1) print "io", l
    else if (k == 2) { s = l; sub(/^.*\) /, "", s); n++; if (substr(s, 1, 1) == "R") r++ }
    else if (index(l, "ctxt_switches:")) { split(l, x, " "); if (x[1] == "voluntary_ctxt_switches:") v += x[2]; else iv += x[2] }
  }
  close(f) }
  print "threads", n + 0; print "run", r + 0; print "vcs", v + 0; print "ivcs", iv + 0; exit }`

// procServerScript reads the server's pid from its pid file (read again
// each sample: a restarted server has a new pid), then its counters.
func procServerScript(pidFile string) string {
	return "echo @srv; if read -r pid 2>/dev/null < " + shell.Quote(pidFile) + " && read -r l 2>/dev/null < /proc/$pid/stat; then\n" +
		"printf 'pid %s\\n' \"$pid\"; printf 'stat %s\\n' \"$l\"\n" +
		"awk " + shell.Quote(serverAwk) + " /proc/$pid/io /proc/$pid/task/*/stat /proc/$pid/task/*/status 2>/dev/null\nfi\n"
}

// ClientCommands are the benchmark clients whose CPU a load box's
// client_cpu_us_ps sums (process names, /proc/PID/stat's comm).
var ClientCommands = []string{"sysbench", "mysqlslap", "mariadb-slap", "db-insert"}

// boxAwk sums every process the host shows (its own PID namespace in the
// lab, the whole machine elsewhere): CPU of all and of the clients, and
// runnable tasks, the host's own run queue.
func boxAwk() string {
	var m []string
	for _, c := range ClientCommands {
		m = append(m, `c == "`+c+`"`)
	}
	return `BEGIN { for (i = 1; i < ARGC; i++) { f = ARGV[i]
  if ((getline l < f) > 0) {
    c = l; sub(/^[^(]*\(/, "", c); sub(/\)[^)]*$/, "", c); s = l; sub(/^.*\) /, "", s); split(s, x, " ")
    if (f ~ /\/task\//) { if (x[1] == "R") r++ }
    else { t = x[12] + x[13]; all += t; if (` + strings.Join(m, " || ") + `) cl += t }
  }
  close(f) }
  printf "box %.0f %.0f %d\n", all, cl, r; exit }`
}

const procBoxScript = "echo @box; awk "

func procBoxSample() string {
	return procBoxScript + shell.Quote(boxAwk()) + " /proc/[0-9]*/stat /proc/[0-9]*/task/[0-9]*/stat 2>/dev/null\n"
}

// serverSnap is one read of the server's /proc/PID files.
type serverSnap struct {
	ok         bool
	pid        int64
	cpuTicks   uint64 // utime + stime
	vcs, ivcs  uint64
	readBytes  uint64
	writeBytes uint64
	syscr      uint64
	syscw      uint64
	hasIO      bool // /proc/PID/io was readable (root or the owner)
	threads    int64
	runnable   int64
}

// boxSnap is one read of a load box's processes.
type boxSnap struct {
	ok                   bool
	allTicks, clientTick uint64
	runnable             int64
}

func parseServerLine(s *serverSnap, f []string) error {
	num := func(i int) (uint64, error) {
		if i >= len(f) {
			return 0, fmt.Errorf("short line %q", strings.Join(f, " "))
		}
		return strconv.ParseUint(f[i], 10, 64)
	}
	var err error
	var v uint64
	switch f[0] {
	case "pid":
		v, err = num(1)
		s.pid, s.ok = int64(v), err == nil
	case "stat":
		// pid (comm) state ...: fields 14 and 15 (utime, stime) counted
		// after the comm, which may hold spaces.
		line := strings.Join(f[1:], " ")
		i := strings.LastIndex(line, ") ")
		if i < 0 {
			return fmt.Errorf("/proc/PID/stat: %q", line)
		}
		rest := strings.Fields(line[i+2:])
		if len(rest) < 13 {
			return fmt.Errorf("/proc/PID/stat: short %q", line)
		}
		u, err1 := strconv.ParseUint(rest[11], 10, 64)
		st, err2 := strconv.ParseUint(rest[12], 10, 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("/proc/PID/stat: %q", line)
		}
		s.cpuTicks = u + st
	case "io":
		v, err = num(2)
		switch f[1] {
		case "read_bytes:":
			s.readBytes, s.hasIO = v, err == nil
		case "write_bytes:":
			s.writeBytes = v
		case "syscr:":
			s.syscr = v
		case "syscw:":
			s.syscw = v
		}
	case "threads":
		v, err = num(1)
		s.threads = int64(v)
	case "run":
		v, err = num(1)
		s.runnable = int64(v)
	case "vcs":
		s.vcs, err = num(1)
	case "ivcs":
		s.ivcs, err = num(1)
	}
	if err != nil {
		return fmt.Errorf("/proc/PID: %q: %w", strings.Join(f, " "), err)
	}
	return nil
}

func parseBoxLine(b *boxSnap, f []string) error {
	if len(f) != 4 || f[0] != "box" {
		return fmt.Errorf("load box: unexpected %q", strings.Join(f, " "))
	}
	all, err1 := strconv.ParseUint(f[1], 10, 64)
	cl, err2 := strconv.ParseUint(f[2], 10, 64)
	r, err3 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return fmt.Errorf("load box: unexpected %q", strings.Join(f, " "))
	}
	*b = boxSnap{ok: true, allTicks: all, clientTick: cl, runnable: r}
	return nil
}

// pidFileOf asks the server where its pid file is: the server's own word,
// where guessing by process name would find another host's server on a
// shared kernel. SHOW, not SELECT, so Com_select stays the clients'.
func pidFileOf(ctx context.Context, db *sql.DB, datadir string) (string, error) {
	vars, err := queryPairs(ctx, db, "SHOW GLOBAL VARIABLES WHERE Variable_name = 'pid_file'")
	if err != nil {
		return "", err
	}
	pf := vars["pid_file"]
	if pf == "" {
		return "", fmt.Errorf("the server reports no pid_file")
	}
	if !path.IsAbs(pf) && datadir != "" {
		pf = path.Join(datadir, pf) // relative to the datadir, as the server resolves it
	}
	return pf, nil
}
