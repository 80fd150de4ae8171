package stacks

import (
	"sort"
	"time"
)

// MaxDepth cuts stacks to their innermost frames before aggregating, as
// pt-pmp's -l does: deeper frames are the same thread entry points.
const MaxDepth = 24

// NewProfile aggregates parsed output.
func NewProfile(host, role string, mode Mode, start, end time.Time, r Raw) *Profile {
	p := &Profile{Host: host, Role: role, Mode: mode, Start: start, End: end, Snapshots: r.Snapshots,
		Stacks: Aggregate(r.Stacks, MaxDepth), PausesMs: r.PausesMs, Errors: r.Errors}
	for _, s := range p.Stacks {
		p.Samples += s.Count
	}
	for _, ms := range r.PausesMs {
		if p.MaxPauseMs == nil || ms > *p.MaxPauseMs {
			v := ms
			p.MaxPauseMs = &v
		}
	}
	return p
}

// FuncShare is a server function and the share of samples whose stack
// holds it (inclusive, as in a flame graph), with its mean depth.
type FuncShare struct {
	Func  string
	Share float64
	Depth float64 // mean frame index: 0 is the innermost
}

// FuncShares lists the server's own functions (library frames left out:
// a wait in libc says nothing of why) by inclusive share, highest first.
func FuncShares(ps ...*Profile) []FuncShare {
	count := map[string]int{}
	depth := map[string]int{}
	total := 0
	for _, p := range ps {
		if p == nil {
			continue
		}
		total += p.Samples
		for _, s := range p.Stacks {
			seen := map[string]bool{}
			for i, f := range s.Frames {
				if f.Lib || seen[f.Func] {
					continue
				}
				seen[f.Func] = true
				count[f.Func] += s.Count
				depth[f.Func] += i * s.Count
			}
		}
	}
	out := make([]FuncShare, 0, len(count))
	for fn, c := range count {
		out = append(out, FuncShare{Func: fn, Share: float64(c) / float64(total), Depth: float64(depth[fn]) / float64(c)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Share != out[j].Share {
			return out[i].Share > out[j].Share
		}
		return out[i].Func < out[j].Func
	})
	return out
}
