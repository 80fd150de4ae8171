package judge

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/stacks"
)

// buildWhy computes the table's "where the time went" from its runs'
// directories; nil when no run has time series (parse output, old runs).
func (t *Table) buildWhy() *Why {
	w := &Why{Runs: map[*load.Run]*analyse.RunWhy{}}
	for _, g := range t.Groups {
		gw := &GroupWhy{Label: g.Label, Ratio: g.Ratio, ApplyTxPS: g.Replica.ApplyTxPS, Profiles: map[string]*stacks.Profile{},
			SidePosition: t.sidePosition(g.Label)}
		if g == t.Baseline {
			gw.Ratio = 1
			w.Base = gw
		}
		hosts := map[string][]*analyse.Cost{}
		role := map[string]string{}
		var order, slaves []string
		var slaveCosts []*analyse.Cost
		boxes := map[string][]*analyse.Cost{}
		var boxOrder []string
		profiles := map[string][]*stacks.Profile{}
		for _, r := range g.Runs {
			if !r.Usable() || r.Dir == "" {
				continue
			}
			rw, err := analyse.ReadRunWhy(r.Dir, r.Win, r.LoadOffsetS, r.Bench.WindowLatAvg(r.Win)*1000)
			if err != nil {
				w.Notes = append(w.Notes, fmt.Sprintf("%s: %v", r.ID, err))
				continue
			}
			if rw == nil {
				continue
			}
			w.Runs[r] = rw
			for _, c := range rw.Hosts {
				if _, seen := hosts[c.Host]; !seen {
					order = append(order, c.Host)
					role[c.Host] = c.Role
					if c.Role == "slave" {
						slaves = append(slaves, c.Host)
					}
				}
				hosts[c.Host] = append(hosts[c.Host], c)
				if c.Role == "slave" {
					slaveCosts = append(slaveCosts, c)
				}
			}
			for _, lb := range rw.LoadBoxes {
				if boxes[lb.Host] == nil {
					boxOrder = append(boxOrder, lb.Host)
				}
				boxes[lb.Host] = append(boxes[lb.Host], lb)
			}
			for _, p := range rw.Profiles {
				profiles[p.Role] = append(profiles[p.Role], p)
			}
		}
		for _, h := range analyse.RoleOrder(order, role) {
			gw.Hosts = append(gw.Hosts, analyse.MeanCost(hosts[h]))
		}
		if len(slaveCosts) > 0 {
			gw.Slaves = analyse.MeanCost(slaveCosts)
			gw.Slaves.Host = "slaves"
			if len(slaves) == 1 {
				gw.Slaves.Host = slaves[0]
			}
		}
		for _, h := range boxOrder {
			gw.LoadBoxes = append(gw.LoadBoxes, analyse.MeanCost(boxes[h]))
		}
		if len(gw.LoadBoxes) > 0 {
			gw.LoadBox = gw.LoadBoxes[0]
		}
		gw.ClientBound, gw.ClientWhy = ClientsBound(gw.LoadBoxes)
		for r, ps := range profiles {
			gw.Profiles[r] = analyse.MergeProfiles(ps)
		}
		w.Groups = append(w.Groups, gw)
	}
	if w.Base == nil || len(w.Runs) == 0 {
		return nil
	}
	for _, g := range w.Groups {
		if g == w.Base {
			g.Sentence = BaselineLine(g)
		} else {
			g.Sentence = Attribution(w.Base, g)
		}
	}
	return w
}

// CostTableHeader is the per-transaction table's header.
func CostTableHeader() []string {
	h := []string{"configuration", "host", "role", "tx/s"}
	for _, m := range analyse.Metrics {
		h = append(h, m.Col)
	}
	return h
}

// CostRows renders the per-transaction table: each value with its ratio to
// the baseline's same host; mark wraps the cells outside 0.95-1.05.
func (w *Why) CostRows(mark func(string) string) [][]string {
	var rows [][]string
	for _, g := range w.Groups {
		for _, c := range g.Hosts {
			base := w.Base.host(c.Host)
			if g == w.Base {
				base = nil
			}
			cell := func(get func(*analyse.Cost) float64, floor float64, format func(float64) string) string {
				v := get(c)
				s := format(v)
				if base == nil || math.IsNaN(v) || math.IsNaN(get(base)) || get(base) == 0 {
					return s
				}
				if b := get(base); b < floor {
					// A ratio to a baseline near 0 (896x of 0.00005 KiB)
					// says nothing: the two values instead.
					s += " (vs " + format(b) + ")"
					if v >= floor {
						s = mark(s)
					}
					return s
				}
				r := v / get(base)
				s += " (" + analyse.Ratio(r) + ")"
				if r < analyse.MarkLow || r > analyse.MarkHigh {
					s = mark(s)
				}
				return s
			}
			tps := cell(func(c *analyse.Cost) float64 { return c.TPS }, 0, func(v float64) string { return analyse.Num(v, 0) })
			if c.Role == "slave" {
				// A slave's own rate, without a ratio: the applied ratio is
				// one figure (the slowest slave's, the Replicas line's).
				tps = analyse.Num(c.TPS, 0)
			}
			row := []string{g.Label, c.Host, c.Role, tps}
			for _, m := range analyse.Metrics {
				row = append(row, cell(m.Get, m.Floor, func(v float64) string { return Small(v, m.Prec) }))
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// Small formats v with prec significant digits, in plain decimals, so a
// column reads alike from 0.000044 to 4400 (never 4.4e-05 beside 0.00);
// an exact 0 is "0".
func Small(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return analyse.Num(v, 0)
	}
	if v == 0 {
		return "0"
	}
	d := prec - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	if d > 0 {
		// Rounded first: 9.996 at 3 digits is 10.0, not 10.00.
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', prec, 64), 64)
		d = prec - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	}
	return analyse.Num(v, max(0, d))
}

// TopStacks is one configuration's and role's five most frequent stacks.
type TopStacks struct {
	Label, Role, Title string
	Rows               [][2]string // share, stack
}

// stackFrames is how many innermost frames a stack shows in the report.
const stackFrames = 8

func (w *Why) TopStacks() []TopStacks {
	var out []TopStacks
	for _, g := range w.Groups {
		roles := make([]string, 0, len(g.Profiles))
		for r := range g.Profiles {
			roles = append(roles, r)
		}
		sort.Slice(roles, func(i, j int) bool { return roles[i] == "master" || roles[j] != "master" && roles[i] < roles[j] })
		for _, role := range roles {
			p := g.Profiles[role]
			// "innodb, master", or "innodb, slave1 (slave)": the role
			// is not repeated when the host is named after it.
			who := role
			if p.Host != "" && p.Host != role {
				who = p.Host + " (" + role + ")"
			}
			ts := TopStacks{Label: g.Label, Role: role,
				Title: fmt.Sprintf("%s, %s: %d %s stacks from %d snapshot(s)", g.Label, who, p.Samples, p.Mode, p.Snapshots)}
			if p.MaxPauseMs != nil {
				ts.Title += fmt.Sprintf(", longest server pause %.0f ms", *p.MaxPauseMs)
			}
			if p.Snapshots > 0 && p.Samples > p.Snapshots {
				// The threads of one snapshot are one instant: the
				// intervals count them as independent samples.
				ts.Title += fmt.Sprintf("; the intervals count the %d stacks as independent, so they are the least uncertainty of shares from %d instants", p.Samples, p.Snapshots)
			}
			for _, s := range Shown(p) {
				ts.Rows = append(ts.Rows, [2]string{analyse.StackShare(s.Count, p.Samples), key(s.Frames)})
			}
			out = append(out, ts)
		}
	}
	return out
}

func key(fr []stacks.Frame) string { return stacks.Stack{Frames: fr}.Key() }

// Shown is a profile's five most frequent stacks as the report prints
// them: the innermost frame (where the thread is: a futex, poll, fsync),
// then the server's own frames, up to stackFrames; library frames between
// them (glibc's layers of a condition wait) are left out, and stacks that
// then read the same are counted together. stacks/ keeps them whole.
func Shown(p *stacks.Profile) []stacks.Stack {
	var all [][]stacks.Frame
	for _, s := range p.Stacks {
		var fr []stacks.Frame
		for i, f := range s.Frames {
			if i == 0 || !f.Lib {
				fr = append(fr, f)
			}
		}
		if len(fr) > stackFrames {
			fr = append(fr[:stackFrames:stackFrames], stacks.Frame{Func: "..."})
		}
		for range s.Count {
			all = append(all, fr)
		}
	}
	top := stacks.Aggregate(all, 0)
	return top[:min(5, len(top))]
}

// ClientsBound is clientBound over every load box of a configuration: it
// is client-bound when any of them is, and the reason names which one when
// there are several (each keeps its own row and flag).
func ClientsBound(boxes []*analyse.Cost) (bool, string) {
	var whys []string
	for _, lb := range boxes {
		if bound, why := ClientBound(lb); bound {
			if len(boxes) > 1 {
				why = lb.Host + ": " + why
			}
			whys = append(whys, why)
		}
	}
	return len(whys) > 0, strings.Join(whys, "; ")
}
