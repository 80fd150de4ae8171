package judge

import (
	"fmt"
	"math"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
)

// machine is one shared kernel's CPU in a configuration, shares of its
// cores (means over the runs, from the hosts' own figures).
type machine struct {
	Hosts []string // the inventory hosts on it, database hosts first
	NCPU  float64
	// Busy is the host's "host CPU busy" (cpuBusy) the machine is seen
	// from; the parts below are NaN when no host measured them.
	Busy, Servers, Master, Client, Sampler, IOWait float64
	// BoxOther is the load boxes' processes other than the clients (CPU
	// hogs, a build): the box's own share, not the client's.
	BoxOther float64
	// Client is measured: a load box is on the machine.
	HasClient bool
	// TPS is the master's commit rate, what the machine's CPU is spent per.
	TPS float64
}

// MachineOf is the shared machine c is on in g, seen from c; nil when c's
// kernel is its own (or unknown).
func (g *GroupWhy) MachineOf(c *analyse.Cost) *machine {
	if g == nil || c == nil || c.Kernel == "" {
		return nil
	}
	m := &machine{NCPU: c.NCPU, Busy: cpuBusy(c), IOWait: c.IOWait,
		Servers: math.NaN(), Master: math.NaN(), Client: math.NaN(), Sampler: math.NaN(), BoxOther: math.NaN(), TPS: math.NaN()}
	add := func(sum *float64, v float64) {
		if !math.IsNaN(v) {
			if math.IsNaN(*sum) {
				*sum = 0
			}
			*sum += v
		}
	}
	for _, h := range g.Hosts {
		if h.Kernel != c.Kernel {
			continue
		}
		m.Hosts = append(m.Hosts, h.Host)
		add(&m.Servers, h.ServerCPU)
		add(&m.Sampler, h.SamplerCPU)
		if h.Role == "master" {
			m.Master, m.TPS = h.ServerCPU, h.TPS
		}
	}
	for _, lb := range g.LoadBoxes {
		if lb.Kernel != c.Kernel {
			continue
		}
		m.Hosts = append(m.Hosts, lb.Host)
		m.HasClient = true
		add(&m.Client, lb.ClientCPU)
		add(&m.Sampler, lb.SamplerCPU)
		if o := lb.BoxCPU - lb.ClientCPU; o >= moveFloor {
			add(&m.BoxOther, o) // less than that is the samplers' and sshd's noise
		}
	}
	if len(m.Hosts) < 2 {
		return nil
	}
	return m
}

// name is "the machine (shared by 4 hosts)".
func (m *machine) name() string {
	return fmt.Sprintf("the machine (shared by %d hosts)", len(m.Hosts))
}

// Other is the busy share the servers, the client and the samplers do
// not account for (iowait apart).
func (m *machine) Other() float64 {
	o := m.Busy
	for _, v := range []float64{m.Servers, m.Client, m.BoxOther, m.Sampler, m.IOWait} {
		if !math.IsNaN(v) {
			o -= v
		}
	}
	return o
}

// cpuGroup is one process group's busy share of the machine.
type cpuGroup struct {
	name  string
	share float64
}

// groups are the machine's process groups that were measured, in the
// order they are said, everything else last; iowait (not a process's
// CPU) only when asked for and above 0.5%.
func (m *machine) groups(iowait bool) []cpuGroup {
	var out []cpuGroup
	add := func(name string, share float64, ok bool) {
		if ok && !math.IsNaN(share) {
			out = append(out, cpuGroup{name, share})
		}
	}
	add("servers", m.Servers, true)
	add("client", m.Client, m.HasClient)
	add("the load box's other processes", m.BoxOther, true)
	add("orch's sampling", m.Sampler, true)
	add("iowait", m.IOWait, iowait && m.IOWait >= 0.005)
	return append(out, cpuGroup{"everything else", m.Other()})
}

// split says where the machine's CPU went: "servers 52% (the master's
// 30%), client 20%, orch's sampling 4%, everything else 19%".
func (m *machine) split() string {
	var parts []string
	for _, g := range m.groups(true) {
		s := g.name + " " + analyse.PctFixed(g.share)
		if g.name == "servers" && !math.IsNaN(m.Master) {
			s += " (the master's " + analyse.PctFixed(m.Master) + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// perTx is the whole machine's CPU per committed transaction by process
// group, in µs: "1,060 us (servers 497, client 83, orch's sampling 12,
// everything else 468)"; "" when the master's rate is unknown. On a
// shared kernel no host's own saturation rule applies: this is what a
// configuration costs the machine, whoever ran it.
func (m *machine) perTx() string {
	if math.IsNaN(m.TPS) || m.TPS <= 0 || math.IsNaN(m.NCPU) {
		return ""
	}
	us := func(share float64) string { return analyse.Num(share*m.NCPU*1e6/m.TPS, 0) }
	var parts []string
	for _, g := range m.groups(false) {
		parts = append(parts, g.name+" "+us(g.share))
	}
	return fmt.Sprintf("%s us (%s)", us(m.Busy-nanTo(m.IOWait, 0)), strings.Join(parts, ", "))
}

// machineCPU is the first clause of the master's explanation on a shared
// machine, in place of "Master CPU ...": whether the machine is saturated
// and where its CPU went in both configurations.
func machineCPU(base, g *GroupWhy, bm, m *analyse.Cost) (string, bool) {
	mm, bmm := g.MachineOf(m), base.MachineOf(bm)
	if mm == nil || bmm == nil {
		return "", false
	}
	state := "is not saturated"
	switch rg, rb := mm.Busy >= analyse.SaturatedShare, bmm.Busy >= analyse.SaturatedShare; {
	case rg && rb:
		state = "is saturated in both"
	case rg:
		state = "is saturated in " + g.Label + " only"
	case rb:
		state = "is saturated in " + base.Label + " (the baseline) only"
	}
	s := fmt.Sprintf("%s %s (CPU %s vs %s busy of %s cores; %s: %s; %s: %s)", capitalize(mm.name()), state,
		analyse.PctFixed(mm.Busy), analyse.PctFixed(bmm.Busy), analyse.Num(mm.NCPU, 0), g.Label, mm.split(), base.Label, bmm.split())
	if mm.Busy >= analyse.SaturatedShare || bmm.Busy >= analyse.SaturatedShare {
		s = "Machine-bound: " + mm.name() + strings.TrimPrefix(s, capitalize(mm.name()))
	}
	if p, bp := mm.perTx(), bmm.perTx(); p != "" && bp != "" {
		s += fmt.Sprintf("; whole-machine CPU per committed transaction: %s %s vs %s %s", g.Label, p, base.Label, bp)
	}
	if !math.IsNaN(m.DiskBusy) || !math.IsNaN(bm.DiskBusy) {
		s += fmt.Sprintf(", master disk %s vs %s busy", analyse.PctFixed(m.DiskBusy), analyse.PctFixed(bm.DiskBusy))
	}
	return s, true
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// moveFloor is the least change, in points of the cores, of a share worth
// naming as what moved.
const moveFloor = 0.02

// moved names what changed besides the cost that predicts the ratio pred,
// when that prediction misses the measured ratio: the master's own commit
// rate when it is what the cost predicts, the CPU the master's server
// got, and on a shared machine the other servers', the client's, orch's
// sampling and everything else's, and the master's disk; the largest
// changes first, at most three.
func moved(base, g *GroupWhy, pred float64) string {
	bm, m := base.Master(), g.Master()
	var parts []string
	// The cost may predict the master's own commit rate well and the
	// measured ratio (the client's figure) not: then that is what moved.
	if r := m.TPS / bm.TPS; !math.IsNaN(r) && math.Abs(r/pred-1) <= 0.10 {
		parts = append(parts, fmt.Sprintf("the master's own commit rate, %s (%s vs %s tx/s), is what the cost predicts: the %s is the client's figure",
			analyse.Ratio(r), analyse.Num(m.TPS, 0), analyse.Num(bm.TPS, 0), analyse.Ratio(g.Ratio)))
	}
	type item struct {
		words   string
		v, b, d float64
	}
	var items []item
	addItem := func(words string, v, b float64) {
		if math.IsNaN(v) || math.IsNaN(b) || math.Abs(v-b) < moveFloor {
			return
		}
		items = append(items, item{words, v, b, math.Abs(v - b)})
	}
	addItem("the master's server got", m.ServerCPU, bm.ServerCPU)
	if mm, bmm := g.MachineOf(m), base.MachineOf(bm); mm != nil && bmm != nil {
		addItem("the other servers", mm.Servers-mm.Master, bmm.Servers-bmm.Master)
		if mm.HasClient && bmm.HasClient {
			addItem("the client", mm.Client, bmm.Client)
		}
		addItem("orch's sampling", mm.Sampler, bmm.Sampler)
		addItem("everything else on the machine", mm.Other(), bmm.Other())
	}
	for i := 1; i < len(items); i++ {
		for j := i; j > 0 && items[j].d > items[j-1].d; j-- {
			items[j], items[j-1] = items[j-1], items[j]
		}
	}
	for _, it := range items[:min(3, len(items))] {
		parts = append(parts, fmt.Sprintf("%s %s vs %s of the cores (%s)", it.words, analyse.PctFixed(it.v), analyse.PctFixed(it.b), RatioText(it.v, it.b)))
	}
	if d, bd := m.DiskBusy, bm.DiskBusy; !math.IsNaN(d) && !math.IsNaN(bd) && math.Abs(d-bd) >= 0.10 {
		parts = append(parts, fmt.Sprintf("master disk %s vs %s busy", analyse.PctFixed(d), analyse.PctFixed(bd)))
	}
	if len(parts) == 0 {
		return "no CPU share moved by 2 points or more"
	}
	return strings.Join(parts, ", ")
}

// machineBaseline is the baseline's line on a shared machine.
func machineBaseline(g *GroupWhy, m *analyse.Cost) (string, bool) {
	mm := g.MachineOf(m)
	if mm == nil {
		return "", false
	}
	state := "is not saturated"
	if mm.Busy >= analyse.SaturatedShare {
		state = "is saturated (machine-bound)"
	}
	whole := ""
	if p := mm.perTx(); p != "" {
		whole = "; whole-machine CPU per committed transaction " + p
	}
	return fmt.Sprintf("%s (baseline): %s %s (CPU %s busy of %s cores: %s%s), master disk %s busy%s",
		g.Label, mm.name(), state, analyse.PctFixed(mm.Busy), analyse.Num(mm.NCPU, 0), mm.split(), whole, analyse.PctFixed(m.DiskBusy), perTx(m)), true
}

// MachineRows are the USE table's rows of the shared machines of g, one
// per machine: its cores, the servers' CPU, its busy share and run queue
// (machine-wide), the client's CPU, and the split.
func (g *GroupWhy) MachineRows() [][]string {
	var rows [][]string
	seen := map[string]bool{}
	for _, c := range append(append([]*analyse.Cost(nil), g.Hosts...), g.LoadBoxes...) {
		mm := g.MachineOf(c)
		if mm == nil || seen[c.Kernel] {
			continue
		}
		seen[c.Kernel] = true
		flag := mm.name() + " is not saturated"
		if mm.Busy >= analyse.SaturatedShare {
			flag = mm.name() + " is saturated (machine-bound)"
		}
		client := ""
		if mm.HasClient {
			client = analyse.PctFixed(mm.Client)
		}
		rows = append(rows, []string{g.Label, "machine", "shared by " + strings.Join(mm.Hosts, ", "), analyse.Num(mm.NCPU, 0),
			analyse.PctFixed(mm.Servers), analyse.PctFixed(mm.Busy), QueueCell(c.RunQueue, c.RunQueueP90), "", "", "", client, flag + ": " + mm.split()})
	}
	return rows
}
