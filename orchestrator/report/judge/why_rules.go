package judge

import (
	"fmt"
	"math"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/stacks"
)

// Why is a table's "where the time went": per configuration, the hosts'
// costs and the sentence that explains its throughput against the
// baseline's.
type Why struct {
	Groups []*GroupWhy
	Base   *GroupWhy
	// Runs holds each run's own figures, for results.csv.
	Runs map[*load.Run]*analyse.RunWhy
	// Notes say what could not be read.
	Notes []string
}

// GroupWhy is one configuration's figures, means over its runs.
type GroupWhy struct {
	Label string
	Ratio float64 // throughput over the baseline's
	// ApplyTxPS is the configuration's applied rate: the Replicas line's
	// (Stats.Replica.ApplyTxPS), the one every section prints.
	ApplyTxPS float64
	// Hosts are the database hosts, master first; Slaves their slaves'
	// mean (the sentences speak of "the slaves").
	Hosts  []*analyse.Cost
	Slaves *analyse.Cost
	// LoadBoxes are the load boxes' figures (one row each); LoadBox is
	// the first's.
	LoadBoxes []*analyse.Cost
	LoadBox   *analyse.Cost
	// ClientBound: a load box was saturated; ClientWhy says by what (and
	// which, when there are several).
	ClientBound bool
	ClientWhy   string
	// Profiles pools the stack samples by role ("master", "slave").
	Profiles map[string]*stacks.Profile
	// SidePosition is where the configuration's slaves keep their applied
	// position when the fairness lint found it differing (an InnoDB
	// mysql.gtid_slave_pos synced at each commit under a TokuDB replica):
	// the cause of fsyncs per applied transaction the engine itself does
	// not make.
	SidePosition string
	Sentence     string
}

// Master is the configuration's master figures (nil when unknown).
func (g *GroupWhy) Master() *analyse.Cost {
	if g != nil && len(g.Hosts) > 0 && g.Hosts[0].Role == "master" {
		return g.Hosts[0]
	}
	return nil
}

// host finds a host's figures by name.
func (g *GroupWhy) host(name string) *analyse.Cost {
	for _, c := range g.Hosts {
		if c.Host == name {
			return c
		}
	}
	return nil
}

// ClientBound applies the rule: the client saturates its host only when
// its own processes (the benchmark clients) use >= 90% of the host's
// cores. Neither the box's other processes nor its run queue make a
// verdict on their own: on a kernel shared with the servers (the lab) a
// runnable client thread waits for cores the servers hold, and a run
// queue whose mean of spikes reads 3.0 on 2 cores had a median of 1-2
// while the client used 0.17-0.24 of a core. The run queue (median, p90)
// is said beside a saturated client's CPU as evidence.
func ClientBound(lb *analyse.Cost) (bool, string) {
	if lb == nil || math.IsNaN(lb.NCPU) || lb.NCPU <= 0 || !(lb.ClientCPU >= analyse.SaturatedShare) {
		return false, ""
	}
	why := fmt.Sprintf("client %s of %s cores", analyse.PctFixed(lb.ClientCPU), analyse.Num(lb.NCPU, 0))
	if lb.BoxRunQueue > lb.NCPU {
		why += fmt.Sprintf(", run queue median %s > %s cores (p90 %s)", analyse.Num(lb.BoxRunQueue, 1), analyse.Num(lb.NCPU, 0), analyse.Num(lb.BoxRunQueueP90, 1))
	}
	return true, why
}

// cpuBusy is a host's CPU saturation figure: the larger of the server's
// share of the cores and the whole host's busy share.
func cpuBusy(c *analyse.Cost) float64 { return load.MaxNaN(c.ServerCPU, c.HostCPU) }

// diffs lists the per-transaction metrics whose ratio lies outside the
// marks, largest first (by |log ratio|), ignoring values both under the
// metric's noise floor.
func diffs(base, c *analyse.Cost) []analyse.Metric {
	var out []analyse.Metric
	score := map[string]float64{}
	for _, m := range analyse.Metrics {
		b, v := m.Get(base), m.Get(c)
		if math.IsNaN(b) || math.IsNaN(v) || math.Max(b, v) < m.Floor {
			continue
		}
		r := v / b
		if b == 0 {
			r = math.Inf(1)
		}
		if r >= analyse.MarkLow && r <= analyse.MarkHigh {
			continue
		}
		score[m.Col] = math.Abs(math.Log(math.Max(r, 1e-9)))
		out = append(out, m)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && score[out[j].Col] > score[out[j-1].Col]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// costPhrase is "1.27x CPU per transaction (412 vs 325 us)"; per is
// "transaction" or "applied transaction".
func costPhrase(m analyse.Metric, base, c *analyse.Cost, per string) string {
	b, v := m.Get(base), m.Get(c)
	inner := Small(v, m.Prec) + " vs " + Small(b, m.Prec)
	if m.Unit != "" {
		inner += " " + m.Unit
	}
	if m.Col == "fsync_per_tx" && len(c.FsyncParts) > 0 {
		var parts []string
		for _, fc := range analyse.FsyncCounters {
			if p, ok := c.FsyncParts[fc[1]]; ok {
				parts = append(parts, fmt.Sprintf("%s %s", fc[1], Small(p, m.Prec)))
			}
		}
		inner += "; " + strings.Join(parts, ", ")
	}
	words := m.Words
	if m.Col != "semisync_wait_frac" {
		words += " per " + per
	}
	if b > 0 && b < m.Floor {
		// A ratio to a baseline near 0 ("5,300x") says nothing.
		return fmt.Sprintf("%s (%s: the baseline's near 0, no ratio)", words, inner)
	}
	return fmt.Sprintf("%s %s (%s)", RatioText(v, b), words, inner)
}

func RatioText(v, b float64) string {
	if b == 0 {
		return "from 0 to"
	}
	return analyse.Ratio(v / b)
}

// predictor is the per-transaction cost that, at a saturated resource,
// sets the throughput: CPU for a CPU-bound master, fsyncs or bytes written
// for a disk-bound one.
func predictor(resource string, base, c *analyse.Cost) (analyse.Metric, bool) {
	want := []string{"cpu_us_per_tx"}
	if resource == "disk" {
		want = []string{"fsync_per_tx", "write_kib_per_tx"}
	}
	for _, col := range want {
		for _, m := range analyse.Metrics {
			if m.Col == col && !math.IsNaN(m.Get(base)) && !math.IsNaN(m.Get(c)) && m.Get(c) > 0 && m.Get(base) > 0 {
				return m, true
			}
		}
	}
	return analyse.Metric{}, false
}

// Saturation names a host's saturated resource ("cpu", "disk", "").
func Saturation(c *analyse.Cost) string {
	switch {
	case cpuBusy(c) >= analyse.SaturatedShare:
		return "cpu"
	case c.DiskBusy >= analyse.SaturatedShare:
		return "disk"
	}
	return ""
}

// masterPart explains the master: what is saturated, which cost differs,
// and whether that cost predicts the throughput ratio.
func masterPart(base, g *GroupWhy) string {
	bm, m := base.Master(), g.Master()
	if bm == nil || m == nil {
		return "No master time series to explain it with."
	}
	var b strings.Builder
	rb, rg := Saturation(bm), Saturation(m)
	res := rg
	if res == "" {
		res = rb
	}
	if math.IsNaN(cpuBusy(m)) && math.IsNaN(m.DiskBusy) {
		b.WriteString("Master utilisation not measured")
	}
	shared, onMachine := machineCPU(base, g, bm, m)
	switch {
	case math.IsNaN(cpuBusy(m)) && math.IsNaN(m.DiskBusy):
	case onMachine && (res == "cpu" || res == ""):
		// A shared kernel: its CPU is the machine's, not the master's.
		b.WriteString(shared)
	case rb == "cpu" && rg == "cpu":
		fmt.Fprintf(&b, "Master CPU saturated in both (%s, %s of %s cores%s)", analyse.PctFixed(cpuBusy(m)), analyse.PctFixed(cpuBusy(bm)), analyse.Num(m.NCPU, 0), serverShare(m, bm))
		res = "cpu"
	case rb == "disk" && rg == "disk":
		fmt.Fprintf(&b, "Master disk saturated in both (%s, %s busy)", analyse.PctFixed(m.DiskBusy), analyse.PctFixed(bm.DiskBusy))
	case res == "cpu":
		fmt.Fprintf(&b, "Master CPU saturated in %s only (%s vs %s of %s cores%s)", who(rg == "cpu", g, base), analyse.PctFixed(cpuBusy(m)), analyse.PctFixed(cpuBusy(bm)), analyse.Num(m.NCPU, 0), serverShare(m, bm))
	case res == "disk":
		fmt.Fprintf(&b, "Master disk saturated in %s only (%s vs %s busy)", who(rg == "disk", g, base), analyse.PctFixed(m.DiskBusy), analyse.PctFixed(bm.DiskBusy))
	default:
		fmt.Fprintf(&b, "Master not saturated (CPU %s vs %s of %s cores, disk %s vs %s busy)",
			analyse.PctFixed(cpuBusy(m)), analyse.PctFixed(cpuBusy(bm)), analyse.Num(m.NCPU, 0), analyse.PctFixed(m.DiskBusy), analyse.PctFixed(bm.DiskBusy))
	}
	ds := diffs(bm, m)
	named := ""
	if res != "" {
		if p, ok := predictor(res, bm, m); ok {
			pred := p.Get(bm) / p.Get(m)
			fmt.Fprintf(&b, "; %s used %s, which alone predicts %s", g.Label, costPhrase(p, bm, m, "transaction"), analyse.Ratio(pred))
			if !math.IsNaN(g.Ratio) && math.Abs(pred/g.Ratio-1) > 0.10 {
				fmt.Fprintf(&b, ", not the %s measured; what else moved: %s", analyse.Ratio(g.Ratio), moved(base, g, pred))
			}
			named = p.Col
		}
	}
	for _, d := range ds {
		if d.Col == named {
			continue
		}
		if named == "" {
			fmt.Fprintf(&b, "; the largest per-transaction difference: %s", costPhrase(d, bm, m, "transaction"))
		} else {
			fmt.Fprintf(&b, "; also %s", costPhrase(d, bm, m, "transaction"))
		}
		break
	}
	if len(ds) == 0 && named == "" {
		b.WriteString("; no per-transaction cost differs beyond 0.95-1.05")
	}
	b.WriteString(".")
	return b.String()
}

// serverShare says, when the host's CPU and not the server's own is what
// is saturated (other processes: on a shared kernel, the other hosts), how
// much of it the server used.
func serverShare(m, bm *analyse.Cost) string {
	if m.ServerCPU >= analyse.SaturatedShare && bm.ServerCPU >= analyse.SaturatedShare || math.IsNaN(m.ServerCPU) {
		return ""
	}
	return fmt.Sprintf(" busy on the host; the server itself used %s and %s", analyse.PctFixed(m.ServerCPU), analyse.PctFixed(bm.ServerCPU))
}

func who(first bool, g, base *GroupWhy) string {
	if first {
		return g.Label
	}
	return base.Label + " (the baseline)"
}

// SlavePart explains the slaves: how fast they applied and the cost that
// differs most per applied transaction.
func SlavePart(base, g *GroupWhy) string {
	bs, s := base.Slaves, g.Slaves
	if bs == nil || s == nil || math.IsNaN(g.ApplyTxPS) || math.IsNaN(base.ApplyTxPS) {
		return ""
	}
	var b strings.Builder
	// The applied rates are the Replicas line's (the slowest slave's), its
	// ratio printed there only; the costs are the slaves' mean.
	fmt.Fprintf(&b, "Slaves: the slowest applied %s vs %s tx/s (Replicas)", analyse.Num(g.ApplyTxPS, 0), analyse.Num(base.ApplyTxPS, 0))
	if ds := diffs(bs, s); len(ds) > 0 {
		fmt.Fprintf(&b, ", with %s", costPhrase(ds[0], bs, s, "applied transaction"))
		if ds[0].Col == "fsync_per_tx" && g.SidePosition != "" {
			// Named where it is paid: every applied transaction also
			// commits the position table, at that engine's flush policy.
			fmt.Fprintf(&b, "; its slaves keep their applied position in %s (Fairness)", g.SidePosition)
		}
	}
	if m := g.Master(); m != nil && !math.IsNaN(m.TPS) && g.ApplyTxPS < analyse.MarkLow*m.TPS {
		fmt.Fprintf(&b, "; they fell behind the master (%s of %s tx/s committed)", analyse.Num(g.ApplyTxPS, 0), analyse.Num(m.TPS, 0))
		if r, mm := Saturation(s), g.MachineOf(s); r == "cpu" && mm != nil {
			fmt.Fprintf(&b, ", %s saturated", mm.name())
		} else if r != "" {
			fmt.Fprintf(&b, ", %s-bound", r)
		}
	}
	b.WriteString(".")
	return b.String()
}

// stackShift is the minimum change of a frame's share worth naming.
const stackShift = 0.05

// stackPart names, on the master and on the sampled slave, the server
// frame whose share of thread samples grew most against the baseline.
func stackPart(base, g *GroupWhy) string {
	var parts []string
	for _, role := range []string{"master", "slave"} {
		bp, p := base.Profiles[role], g.Profiles[role]
		if bp == nil || p == nil {
			continue
		}
		if f, grow, was := grownFrame(bp, p); grow >= stackShift {
			parts = append(parts, fmt.Sprintf("Stacks (%s): `%s` in %s of thread samples (%s %s).", role, f.Func, analyse.PctFixed(f.Share), base.Label, analyse.PctFixed(was)))
		} else if role == "master" {
			parts = append(parts, "Stacks (master): no server frame's share grew by 5 points or more.")
		}
	}
	return strings.Join(parts, " ")
}

// grownFrame is the server frame whose inclusive share grew most from bp
// to p; equal growth along one call chain goes to the innermost frame,
// which says most.
func grownFrame(bp, p *stacks.Profile) (best stacks.FuncShare, grow, was float64) {
	before := map[string]float64{}
	for _, f := range stacks.FuncShares(bp) {
		before[f.Func] = f.Share
	}
	for _, f := range stacks.FuncShares(p) {
		d := f.Share - before[f.Func]
		if d > grow+1e-9 || math.Abs(d-grow) <= 1e-9 && d > 0 && f.Depth < best.Depth {
			best, grow = f, d
		}
	}
	return best, grow, before[best.Func]
}

// Attribution is a configuration's sentence against the baseline.
func Attribution(base, g *GroupWhy) string {
	parts := []string{fmt.Sprintf("%s: %s %s.", g.Label, analyse.Ratio(g.Ratio), base.Label)}
	if g.ClientBound || base.ClientBound {
		var who []string
		if g.ClientBound {
			who = append(who, g.Label+" ("+g.ClientWhy+")")
		}
		if base.ClientBound {
			who = append(who, base.Label+" ("+base.ClientWhy+")")
		}
		parts = append(parts, "Client-bound: the load box was saturated in "+strings.Join(who, " and ")+
			": the comparison measures the load box, not the engines.")
	}
	parts = append(parts, masterPart(base, g))
	if s := SlavePart(base, g); s != "" {
		parts = append(parts, s)
	}
	if s := stackPart(base, g); s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// BaselineLine describes the baseline itself.
func BaselineLine(g *GroupWhy) string {
	m := g.Master()
	if m == nil {
		return g.Label + " (baseline): no master time series."
	}
	s, shared := machineBaseline(g, m)
	if !shared {
		s = g.Label + " (baseline): " + hostUse(m) + perTx(m)
	}
	if g.ClientBound {
		s += "; client-bound (" + g.ClientWhy + ")"
	}
	return s + "."
}

// hostUse is the baseline master's utilisation, the figures measured
// only: "master host CPU 93.4% busy (the server 41.6% of 2 cores), disk
// 6.5% busy", "master utilisation not measured".
func hostUse(m *analyse.Cost) string {
	var parts []string
	if !math.IsNaN(m.HostCPU) {
		s := "master host CPU " + analyse.PctFixed(m.HostCPU) + " busy"
		if !math.IsNaN(m.ServerCPU) && !math.IsNaN(m.NCPU) {
			s += " (the server " + analyse.PctFixed(m.ServerCPU) + " of " + analyse.Num(m.NCPU, 0) + " cores)"
		}
		parts = append(parts, s)
	}
	if !math.IsNaN(m.DiskBusy) {
		parts = append(parts, "disk "+analyse.PctFixed(m.DiskBusy)+" busy")
	}
	if len(parts) == 0 {
		return "master utilisation not measured"
	}
	return strings.Join(parts, ", ")
}

// perTx is "; 86.3 us CPU, 0.00119 fsyncs per transaction", with the
// digits of the per-transaction table's columns; "" when neither was
// measured.
func perTx(m *analyse.Cost) string {
	var parts []string
	if !math.IsNaN(m.CPUUs) {
		parts = append(parts, Small(m.CPUUs, analyse.CostDigits)+" us CPU")
	}
	if !math.IsNaN(m.Fsync) {
		parts = append(parts, Small(m.Fsync, analyse.CostDigits)+" fsyncs")
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", ") + " per transaction"
}
