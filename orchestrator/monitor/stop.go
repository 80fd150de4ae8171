package monitor

import (
	"fmt"
	"sync"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/topology"
)

// stopGrace is how long Stop waits beyond the sample timeout for samples
// to end: a cancelled SSH command may take a few seconds to be killed.
// A variable for tests.
var stopGrace = 10 * time.Second

// lastSampleWait bounds how long Stop waits for the streams' last samples
// (a sample takes milliseconds on a healthy host).
const lastSampleWait = 2 * time.Second

// Stop ends sampling, closes the files and returns the run's summary. The
// error reports files that could not be written; hosts that failed are in
// the summary and events. Calling Stop again returns the same results.
func (m *Monitor) Stop() (*Summary, error) {
	m.stopOnce.Do(func() {
		// Every stream samples once more, so that the series end with
		// the load (a client that began 0.5 s into its first second ends
		// 0.5 s into the monitors' last one: without this sample, the
		// master's commits of the load's last half second were never
		// read, and a window ending there was the master's over fewer
		// seconds than the client's). A host that does not answer within
		// lastSampleWait is cancelled with the rest.
		close(m.last)
		waitAtMost(&m.streams, min(m.cfg.SampleTimeout, lastSampleWait))
		m.cancel()
		// A sample that ignores cancellation is left behind: its stream
		// finds its file closed if it ever returns.
		waitAtMost(&m.wg, m.cfg.SampleTimeout+stopGrace)
		m.summary, m.stopErr = m.finish(m.now())
	})
	return m.summary, m.stopErr
}

// waitAtMost waits for wg, or d.
func waitAtMost(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}

func (m *Monitor) finish(end time.Time) (*Summary, error) {
	semi, stalls, dropped := m.det.finish(end)
	sum := &Summary{Start: m.start, End: end, Stalls: stalls, StallsNotListed: dropped}
	if sum.Stalls == nil {
		sum.Stalls = []Stall{}
	}
	if m.det.master != "" {
		sum.SemiSync = &semi
	}
	var errs []error
	for _, h := range m.hosts {
		hs := HostSummary{Host: h.name, Role: string(h.role)}
		if h.mysql != nil {
			n, failed, skipped, last, err := h.mysql.close()
			hs.MySQLSamples, hs.Errors, hs.SkippedTicks, hs.LastError = n, failed, skipped, last
			errs = append(errs, err)
			// Closed: no sample touches the processor any more.
			hs.CounterResets += h.mysqlP.resets
			if h.role == topology.RoleSlave {
				sum.Lag = append(sum.Lag, h.mysqlP.lag(h.name))
			}
		}
		if h.os != nil {
			n, failed, skipped, last, err := h.os.close()
			hs.OSSamples = n
			hs.Errors += failed
			hs.SkippedTicks += skipped
			if last != "" {
				hs.LastError = last
			}
			errs = append(errs, err)
			hs.CounterResets += h.osP.resets
		}
		sum.Samples += hs.MySQLSamples + hs.OSSamples
		sum.SkippedTicks += hs.SkippedTicks
		sum.Hosts = append(sum.Hosts, hs)
	}
	m.events.write(Event{T: end, Kind: KindMonitorStop, Detail: fmt.Sprintf(
		"%d rows, %d skipped ticks, %d stall(s)", sum.Samples, sum.SkippedTicks, len(sum.Stalls)+sum.StallsNotListed)})
	count, err := m.events.close()
	sum.Events = count
	errs = append(errs, err)
	return sum, orchestrator.Aggregate(errs)
}

// closeFiles undoes a Start that failed half-way.
func (m *Monitor) closeFiles() {
	for _, h := range m.hosts {
		if h.mysql != nil {
			h.mysql.close()
		}
		if h.os != nil {
			h.os.close()
		}
	}
	m.events.close()
}

func (p *mysqlProc) lag(host string) SlaveLag {
	l := SlaveLag{Host: host}
	if p.hasLagS {
		n := p.maxLagS
		l.MaxSeconds = &n
	}
	if p.hasLagTx {
		n := p.maxLagTx
		l.MaxTransactions = &n
	}
	return l
}
