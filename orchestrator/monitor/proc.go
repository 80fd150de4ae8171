package monitor

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/shell"
)

// procDevScript prints the datadir's device number (st_dev), to pick the
// disk to follow; asked once.
func procDevScript(datadir string) string {
	return "echo @dev; stat -L -c %d " + shell.Quote(datadir) + " 2>/dev/null\n"
}

// procSampleScript prints /proc/stat's cpu lines (all CPUs, then one per
// CPU: they come first), /proc/loadavg and /proc/diskstats with shell
// builtins only: this part of a sample forks nothing.
const procSampleScript = `echo @stat; while read -r l; do case $l in cpu*) printf '%s\n' "$l";; *) break;; esac; done < /proc/stat
echo @load; read -r l < /proc/loadavg; printf '%s\n' "$l"
echo @disk; while read -r l; do printf '%s\n' "$l"; done < /proc/diskstats
echo @mem; while read -r k v u; do case $k in MemAvailable:) printf '%s\n' "$v"; break;; esac; done < /proc/meminfo
`

// cpu fields of /proc/stat, in its order.
const (
	cpuUser = iota
	cpuNice
	cpuSystem
	cpuIdle
	cpuIOWait
	cpuIRQ
	cpuSoftIRQ
	cpuSteal
	nCPU
)

// diskStat is one /proc/diskstats line: counts since boot, sectors of
// 512 bytes whatever the device's sector size.
type diskStat struct {
	name                   string
	major, minor           uint64
	reads, sectorsRead     uint64
	writes, sectorsWritten uint64
	ioTicks                uint64 // ms spent doing I/O
	// flushes are the flush requests completed (the 16th field after the
	// name, kernels 5.5 and later: what fsync and fdatasync reach a device
	// with a volatile cache as); hasFlushes is false on older kernels.
	flushes    uint64
	hasFlushes bool
}

// procSnap is one read of /proc.
type procSnap struct {
	cpu     [nCPU]uint64
	load    [3]float64
	running int64
	disks   []diskStat
	// dev is the datadir's device (st_dev) when it was asked for.
	dev    uint64
	hasDev bool
	ncpu   int64 // cpuN lines
	// memAvailKB is /proc/meminfo's MemAvailable (kB); hasMem when read.
	memAvailKB uint64
	hasMem     bool
	hz         uint64
	srv        serverSnap
	box        boxSnap
	self       selfSnap
}

func parseProc(out string) (procSnap, error) {
	var s procSnap
	var seen [4]bool // dev, stat, load, disk sections
	section := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "@") {
			section = line
			continue
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch section {
		case "@dev":
			v, err := strconv.ParseUint(f[0], 10, 64)
			if err == nil {
				s.dev, s.hasDev = v, true
			}
			seen[0] = true
		case "@hz":
			s.hz, _ = strconv.ParseUint(f[0], 10, 64)
		case "@srv":
			if err := parseServerLine(&s.srv, f); err != nil {
				return s, err
			}
		case "@self":
			if err := parseSelfLine(&s.self, f); err != nil {
				return s, err
			}
		case "@box":
			if err := parseBoxLine(&s.box, f); err != nil {
				return s, err
			}
		case "@stat":
			if f[0] != "cpu" && strings.HasPrefix(f[0], "cpu") && seen[1] {
				s.ncpu++
				continue
			}
			if f[0] != "cpu" || len(f) < 6 {
				return s, fmt.Errorf("/proc/stat: unexpected first line %q", line)
			}
			for i := 0; i < nCPU && i+1 < len(f); i++ {
				v, err := strconv.ParseUint(f[i+1], 10, 64)
				if err != nil {
					return s, fmt.Errorf("/proc/stat: %q: %w", line, err)
				}
				s.cpu[i] = v
			}
			seen[1] = true
		case "@load":
			if len(f) < 4 {
				return s, fmt.Errorf("/proc/loadavg: unexpected %q", line)
			}
			for i := 0; i < 3; i++ {
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					return s, fmt.Errorf("/proc/loadavg: %q: %w", line, err)
				}
				s.load[i] = v
			}
			run, _, _ := strings.Cut(f[3], "/")
			s.running, _ = strconv.ParseInt(run, 10, 64)
			seen[2] = true
		case "@mem":
			v, err := strconv.ParseUint(f[0], 10, 64)
			s.memAvailKB, s.hasMem = v, err == nil
		case "@disk":
			d, err := parseDiskLine(f)
			if err != nil {
				return s, fmt.Errorf("/proc/diskstats: %q: %w", line, err)
			}
			s.disks = append(s.disks, d)
			seen[3] = true
		}
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	if !seen[1] || !seen[2] {
		return s, errors.New("/proc output without cpu or load lines")
	}
	return s, nil
}

func parseDiskLine(f []string) (diskStat, error) {
	if len(f) < 13 {
		return diskStat{}, errors.New("too few fields")
	}
	var n [13]uint64
	for i, idx := range []int{0, 1, 3, 5, 7, 9, 12} {
		v, err := strconv.ParseUint(f[idx], 10, 64)
		if err != nil {
			return diskStat{}, err
		}
		n[i] = v
	}
	d := diskStat{name: f[2], major: n[0], minor: n[1], reads: n[2], sectorsRead: n[3],
		writes: n[4], sectorsWritten: n[5], ioTicks: n[6]}
	if len(f) >= 19 {
		if v, err := strconv.ParseUint(f[18], 10, 64); err == nil {
			d.flushes, d.hasFlushes = v, true
		}
	}
	return d, nil
}

// devNumbers splits a Linux st_dev into major and minor (glibc's encoding).
func devNumbers(dev uint64) (major, minor uint64) {
	major = (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff)
	minor = dev&0xff | (dev>>12)&^uint64(0xff)
	return major, minor
}

// pickDisks chooses what disk_* columns follow: the datadir's device when
// it is a listed block device, else every whole real disk ("all").
func pickDisks(s *procSnap) (label string, names []string) {
	if s.hasDev {
		major, minor := devNumbers(s.dev)
		for _, d := range s.disks {
			if major != 0 && d.major == major && d.minor == minor {
				return d.name, []string{d.name}
			}
		}
	}
	for _, d := range s.disks {
		if isWholeRealDisk(d.name, s.disks) {
			names = append(names, d.name)
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	return "all", names
}

// virtualDisks are block devices that are not disks, or that stack on
// disks already counted.
var virtualDisks = []string{"loop", "ram", "zram", "dm-", "md", "sr", "fd", "nbd"}

// isWholeRealDisk leaves out virtual devices and partitions (sda1 of sda,
// nvme0n1p1 of nvme0n1), whose writes their disk's line already counts.
func isWholeRealDisk(name string, all []diskStat) bool {
	for _, p := range virtualDisks {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	for _, d := range all {
		rest, ok := strings.CutPrefix(name, d.name)
		if !ok || rest == "" {
			continue
		}
		rest = strings.TrimPrefix(rest, "p")
		if _, err := strconv.ParseUint(rest, 10, 32); err == nil {
			return false
		}
	}
	return true
}

// diskTotals sums the followed disks.
type diskTotals struct {
	reads, sectorsRead, writes, sectorsWritten, ioTicks uint64
	n                                                   int
	flushes                                             uint64
	flushN                                              int // disks with a flush count
}

func sumDisks(s *procSnap, names []string) diskTotals {
	var t diskTotals
	for _, d := range s.disks {
		for _, n := range names {
			if d.name == n {
				t.reads += d.reads
				t.sectorsRead += d.sectorsRead
				t.writes += d.writes
				t.sectorsWritten += d.sectorsWritten
				t.ioTicks += d.ioTicks
				t.n++
				if d.hasFlushes {
					t.flushes += d.flushes
					t.flushN++
				}
			}
		}
	}
	return t
}
