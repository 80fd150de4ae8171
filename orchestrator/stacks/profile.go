package stacks

import (
	"sort"
	"time"
)

// Profile is one host's stack samples over one window, aggregated.
type Profile struct {
	Host  string    `json:"host"`
	Role  string    `json:"role"`
	Mode  Mode      `json:"mode"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Snapshots is how many times the stacks were taken; Samples the
	// stacks seen in all (threads x snapshots for gdb).
	Snapshots int `json:"snapshots"`
	Samples   int `json:"samples"`
	// Stacks are the distinct stacks, most frequent first.
	Stacks []Stack `json:"stacks"`
	// PausesMs: each gdb snapshot's duration, the most the server was
	// stopped by it; MaxPauseMs the longest (nil for perf, which does
	// not stop the server).
	PausesMs   []float64 `json:"pauses_ms,omitempty"`
	MaxPauseMs *float64  `json:"max_pause_ms,omitempty"`
	Errors     []string  `json:"errors,omitempty"`
}

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

// Share is the stack's share of the profile's samples.
func (p *Profile) Share(s Stack) float64 {
	if p.Samples == 0 {
		return 0
	}
	return float64(s.Count) / float64(p.Samples)
}

// Top is the n most frequent stacks.
func (p *Profile) Top(n int) []Stack {
	return p.Stacks[:min(n, len(p.Stacks))]
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
