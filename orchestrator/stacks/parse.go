package stacks

import (
	"bufio"
	"strconv"
	"strings"
)

// Raw is what a sampling script printed, parsed: each thread's (gdb) or
// sample's (perf) stack, and the pauses gdb caused.
type Raw struct {
	Stacks [][]Frame
	// Snapshots counts gdb's "thread apply all bt" runs (perf: 1).
	Snapshots int
	// PausesMs holds each gdb snapshot's stop of the server: from just
	// before the attach to just after the detach (older scripts timed
	// gdb's whole run, "@pause_ns").
	PausesMs []float64
	// Errors are the tool's complaints worth showing (no such process,
	// ptrace refused...).
	Errors []string
}

// Markers the scripts print between tool outputs.
const (
	markSample   = "@sample"
	markPause    = "@pause_ns"
	markStopFrom = "@stop_from"
	markStopTo   = "@stop_to"
	markError    = "@error"
)

// ParseGDB reads the output of GDBScript: per snapshot, gdb's
// "Thread N (...):" blocks of "#k ..." frames.
func ParseGDB(text string) Raw {
	var r Raw
	var cur []Frame
	in := false
	var from int64 // the open stop's start (ns since the epoch); 0: none
	flush := func() {
		if in && len(cur) > 0 {
			r.Stacks = append(r.Stacks, cur)
		}
		cur, in = nil, false
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, markSample):
			flush()
			r.Snapshots++
		case strings.HasPrefix(line, markPause):
			flush()
			if ns, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, markPause)), 64); err == nil {
				r.PausesMs = append(r.PausesMs, ns/1e6)
			}
		case strings.HasPrefix(line, markStopFrom):
			flush()
			from = stamp(line, markStopFrom)
		case strings.HasPrefix(line, markStopTo):
			flush()
			if to := stamp(line, markStopTo); from > 0 && to >= from {
				r.PausesMs = append(r.PausesMs, float64(to-from)/1e6)
			}
			from = 0
		case strings.HasPrefix(line, markError):
			flush()
			r.Errors = append(r.Errors, strings.TrimSpace(strings.TrimPrefix(line, markError)))
		case strings.HasPrefix(line, "Thread ") && strings.HasSuffix(line, "):"):
			flush()
			in = true
		case in && strings.HasPrefix(line, "#"):
			if f, ok := gdbFrame(line); ok {
				cur = append(cur, f)
			}
		case in && line == "":
			flush()
		}
	}
	flush()
	return r
}

// stamp reads the nanoseconds after a marker; 0 when there are none.
func stamp(line, mark string) int64 {
	v, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(line, mark)), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// gdbFrame reads one frame line:
//
//	#0  __futex_abstimed_wait_common64 (private=0, ...) at ./nptl/futex-internal.c:57
//	#5  0x000055728778db7d in do_handle_one_connection(CONNECT*, bool) ()
//	#3  0x00007f... in poll () from /lib/x86_64-linux-gnu/libc.so.6
//
// Unresolved frames (??) are left out: they say nothing and would split
// identical stacks.
func gdbFrame(line string) (Frame, bool) {
	i := strings.IndexAny(line, " \t")
	if i < 0 {
		return Frame{}, false
	}
	rest := strings.TrimSpace(line[i:])
	if strings.HasPrefix(rest, "0x") {
		if j := strings.Index(rest, " in "); j >= 0 {
			rest = rest[j+4:]
		}
	}
	from := ""
	if j := strings.LastIndex(rest, " from "); j >= 0 {
		from, rest = rest[j+6:], rest[:j]
	}
	if j := strings.LastIndex(rest, " at "); j >= 0 {
		rest = rest[:j]
	}
	rest = cutArgs(rest)
	name := stripParams(rest)
	if name == "" || name == "??" {
		return Frame{}, false
	}
	lib := isLibName(name)
	if from != "" {
		lib = !isServerBinary(from)
	}
	return Frame{Func: name, Lib: lib}, true
}

// isServerBinary reports whether an object file is the server itself.
func isServerBinary(path string) bool {
	base := path[strings.LastIndex(path, "/")+1:]
	return base == "mariadbd" || base == "mysqld"
}

// ParsePerf reads `perf script` output: a header line per sample, then
// its frames, indented, innermost first, a blank line after:
//
//	mariadbd  259 12345.678901:   10101010 cpu-clock:
//		    7faa4db1a26f __GI___poll+0x4f (/usr/lib/x86_64-linux-gnu/libc.so.6)
//		    55728778db7d do_handle_one_connection(CONNECT*, bool)+0x3d (/usr/sbin/mariadbd)
func ParsePerf(text string) Raw {
	r := Raw{Snapshots: 1}
	var cur []Frame
	flush := func() {
		if len(cur) > 0 {
			r.Stacks = append(r.Stacks, cur)
		}
		cur = nil
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, markError):
			r.Errors = append(r.Errors, strings.TrimSpace(strings.TrimPrefix(line, markError)))
		case raw[0] != ' ' && raw[0] != '\t':
			flush() // a sample's header
		default:
			if f, ok := perfFrame(line); ok {
				cur = append(cur, f)
			}
		}
	}
	flush()
	return r
}

func perfFrame(line string) (Frame, bool) {
	_, rest, ok := strings.Cut(line, " ")
	if !ok {
		return Frame{}, false
	}
	rest = strings.TrimSpace(rest)
	dso := ""
	if strings.HasSuffix(rest, ")") {
		if j := strings.LastIndex(rest, " ("); j >= 0 {
			dso, rest = rest[j+2:len(rest)-1], rest[:j]
		}
	}
	if j := strings.LastIndex(rest, "+0x"); j >= 0 {
		rest = rest[:j]
	}
	name := stripParams(rest)
	if name == "" || name == "[unknown]" {
		return Frame{}, false
	}
	lib := isLibName(name)
	if dso != "" {
		lib = !isServerBinary(dso)
	}
	return Frame{Func: name, Lib: lib}, true
}

// cutArgs drops a gdb frame's argument list: "name (args)" or
// "name(params) (args)". The arguments open at the first " (" outside the
// name's own parentheses (an argument's value may hold " (" too).
func cutArgs(s string) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			if depth == 0 && i > 0 && s[i-1] == ' ' {
				return strings.TrimSpace(s[:i-1])
			}
			depth++
		case ')':
			depth--
		}
	}
	return s
}
