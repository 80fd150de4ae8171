package stacks

import (
	"fmt"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/shell"
)

// ProbeScript prints the tools a host has, one per line ("gdb", "perf"):
// `orch check` reports them.
const ProbeScript = "for t in gdb perf; do command -v $t >/dev/null 2>&1 && echo $t; done; true\n"

// ServerProbeScript prints the samplers that work on the server whose pid
// file is given: "gdb" when installed, "perf" only when a 0.1 s
// `perf record -g` of the server itself succeeds (an installed perf
// without a kernel build of its own, or refused by perf_event_paranoid,
// is no sampler). Pick chooses from them.
func ServerProbeScript(pidFile string) string {
	return readPid(pidFile) + `command -v gdb >/dev/null 2>&1 && echo gdb
if command -v perf >/dev/null 2>&1 && dir=$(mktemp -d); then
  perf record -q -g -F 99 -p "$pid" -o "$dir/probe.data" -- sleep 0.1 >/dev/null 2>&1 && echo perf
  rm -rf "$dir"
fi
true
`
}

// Pick resolves a mode against the samplers a host has (ServerProbeScript);
// "" when the one asked for is missing. Auto is perf or nothing: perf
// never stops the server, and gdb (which does) is used only when asked.
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
// framed by "@sample i" and by the server's stop: gdb loads the server's
// executable and its symbols first (`file /proc/PID/exe`, with the server
// running), then notes the time just before it attaches and just after
// it detaches ("@stop_from NS", "@stop_to NS"), so the pause measured is the time
// the server was stopped (attach, the libraries' symbols, the walk of
// every stack, detach), not gdb's start-up. libthread_db is left out (gdb
// lists a live process's threads from /proc without it), which cut a
// snapshot of a loaded lab server from 2.1 s to 1.3 s, and so are separate
// debug files (libc6-dbg: 0.6 s to 0.37 s on an idle one; frames still
// resolve through the exported symbols, only glibc's internal ones read ??,
// and are dropped), auto-loaded scripts and debuginfod downloads.
func GDBScript(pidFile string, n int, gap time.Duration) string {
	var b strings.Builder
	b.WriteString(readPid(pidFile))
	// The instants go to files, printed after gdb exits: gdb buffers its
	// own output, so a `shell date` line would land inside a stack.
	b.WriteString(`t=$(mktemp -d) || { echo "@error mktemp failed"; exit 0; }
trap 'rm -rf "$t"' EXIT
`)
	fmt.Fprintf(&b, "i=0; while [ $i -lt %d ]; do i=$((i+1))\n", n)
	b.WriteString(`echo "@sample $i"; rm -f "$t/from" "$t/to"
gdb -batch -nx -iex 'set auto-load off' -iex 'set debuginfod enabled off' -iex 'set libthread-db-search-path /nonexistent' -iex 'set debug-file-directory /nonexistent' -ex 'set pagination off' -ex 'set print frame-arguments none' -ex "file /proc/$pid/exe" -ex "shell date +%s%N > $t/from" -ex "attach $pid" -ex 'thread apply all bt' -ex 'detach' -ex "shell date +%s%N > $t/to" </dev/null 2>&1 || echo "@error gdb exited $?"
[ -s "$t/from" ] && [ -s "$t/to" ] && echo "` + markStopFrom + ` $(cat "$t/from")" && echo "` + markStopTo + ` $(cat "$t/to")"
`)
	fmt.Fprintf(&b, "[ $i -lt %d ] && sleep %s\ndone; true\n", n, secs(gap))
	return b.String()
}

// ResumeScript undoes what a gdb stopped mid-snapshot can leave behind:
// attaching stops the server with SIGSTOP, and a gdb killed before it
// detaches (orch interrupted in the profiling tail) leaves the server
// stopped for good, every connection to it hanging (seen on the lab: a
// slave not answering for the rest of make test). It waits up to 30 s for
// any tracer to let go, then continues the server if it is still stopped
// ("@resumed"); a server running is left as it is.
func ResumeScript(pidFile string) string {
	return readPid(pidFile) + `i=0
while [ $i -lt 60 ]; do
  t=$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
  [ "${t:-0}" = 0 ] && break
  sleep 0.5; i=$((i+1))
done
st=$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
if [ "$st" = T ]; then kill -CONT "$pid" && echo "@resumed"; fi
true
`
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
