package runner

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
)

// Progress shows a running benchmark: elapsed / total, current tps and qps,
// and the latency percentile the tool reports. On a terminal it redraws one
// line; elsewhere (CI logs, pipes) it prints a line every Every.
type Progress struct {
	W        io.Writer
	Terminal bool
	Total    time.Duration // 0 when the run is bounded by events, not time
	Every    time.Duration // non-terminal cadence (default 5s)
	// Pctl is the percentile of the intervals' latency (95: "p95"); 0
	// leaves it unnamed.
	Pctl int

	mu        sync.Mutex
	start     time.Time
	lastPrint time.Time
	last      bench.Interval
	seen      bool
}

// SetPercentile names the intervals' latency: p95 for 95.
func (p *Progress) SetPercentile(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Pctl = n
}

// Start marks the beginning of the run.
func (p *Progress) Start(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.start, p.lastPrint = now, now
}

// Interval records one intermediate report and shows it when due.
func (p *Progress) Interval(iv bench.Interval, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last, p.seen = iv, true
	every := p.Every
	if every == 0 {
		every = 5 * time.Second
	}
	switch {
	case p.Terminal:
		fmt.Fprintf(p.W, "\r\033[K%s", p.line(now))
	case now.Sub(p.lastPrint) >= every:
		fmt.Fprintln(p.W, p.line(now))
		p.lastPrint = now
	}
}

// Done ends the display (a terminal line gets its newline).
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Terminal && p.seen {
		fmt.Fprintln(p.W)
	}
}

func (p *Progress) line(now time.Time) string {
	el := time.Duration(p.last.T) * time.Second
	if p.last.T == 0 {
		el = now.Sub(p.start).Round(time.Second)
	}
	s := "run: " + el.String()
	if p.Total > 0 {
		s += fmt.Sprintf(" / %s (%.0f%%)", p.Total, 100*el.Seconds()/p.Total.Seconds())
	}
	s += "  tps " + num(p.last.TPS)
	if q := num(p.last.QPS); q != num(p.last.TPS) { // one query per transaction: qps says nothing more
		s += "  qps " + q
	}
	if p.last.LatMS.IsSet() {
		name := "lat"
		if p.Pctl > 0 {
			name = fmt.Sprintf("p%d", p.Pctl)
		}
		s += "  " + name + " " + p.last.LatMS.String() + " ms"
	}
	if p.last.Errors.IsSet() && p.last.Errors.Float64() > 0 {
		s += "  err/s " + p.last.Errors.String()
	}
	return s
}

func num(n bench.Number) string {
	if !n.IsSet() {
		return "-"
	}
	return n.String()
}
