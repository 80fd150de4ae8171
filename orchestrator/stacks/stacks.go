// Package stacks samples a server's thread stacks the way pt-pmp does
// (the "poor man's profiler"): a few `gdb -batch "thread apply all bt"`
// snapshots a few seconds apart, or `perf record -g` for a few seconds,
// then identical stacks aggregated and counted. It builds the shell text
// to run on the host and parses what comes back; running it is the
// caller's (the monitor's profiler, in the run's profiling tail).
//
// A gdb snapshot stops every thread of the server while gdb attaches,
// reads the libraries' symbols and walks the stacks: the script times that
// stop (from just before the attach to just after the detach), and the
// longest is reported.
// perf samples on-CPU stacks without stopping the server, so it cannot see
// threads waiting (for a lock, an fsync, a semi-sync ACK), which gdb can.
package stacks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/orch-bench/orch/orchestrator/schema"
)

// Modes. Auto is perf when it works on the host, else off: an instrument
// must not stop the server it measures, and gdb does (it sees waiting
// threads, which perf cannot, so it stays available when asked for).
// Whatever the mode, stacks are taken in the profiling tail after the
// measured load, never inside it.
const (
	Off  Mode = "off"
	GDB  Mode = "gdb"
	Perf Mode = "perf"
	Auto Mode = "auto"
)

// ParseMode reads --stacks; "" and "on" mean Auto.
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto", "on":
		return Auto, nil
	case "off", "none":
		return Off, nil
	case "gdb":
		return GDB, nil
	case "perf":
		return Perf, nil
	}
	return "", fmt.Errorf("--stacks %q: want off, gdb, perf or auto", s)
}

// Aggregate counts identical stacks, most frequent first (ties by key, so
// the order is stable); stacks deeper than depth frames are cut to their
// innermost depth frames first (0: no cut). Empty stacks are dropped.
func Aggregate(all [][]Frame, depth int) []Stack {
	byKey := map[string]*Stack{}
	var order []*Stack
	for _, fr := range all {
		if len(fr) == 0 {
			continue
		}
		if depth > 0 && len(fr) > depth {
			fr = fr[:depth]
		}
		k := key(fr)
		s, ok := byKey[k]
		if !ok {
			s = &Stack{Frames: fr}
			byKey[k] = s
			order = append(order, s)
		}
		s.Count++
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].Count != order[j].Count {
			return order[i].Count > order[j].Count
		}
		return order[i].Key() < order[j].Key()
	})
	out := make([]Stack, len(order))
	for i, s := range order {
		out[i] = *s
	}
	return out
}

// libFuncs are C library and kernel entry points seen under a server's
// waits, named without the glibc-internal prefixes (those start with _).
var libFuncs = map[string]bool{
	"poll": true, "ppoll": true, "epoll_wait": true, "select": true, "syscall": true, "clone": true, "clone3": true,
	"start_thread": true, "nanosleep": true, "clock_nanosleep": true, "sigtimedwait": true, "sigwaitinfo": true,
	"read": true, "write": true, "pread64": true, "pwrite64": true, "pread": true, "pwrite": true, "fsync": true,
	"fdatasync": true, "io_getevents": true, "io_uring_enter": true, "accept": true, "accept4": true, "recv": true,
	"send": true, "sendto": true, "recvfrom": true, "futex_wait": true, "usleep": true, "sleep": true,
}

// isLibName reports whether a function name is a C library or threading
// one when the frame itself does not say where it comes from.
func isLibName(name string) bool {
	return strings.HasPrefix(name, "_") || strings.HasPrefix(name, "pthread_") || libFuncs[name]
}

// stripParams turns a demangled C++ name with its parameter list
// ("ns::f(THD*, bool) const") into the bare name ("ns::f").
func stripParams(name string) string {
	name = strings.TrimSpace(name)
	name = strings.TrimSuffix(name, " const")
	if !strings.HasSuffix(name, ")") {
		return name
	}
	depth := 0
	for i := len(name) - 1; i >= 0; i-- {
		switch name[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				if i == 0 {
					return name
				}
				return strings.TrimSpace(name[:i])
			}
		}
	}
	return name
}

// A profile is run-directory data (results.json monitor.stacks), declared
// in orchestrator/schema; this package takes and parses the samples.
type (
	Mode    = schema.StacksMode
	Frame   = schema.StackFrame
	Stack   = schema.Stack
	Profile = schema.StackProfile
)

func key(fr []Frame) string { return Stack{Frames: fr}.Key() }
