package monitor

import (
	"fmt"
	"strconv"
	"strings"
)

// The sampler's own cost: each /proc session's shell reads its own
// /proc/$$/stat every sample (a builtin read, no fork), and
// sampler_cpu_us_ps is the shell's utime+stime plus its reaped children's
// (cutime+cstime: getconf, once per session).
// On hosts that share a kernel (the lab) this is orch's share of the
// machine's CPU on each host; the mysql side's SHOW statements are in the
// server's own CPU, and sshd's encryption of the few KiB a sample sends is
// not counted.
const procSelfScript = "echo @self; read -r l < /proc/$$/stat && printf '%s\\n' \"$l\"\n"

// selfSnap is one read of the sampler shell's /proc/$$/stat.
type selfSnap struct {
	ok    bool
	pid   int64
	ticks uint64 // utime + stime + cutime + cstime
}

func parseSelfLine(s *selfSnap, f []string) error {
	line := strings.Join(f, " ")
	i := strings.LastIndex(line, ") ")
	if i < 0 {
		return fmt.Errorf("/proc/$$/stat: %q", line)
	}
	pid, err := strconv.ParseInt(f[0], 10, 64)
	rest := strings.Fields(line[i+2:])
	if err != nil || len(rest) < 15 {
		return fmt.Errorf("/proc/$$/stat: short %q", line)
	}
	var sum uint64
	// Fields 14-17 of stat(5), counted from the state (field 3).
	for _, k := range []int{11, 12, 13, 14} {
		v, err := strconv.ParseUint(rest[k], 10, 64)
		if err != nil {
			return fmt.Errorf("/proc/$$/stat: %q", line)
		}
		sum += v
	}
	*s = selfSnap{ok: true, pid: pid, ticks: sum}
	return nil
}
