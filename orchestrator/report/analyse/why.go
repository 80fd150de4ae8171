package analyse

import (
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/orchestrator/stacks"
)

// Marks outside which a per-transaction ratio to the baseline is a
// difference worth naming (Mark Callaghan's 0.95/1.05).
const (
	MarkLow  = 0.95
	MarkHigh = 1.05
)

// Saturation thresholds of the USE table.
const (
	SaturatedShare = 0.90 // of a host's cores, or of the disk's time
)

// Cost is one host's steady-state figures in one run, or a
// configuration's mean over its runs. NaN: not measured.
type Cost struct {
	Host, Role string
	// Tx is the transactions the host did in the window: committed on the
	// master, applied on a slave (GTID position delta); TPS per second.
	Tx, Seconds, TPS float64
	// Per transaction.
	CPUUs, CS, ReadKiB, WriteKiB, Fsync, BinlogBytes float64
	// BinlogGroups is binary log group commits per transaction (1 / the
	// mean group size): MariaDB's Binlog_group_commits; NaN on MySQL,
	// which exports no such counter.
	BinlogGroups float64
	// FsyncParts splits Fsync by counter (InnoDB, RocksDB WAL, TokuDB).
	FsyncParts map[string]float64
	// Engine is the engine's own counters per transaction (TokuDB's
	// engine status: fsync time, log bytes, checkpoints, cache misses),
	// by their report name (flavor.StatusCounter.PerTx).
	Engine map[string]float64
	// SemisyncShare is the master's ACK wait per transaction over the
	// client's mean transaction latency, both in the window.
	SemisyncShare float64
	// USE: the server's CPU as a share of the host's cores, the host's CPU
	// busy share (all CPUs), run queue (/proc/loadavg's running, the
	// median of the window's samples; RunQueueP90 their 90th percentile),
	// the server's runnable threads, disk busy share, Threads_running.
	NCPU, ServerCPU, HostCPU, RunQueue, RunQueueP90, ServerRunnable, DiskBusy, ThreadsRunning float64
	// Load box: the clients' and all processes' CPU as shares of its
	// cores, and its own runnable tasks (median and 90th percentile).
	ClientCPU, BoxCPU, BoxRunQueue, BoxRunQueueP90 float64
	// Kernel is the host's boot id ("" unknown): hosts with the same one
	// share a kernel and its CPUs (see machine). SamplerCPU is orch's /proc
	// sampler's CPU there and IOWait the machine's iowait, shares of the
	// cores.
	Kernel             string
	SamplerCPU, IOWait float64
}

// Metric is one per-transaction column: its hosts.csv name, its words in
// a sentence, its unit and how to read it from a Cost. floor is the value
// below which both sides are noise, not a difference.
type Metric struct {
	Col, Words, Unit string
	Get              func(*Cost) float64
	Floor            float64
	Prec             int // significant digits
}

// CostDigits are the significant digits of a per-transaction cost, in the
// table and in the sentences.
const CostDigits = 3

var Metrics = []Metric{
	{"cpu_us_per_tx", "CPU", "us", func(c *Cost) float64 { return c.CPUUs }, 1, CostDigits},
	{"cs_per_tx", "context switches", "", func(c *Cost) float64 { return c.CS }, 0.1, CostDigits},
	{"read_kib_per_tx", "KiB read from storage", "KiB", func(c *Cost) float64 { return c.ReadKiB }, 0.1, CostDigits},
	{"write_kib_per_tx", "KiB written to storage", "KiB", func(c *Cost) float64 { return c.WriteKiB }, 0.1, CostDigits},
	{"fsync_per_tx", "fsyncs", "", func(c *Cost) float64 { return c.Fsync }, 0.01, CostDigits},
	{"binlog_bytes_per_tx", "binlog bytes", "B", func(c *Cost) float64 { return c.BinlogBytes }, 10, CostDigits},
	{"binlog_groups_per_tx", "binlog group commits", "", func(c *Cost) float64 { return c.BinlogGroups }, 0.01, CostDigits},
	// A share, not a count: no "per transaction" after its words.
	{"semisync_wait_frac", "share of commit time waiting for the semi-sync ACK", "", func(c *Cost) float64 { return c.SemisyncShare }, 0.01, CostDigits},
}

// FsyncCounters are the mysql.csv rate columns whose sum is fsync_per_tx
// and their labels, from the engine table (flavor.FsyncCounters).
var FsyncCounters = func() [][2]string {
	var out [][2]string
	for _, c := range flavor.FsyncCounters() {
		out = append(out, [2]string{c.Column, c.FsyncLabel})
	}
	return out
}()

// FsyncSum names the status counters fsync_per_tx adds up, for the notes.
func FsyncSum() string {
	var names []string
	for _, c := range flavor.FsyncCounters() {
		names = append(names, c.Status)
	}
	return strings.Join(names, " + ")
}

// RunWhy is one run's figures.
type RunWhy struct {
	Hosts []*Cost // database hosts, master first
	// LoadBoxes are the clients' hosts in inventory order (several when
	// the run drove the cluster from several load boxes at once).
	LoadBoxes []*Cost
	Profiles  []*stacks.Profile
}

// ReadRunWhy computes a run's costs over its window w (load seconds;
// offset is the load's start on the monitors' clock); latUs is the
// client's mean transaction latency in that window (for the semi-sync
// share; NaN when unknown). Nil when
// the run has no time series.
func ReadRunWhy(dir string, w load.Window, offset, latUs float64) (*RunWhy, error) {
	if dir == "" {
		return nil, nil
	}
	var man load.ManifestDoc
	if _, err := load.ReadJSON(filepath.Join(dir, schema.FileManifest), &man); err != nil {
		return nil, err
	}
	out := &RunWhy{}
	for _, h := range man.Inventory.Hosts {
		my, err := load.ReadSeries(filepath.Join(dir, schema.TimeseriesMySQL(h.Name)))
		if err != nil {
			return nil, err
		}
		osr, err := load.ReadSeries(filepath.Join(dir, schema.TimeseriesOS(h.Name)))
		if err != nil {
			return nil, err
		}
		if my == nil && osr == nil {
			continue
		}
		for _, s := range []*load.Series{my, osr} {
			if s != nil {
				s.Offset, s.Applier = offset, h.Role == "slave"
			}
		}
		c := hostCost(h.Name, h.Role, my, osr, w, latUs)
		if h.Role == "loadbox" {
			out.LoadBoxes = append(out.LoadBoxes, c)
		} else if my != nil {
			out.Hosts = append(out.Hosts, c)
		}
	}
	setKernels(out, man.HostFacts)
	sort.SliceStable(out.Hosts, func(i, j int) bool { return out.Hosts[i].Role == "master" && out.Hosts[j].Role != "master" })
	files, _ := filepath.Glob(filepath.Join(dir, "stacks", "*.json"))
	for _, f := range files {
		var p stacks.Profile
		if ok, err := load.ReadJSON(f, &p); err == nil && ok && p.Samples > 0 {
			out.Profiles = append(out.Profiles, &p)
		}
	}
	if len(out.Hosts) == 0 && len(out.LoadBoxes) == 0 {
		return nil, nil
	}
	return out, nil
}

func hostCost(name, role string, my, osr *load.Series, w load.Window, latUs float64) *Cost {
	c := &Cost{Host: name, Role: role, FsyncParts: map[string]float64{}}
	nan := math.NaN()
	c.Tx, c.Seconds, c.TPS = nan, nan, nan
	c.CPUUs, c.CS, c.ReadKiB, c.WriteKiB, c.Fsync, c.BinlogBytes, c.BinlogGroups, c.SemisyncShare = nan, nan, nan, nan, nan, nan, nan, nan
	if tx, secs, ok := my.Total("gtid_tx_ps", w); ok && tx > 0 && secs > 0 {
		c.Tx, c.Seconds, c.TPS = tx, secs, tx/secs
	}
	per := func(s *load.Series, col string, scale float64) float64 {
		v, _, ok := s.Total(col, w)
		if !ok || math.IsNaN(c.Tx) {
			return nan
		}
		return v * scale / c.Tx
	}
	if my != nil {
		fs := 0.0
		have := false
		for _, fc := range FsyncCounters {
			if v := per(my, fc[0], 1); !math.IsNaN(v) && v > 0 {
				c.FsyncParts[fc[1]] = v
				fs += v
				have = true
			} else if !math.IsNaN(v) {
				have = true
			}
		}
		if have {
			c.Fsync = fs
		}
		c.Engine = engineCounters(func(col string, scale float64) float64 { return per(my, col, scale) })
		c.BinlogBytes = per(my, "binlog_bytes_written_bps", 1)
		c.BinlogGroups = per(my, "binlog_group_commits_ps", 1)
		c.ThreadsRunning = my.Mean("threads_running", w)
		if role == "master" && latUs > 0 {
			// Total ACK wait: the interval's average wait x commits that
			// waited (acknowledged ones).
			wait, _, ok := my.Integral(w, func(r []string) float64 {
				return my.Value(r, "semisync_avg_wait_us") * my.Value(r, "semisync_yes_tx_ps")
			}, true)
			if ok && !math.IsNaN(c.Tx) {
				c.SemisyncShare = wait / c.Tx / latUs
			}
		}
	} else {
		c.ThreadsRunning = nan
	}
	c.CPUUs = per(osr, "server_cpu_us_ps", 1)
	// server_cs_ps since the monitor reads schedstat; older runs have its
	// two parts.
	if c.CS = per(osr, "server_cs_ps", 1); math.IsNaN(c.CS) {
		if v, w := per(osr, "server_vcs_ps", 1), per(osr, "server_ivcs_ps", 1); !math.IsNaN(v) && !math.IsNaN(w) {
			c.CS = v + w
		}
	}
	c.ReadKiB = per(osr, "server_read_bps", 1.0/1024)
	c.WriteKiB = per(osr, "server_write_bps", 1.0/1024)
	c.NCPU = osr.Mean("ncpu", w)
	cores := func(us float64) float64 { return us / 1e6 / c.NCPU }
	c.ServerCPU = cores(osr.Mean("server_cpu_us_ps", w))
	c.HostCPU = (100 - osr.Mean("cpu_idle_pct", w)) / 100
	c.RunQueue, c.RunQueueP90 = osr.Spread("procs_running", w)
	c.ServerRunnable = osr.Mean("server_threads_runnable", w)
	c.DiskBusy = osr.Mean("disk_util_pct", w) / 100
	c.ClientCPU = cores(osr.Mean("client_cpu_us_ps", w))
	c.BoxCPU = cores(osr.Mean("box_cpu_us_ps", w))
	c.BoxRunQueue, c.BoxRunQueueP90 = osr.Spread("box_tasks_runnable", w)
	c.SamplerCPU = cores(osr.Mean("sampler_cpu_us_ps", w))
	c.IOWait = osr.Mean("cpu_iowait_pct", w) / 100
	return c
}

// MeanCost averages the runs' costs of one host (NaN-aware).
func MeanCost(cs []*Cost) *Cost {
	if len(cs) == 0 {
		return nil
	}
	out := &Cost{Host: cs[0].Host, Role: cs[0].Role, Kernel: cs[0].Kernel, FsyncParts: map[string]float64{}}
	fields := func(c *Cost) []*float64 {
		return []*float64{&c.Tx, &c.Seconds, &c.TPS, &c.CPUUs, &c.CS, &c.ReadKiB, &c.WriteKiB, &c.Fsync, &c.BinlogBytes, &c.BinlogGroups,
			&c.SemisyncShare, &c.NCPU, &c.ServerCPU, &c.HostCPU, &c.RunQueue, &c.RunQueueP90, &c.ServerRunnable, &c.DiskBusy,
			&c.ThreadsRunning, &c.ClientCPU, &c.BoxCPU, &c.BoxRunQueue, &c.BoxRunQueueP90, &c.SamplerCPU, &c.IOWait}
	}
	dst := fields(out)
	for i := range dst {
		var vals []float64
		for _, c := range cs {
			if v := *fields(c)[i]; !math.IsNaN(v) {
				vals = append(vals, v)
			}
		}
		*dst[i] = load.MeanOf(vals)
	}
	out.FsyncParts = meanParts(cs, func(c *Cost) map[string]float64 { return c.FsyncParts })
	out.Engine = meanParts(cs, func(c *Cost) map[string]float64 { return c.Engine })
	return out
}

// meanParts averages, key by key, a map of the runs' costs.
func meanParts(cs []*Cost, of func(*Cost) map[string]float64) map[string]float64 {
	parts := map[string][]float64{}
	for _, c := range cs {
		for k, v := range of(c) {
			parts[k] = append(parts[k], v)
		}
	}
	out := map[string]float64{}
	for k, v := range parts {
		out[k] = load.MeanOf(v)
	}
	return out
}

// MergeProfiles pools one role's stack samples over runs: counts of
// identical stacks add up.
func MergeProfiles(ps []*stacks.Profile) *stacks.Profile {
	if len(ps) == 0 {
		return nil
	}
	var all [][]stacks.Frame
	out := &stacks.Profile{Host: ps[0].Host, Role: ps[0].Role, Mode: ps[0].Mode}
	for _, p := range ps {
		for _, s := range p.Stacks {
			for range s.Count {
				all = append(all, s.Frames)
			}
		}
		out.Snapshots += p.Snapshots
		if p.MaxPauseMs != nil && (out.MaxPauseMs == nil || *p.MaxPauseMs > *out.MaxPauseMs) {
			v := *p.MaxPauseMs
			out.MaxPauseMs = &v
		}
	}
	out.Stacks = stacks.Aggregate(all, 0)
	for _, s := range out.Stacks {
		out.Samples += s.Count
	}
	return out
}

// RoleOrder sorts master first, then slaves by name.
func RoleOrder(hosts []string, role map[string]string) []string {
	out := slices.Clone(hosts)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := role[out[i]] == "master", role[out[j]] == "master"
		if ri != rj {
			return ri
		}
		return out[i] < out[j]
	})
	return out
}

// engineCounters reads, with per(column, scale), every counter that has a
// per-transaction name; the ones the run's series lack are left out.
func engineCounters(per func(col string, scale float64) float64) map[string]float64 {
	out := map[string]float64{}
	for _, c := range flavor.IOCounters() {
		if c.PerTx == "" {
			continue
		}
		if v := per(c.Column, c.PerTxScale); !math.IsNaN(v) {
			out[c.PerTx] = v
		}
	}
	return out
}

// KernelID names the kernel a host ran on, from its facts in the
// manifest: kernel_id (release and boot time, the same in every container
// on one kernel), else, for runs before it, boot_id (per container under
// systemd-nspawn); "" when the host could not be probed.
func KernelID(raw json.RawMessage) string {
	var f struct {
		KernelID string `json:"kernel_id"`
		BootID   string `json:"boot_id"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &f) != nil {
		return ""
	}
	return KernelOf(f.KernelID, f.BootID)
}

// KernelOf is the kernel key of a host's kernel_id and boot_id facts.
func KernelOf(kernelID, bootID string) string {
	if k := strings.TrimSpace(kernelID); k != "" {
		return k
	}
	return strings.TrimSpace(bootID)
}

// setKernels records each host's kernel from the run's facts.
func setKernels(rw *RunWhy, facts map[string]json.RawMessage) {
	for _, c := range append(append([]*Cost(nil), rw.Hosts...), rw.LoadBoxes...) {
		c.Kernel = KernelID(facts[c.Host])
	}
}
