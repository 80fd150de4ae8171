package monitor

import (
	"context"
	"database/sql"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/shell"
)

// The server's own counters, and a load box's, come from /proc/PID files:
// on hosts sharing a kernel (the lab, containers) /proc/stat and
// /proc/diskstats are the whole machine's and say nothing about one server.
//
// A server's threads are read by the sampling shell's builtins, one
// line of each /proc/PID/task/TID/stat (state R: runnable) and schedstat
// (its third field, the times the thread was switched in: voluntary plus
// involuntary context switches, equal to their sum in /proc/PID/task/TID/
// status), summed. No process is started per sample: an awk per sample
// per host cost the lab's shared cores about 3% of the servers' throughput
// (fork and exec take ~10 ms on its VM). A thread that exits takes its
// switches with it (a drop reads as "no value", see serverSnap); a thread
// whose schedstat cannot be read leaves the sample's switches unknown,
// never undercounted.

// procHzScript prints the clock ticks per second, once per session.
const procHzScript = "echo @hz; getconf CLK_TCK 2>/dev/null || echo 100\n"

// procServerScript reads the server's pid from its pid file (read again
// each sample: a restarted server has a new pid), then its counters.
func procServerScript(pidFile string) string {
	return "echo @srv; if read -r pid 2>/dev/null < " + shell.Quote(pidFile) + " && read -r l 2>/dev/null < /proc/$pid/stat; then\n" +
		"printf 'pid %s\\n' \"$pid\"; printf 'stat %s\\n' \"$l\"\n" +
		"while read -r k v; do printf 'io %s %s\\n' \"$k\" \"$v\"; done 2>/dev/null < /proc/$pid/io\n" +
		"n=0; r=0; cs=0; csok=1\n" +
		"for t in /proc/$pid/task/[0-9]*; do\n" +
		"  read -r l 2>/dev/null < $t/stat || continue\n" +
		"  n=$((n+1)); case ${l##*\") \"} in R*) r=$((r+1));; esac\n" +
		"  if read -r a b c 2>/dev/null < $t/schedstat; then cs=$((cs+c)); else csok=0; fi\n" +
		"done\n" +
		"printf 'threads %d\\nrun %d\\n' $n $r; if [ $csok = 1 ]; then printf 'cs %s\\n' $cs; fi\nfi\n"
}

// ClientCommands are the benchmark clients whose CPU a load box's
// client_cpu_us_ps sums (process names, /proc/PID/stat's comm): every
// driver's in the driver table.
var ClientCommands = bench.ClientProcesses()

// procBoxSample sums every process the host shows (its own PID namespace
// in the lab, the whole machine elsewhere), with the shell's builtins: CPU
// of all and of the clients (utime + stime, fields 14 and 15, counted
// after the comm, which may hold spaces), and runnable tasks, the host's
// own run queue.
func procBoxSample() string {
	return "echo @box; all=0; cl=0; r=0\n" +
		"for f in /proc/[0-9]*/stat; do\n" +
		"  read -r l 2>/dev/null < $f || continue\n" +
		"  c=${l#*\"(\"}; c=${c%\")\"*}; set -- ${l##*\") \"}; t=$((${12}+${13})); all=$((all+t))\n" +
		"  case $c in " + strings.Join(ClientCommands, "|") + ") cl=$((cl+t));; esac\n" +
		"done\n" +
		"for f in /proc/[0-9]*/task/[0-9]*/stat; do read -r l 2>/dev/null < $f && case ${l##*\") \"} in R*) r=$((r+1));; esac; done\n" +
		"printf 'box %s %s %s\\n' $all $cl $r\n"
}

// serverSnap is one read of the server's /proc/PID files.
type serverSnap struct {
	ok         bool
	pid        int64
	cpuTicks   uint64 // utime + stime
	cs         uint64 // context switches of all threads (schedstat)
	hasCS      bool
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
		if len(f) < 3 {
			return fmt.Errorf("/proc/PID/io: short line %q", strings.Join(f, " "))
		}
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
	case "cs":
		s.cs, err = num(1)
		s.hasCS = err == nil
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
