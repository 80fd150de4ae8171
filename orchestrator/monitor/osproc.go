package monitor

import (
	"math"
	"time"
)

// OSColumns is the header of timeseries/<host>-os.csv (see the package
// documentation for each column).
var OSColumns = []string{"t", "elapsed_s", "interval_s",
	"cpu_user_pct", "cpu_sys_pct", "cpu_iowait_pct", "cpu_idle_pct", "cpu_steal_pct",
	"load1", "load5", "load15", "procs_running",
	"disk", "disk_read_mbps", "disk_write_mbps", "disk_reads_ps", "disk_writes_ps", "disk_util_pct",
	"ncpu", "server_pid", "server_cpu_us_ps", "server_cs_ps",
	"server_read_bps", "server_write_bps", "server_syscr_ps", "server_syscw_ps",
	"server_threads", "server_threads_runnable",
	"client_cpu_us_ps", "box_cpu_us_ps", "box_tasks_runnable", "sampler_cpu_us_ps",
	"disk_flushes_ps", "mem_available_mb"}

// osProc turns one host's /proc reads into CSV rows.
type osProc struct {
	m       *Monitor
	host    string
	datadir string
	// picked is set once the disks to follow are chosen (first sample).
	picked    bool
	diskLabel string
	diskNames []string

	prevAt   time.Time
	prevCPU  [nCPU]uint64
	prevDisk diskTotals
	hasPrev  bool
	resets   int

	hz       uint64 // clock ticks per second, from the session's first sample
	prevSrv  serverSnap
	prevBox  boxSnap
	prevSelf selfSnap
}

func (p *osProc) handle(out string, at time.Time, c *csvFile) error {
	s, err := parseProc(out)
	if err != nil {
		return err
	}
	if !p.picked {
		p.diskLabel, p.diskNames = pickDisks(&s)
		p.picked = true
	}
	disk := sumDisks(&s, p.diskNames)
	var dt time.Duration
	if p.hasPrev {
		dt = at.Sub(p.prevAt)
	}
	c.start(at, at.Sub(p.m.start), dt)

	// CPU shares of the interval's jiffies; guest time is inside user.
	var d [nCPU]uint64
	var total uint64
	cpuBack := false
	for i := range s.cpu {
		cpuBack = cpuBack || s.cpu[i] < p.prevCPU[i]
		d[i] = s.cpu[i] - p.prevCPU[i]
		total += d[i]
	}
	cpuOK := p.hasPrev && !cpuBack && total > 0
	pct := func(v uint64) float64 {
		if !cpuOK {
			return math.NaN()
		}
		return 100 * float64(v) / float64(total)
	}
	c.float(pct(d[cpuUser]+d[cpuNice]), 1)
	c.float(pct(d[cpuSystem]+d[cpuIRQ]+d[cpuSoftIRQ]), 1)
	c.float(pct(d[cpuIOWait]), 1)
	c.float(pct(d[cpuIdle]), 1)
	c.float(pct(d[cpuSteal]), 1)
	for _, l := range s.load {
		c.float(l, 2)
	}
	c.int(s.running, true)

	c.text(p.diskLabel)
	pd := p.prevDisk
	diskBack := disk.reads < pd.reads || disk.writes < pd.writes || disk.sectorsRead < pd.sectorsRead ||
		disk.sectorsWritten < pd.sectorsWritten || disk.ioTicks < pd.ioTicks
	diskOK := p.hasPrev && disk.n > 0 && disk.n == pd.n && !diskBack
	const mb = 1e6
	c.float(rate((disk.sectorsRead-pd.sectorsRead)*512, diskOK, dt)/mb, 3)
	c.float(rate((disk.sectorsWritten-pd.sectorsWritten)*512, diskOK, dt)/mb, 3)
	c.float(rate(disk.reads-pd.reads, diskOK, dt), 1)
	c.float(rate(disk.writes-pd.writes, diskOK, dt), 1)
	util := math.NaN()
	if diskOK && dt >= time.Millisecond {
		// io_ticks is ms busy; averaged over the followed disks.
		util = math.Min(100, 100*float64(disk.ioTicks-pd.ioTicks)/float64(disk.n)/float64(dt.Milliseconds()))
	}
	c.float(util, 1)
	p.writeProcs(&s, dt, c)
	flushOK := diskOK && disk.flushN == disk.n && pd.flushN == pd.n && disk.flushes >= pd.flushes
	c.float(rate(disk.flushes-pd.flushes, flushOK, dt), 1)
	mem := math.NaN()
	if s.hasMem {
		mem = float64(s.memAvailKB) / 1024
	}
	c.float(mem, 1)
	c.end()

	if p.hasPrev && (cpuBack || diskBack && disk.n == pd.n) {
		p.resets++
		p.m.events.write(Event{T: at, Host: p.host, Kind: KindCounterReset,
			Detail: "os: /proc counters went backwards (host rebooted?); rates left empty for this row"})
	}
	p.prevAt, p.prevCPU, p.prevDisk, p.hasPrev = at, s.cpu, disk, true
	p.prevSrv, p.prevBox, p.prevSelf = s.srv, s.box, s.self
	return nil
}

// writeProcs writes the per-process columns: the server's own counters
// and a load box's processes. A counter that went backwards (a restarted
// server has a new pid; a thread that exited took its context switches)
// leaves its rate empty for the row.
func (p *osProc) writeProcs(s *procSnap, dt time.Duration, c *csvFile) {
	if s.hz > 0 {
		p.hz = s.hz
	}
	c.int(s.ncpu, s.ncpu > 0)
	cur, prev := &s.srv, &p.prevSrv
	c.int(cur.pid, cur.ok)
	same := p.hasPrev && cur.ok && prev.ok && cur.pid == prev.pid
	d := func(a, b uint64) float64 { return rate(a-b, same && a >= b, dt) }
	c.float(p.ticksToUs(d(cur.cpuTicks, prev.cpuTicks)), 0)
	c.float(rate(cur.cs-prev.cs, same && cur.hasCS && prev.hasCS && cur.cs >= prev.cs, dt), 1)
	// /proc/PID/io unreadable (not root): no value, not zero.
	io := func(a, b uint64) float64 { return rate(a-b, same && cur.hasIO && prev.hasIO && a >= b, dt) }
	c.float(io(cur.readBytes, prev.readBytes), 0)
	c.float(io(cur.writeBytes, prev.writeBytes), 0)
	c.float(io(cur.syscr, prev.syscr), 1)
	c.float(io(cur.syscw, prev.syscw), 1)
	c.int(cur.threads, cur.ok)
	c.int(cur.runnable, cur.ok)
	b, pb := &s.box, &p.prevBox
	boxOK := p.hasPrev && b.ok && pb.ok
	// A process that exits takes its CPU out of the sum: never a
	// negative rate.
	bd := func(a, b uint64) float64 { return rate(a-b, boxOK && a >= b, dt) }
	c.float(p.ticksToUs(bd(b.clientTick, pb.clientTick)), 0)
	c.float(p.ticksToUs(bd(b.allTicks, pb.allTicks)), 0)
	c.int(b.runnable, b.ok)
	// The sampler's own CPU: a new session (a new shell) starts its count
	// again.
	me, pm := &s.self, &p.prevSelf
	selfOK := p.hasPrev && me.ok && pm.ok && me.pid == pm.pid && me.ticks >= pm.ticks
	c.float(p.ticksToUs(rate(me.ticks-pm.ticks, selfOK, dt)), 0)
}

// ticksToUs turns clock ticks per second into CPU µs per second.
func (p *osProc) ticksToUs(ticksPS float64) float64 {
	if p.hz == 0 {
		return math.NaN()
	}
	return ticksPS * 1e6 / float64(p.hz)
}
