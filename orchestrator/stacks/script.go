package stacks

import (
	"fmt"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/shell"
)

// ProbeScript prints the tools a host has, one per line ("gdb", "perf"):
// `orch check` reports them and Auto picks from them.
const ProbeScript = "for t in gdb perf; do command -v $t >/dev/null 2>&1 && echo $t; done; true\n"

// Pick resolves Auto against the tools a host has; "" when none fits.
func Pick(m Mode, have []string) Mode {
	has := func(t string) bool {
		for _, h := range have {
			if strings.TrimSpace(h) == t {
				return true
			}
		}
		return false
	}
	switch m {
	case Off:
		return Off
	case Auto:
		if has("gdb") {
			return GDB
		}
		if has("perf") {
			return Perf
		}
		return Off
	}
	if has(string(m)) {
		return m
	}
	return ""
}

// readPid reads the server's pid from its pid file, as the server wrote it.
func readPid(pidFile string) string {
	return "pid=; read -r pid 2>/dev/null < " + shell.Quote(pidFile) + "\n" +
		`case $pid in ''|*[!0-9]*) echo "@error no pid in the server's pid file"; exit 0;; esac` + "\n"
}

// GDBScript takes n snapshots of every thread's stack, gap apart. Each is
// framed by "@sample i" and "@pause_ns N", N the nanoseconds gdb ran:
// attach, symbol reading and walking all happen with the server stopped,
// so that is the longest it can have been stopped. libthread_db is left
// out (gdb lists a live process's threads from /proc without it), which
// cut a snapshot of a loaded lab server from 2.1 s to 1.3 s, and so are
// separate debug files (libc6-dbg: 0.6 s to 0.37 s on an idle one; frames
// still resolve through the exported symbols, only glibc's internal ones
// read ??, and are dropped), auto-loaded scripts and debuginfod downloads.
func GDBScript(pidFile string, n int, gap time.Duration) string {
	var b strings.Builder
	b.WriteString(readPid(pidFile))
	fmt.Fprintf(&b, "i=0; while [ $i -lt %d ]; do i=$((i+1))\n", n)
	b.WriteString(`echo "@sample $i"; t0=$(date +%s%N)
gdb -batch -nx -iex 'set auto-load off' -iex 'set debuginfod enabled off' -iex 'set libthread-db-search-path /nonexistent' -iex 'set debug-file-directory /nonexistent' -p "$pid" -ex 'set pagination off' -ex 'set print frame-arguments none' -ex 'thread apply all bt' </dev/null 2>&1 || echo "@error gdb exited $?"
t1=$(date +%s%N); echo "@pause_ns $((t1-t0))"
`)
	fmt.Fprintf(&b, "[ $i -lt %d ] && sleep %s\ndone; true\n", n, secs(gap))
	return b.String()
}

// PerfScript records on-CPU stacks of the server for d at 99 Hz into a
// private temporary directory and prints them with perf script.
func PerfScript(pidFile string, d time.Duration) string {
	var b strings.Builder
	b.WriteString(readPid(pidFile))
	b.WriteString(`dir=$(mktemp -d) || { echo "@error mktemp failed"; exit 0; }
trap 'rm -rf "$dir"' EXIT
`)
	fmt.Fprintf(&b, "perf record -q -g -F 99 -p \"$pid\" -o \"$dir/perf.data\" -- sleep %s >\"$dir/err\" 2>&1 || { echo \"@error perf record: $(tail -n 1 \"$dir/err\")\"; exit 0; }\n", secs(d))
	b.WriteString(`perf script -i "$dir/perf.data" 2>/dev/null` + "\n")
	return b.String()
}

func secs(d time.Duration) string {
	s := fmt.Sprintf("%.1f", d.Seconds())
	return strings.TrimSuffix(s, ".0")
}
