package monitor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// stream samples one side (mysql or os) of one host on its own ticker, so
// that a slow or dead host delays nobody else.
type stream[R any] struct {
	m      *Monitor
	host   string
	kind   string // "mysql" or "os"
	fetch  func(ctx context.Context) (R, error)
	handle func(raw R, at time.Time, c *csvFile) error
	// phase shifts the stream's ticks within the interval: the streams
	// of a monitor are spread over it, so that every host is not asked at
	// the same instant each second (a burst of SSH round trips and /proc
	// reads landing on the servers' commit path together).
	phase time.Duration

	// mu guards the rest against Stop, which may give up on a stream
	// whose sample ignores cancellation and close the file under it.
	mu        sync.Mutex
	csv       *csvFile
	closed    bool
	samples   int
	errors    int
	skipped   int
	failing   bool
	failSince time.Time
	lastErr   string
	// lastAt is when the latest sample's answer arrived.
	lastAt time.Time
	// ticks_skipped reporting, see skip.
	lastSkipReport time.Time
	unreported     int
}

// run samples at once (the baseline every rate needs), then on every
// tick, its ticks shifted by the stream's phase. Ticks that come due while
// a sample runs are skipped and recorded rather than queued: samples stay
// on the interval's grid and never pile up behind a slow host.
func (s *stream[R]) run(ctx context.Context) {
	iv := s.m.cfg.Interval
	s.once(ctx)
	if ctx.Err() != nil {
		return
	}
	select {
	case <-ctx.Done():
		return
	case <-s.m.last:
		s.lastSample(ctx)
		return
	case <-time.After(s.phase):
	}
	begin := time.Now()
	tick := time.NewTicker(iv)
	defer tick.Stop()
	var done int64 // ticks up to this index are sampled or skipped
	for {
		k, ok := nextTick(ctx, s.m.last, tick.C, begin, iv, done)
		if !ok {
			s.lastSample(ctx)
			return
		}
		done = k
		started := time.Now()
		s.once(ctx)
		if ctx.Err() != nil {
			return
		}
		if now := int64(time.Since(begin) / iv); now > done {
			s.skip(now-done, time.Since(started))
			done = now
		}
	}
}

// lastSample is the stream's sample at Stop (unless the monitor was
// cancelled, or its latest sample is fresher than minLastSampleGap: a row
// over a few milliseconds adds no seconds, only a noisy rate).
func (s *stream[R]) lastSample(ctx context.Context) {
	s.mu.Lock()
	fresh := !s.lastAt.IsZero() && s.m.now().Sub(s.lastAt) < minLastSampleGap
	s.mu.Unlock()
	if ctx.Err() == nil && !fresh {
		s.once(ctx)
	}
}

// minLastSampleGap: see lastSample.
const minLastSampleGap = 100 * time.Millisecond

// nextTick waits for a tick after index done; a tick delivered late (it
// came due during the last sample, already counted as skipped) is dropped.
// It returns false when ctx is done or last is closed.
func nextTick(ctx context.Context, last <-chan struct{}, c <-chan time.Time, begin time.Time, iv time.Duration, done int64) (int64, bool) {
	for {
		select {
		case <-ctx.Done():
			return 0, false
		case <-last:
			return 0, false
		case t := <-c:
			if k := int64((t.Sub(begin) + iv/2) / iv); k > done {
				return k, true
			}
		}
	}
}

// once takes one sample under the sample timeout and writes its row. The
// row's time is when the answer arrived: a sample held up in transit (a
// link coming back) shows the server's state at its end, not its start.
func (s *stream[R]) once(ctx context.Context) {
	sctx, cancel := context.WithTimeout(ctx, s.m.cfg.SampleTimeout)
	raw, err := s.fetch(sctx)
	timedOut := errors.Is(sctx.Err(), context.DeadlineExceeded)
	cancel()
	at := s.m.now()
	if ctx.Err() != nil {
		return // stopping: an interrupted sample says nothing about the host
	}
	if err != nil && timedOut {
		err = fmt.Errorf("no answer within %s: %w", s.m.cfg.SampleTimeout, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if err == nil {
		err = s.handle(raw, at, s.csv)
	}
	if err != nil {
		s.fail(at, err)
		return
	}
	s.samples++
	s.lastAt = at
	if s.failing {
		s.failing = false
		s.m.events.write(Event{T: at, Host: s.host, Kind: KindHostRecovered,
			Detail: fmt.Sprintf("%s: answering again after %.1fs", s.kind, at.Sub(s.failSince).Seconds())})
		s.m.det.sampling(s.host, s.kind, nil)
	}
}

// fail records a failed sample. The event is written, and lastErr kept,
// once per outage: its first error says why, later ones only echo it.
func (s *stream[R]) fail(at time.Time, err error) {
	s.errors++
	if !s.failing {
		s.failing, s.failSince = true, at
		s.lastErr = s.kind + ": " + err.Error()
		s.m.events.write(Event{T: at, Host: s.host, Kind: KindHostError, Detail: s.lastErr})
		s.m.det.sampling(s.host, s.kind, err)
	}
}

// skipReportEvery rate-limits ticks_skipped events: a host that is slow
// every second must not flood events.jsonl.
const skipReportEvery = time.Minute

func (s *stream[R]) skip(n int64, took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skipped += int(n)
	if s.failing || s.closed {
		return // a failing host has its host_error event: slowness is expected
	}
	s.unreported += int(n)
	now := s.m.now()
	if !s.lastSkipReport.IsZero() && now.Sub(s.lastSkipReport) < skipReportEvery {
		return
	}
	detail := fmt.Sprintf("%s: sample took %.2fs (interval %s): %d tick(s) skipped", s.kind, took.Seconds(), s.m.cfg.Interval, n)
	if more := s.unreported - int(n); more > 0 {
		detail += fmt.Sprintf(", %d more since the last report", more)
	}
	s.m.events.write(Event{T: now, Host: s.host, Kind: KindTicksSkipped, Detail: detail})
	s.lastSkipReport, s.unreported = now, 0
}

// close closes the file (once) and reports the stream's figures.
func (s *stream[R]) close() (samples, errors, skipped int, lastErr string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		err = s.csv.close()
	}
	return s.samples, s.errors, s.skipped, s.lastErr, err
}
