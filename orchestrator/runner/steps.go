package runner

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/orch-bench/orch/orchestrator/step"
)

// slowStep is how long a step may run before its start is printed: a
// quick up prints each step once, when it ends, with its time; a restart
// that takes longer says it began (and UpStillAt says it goes on).
const slowStep = 2 * time.Second

// Steps prints the step events of up and down one line per step:
// "up 1.8s: master   restart (1.61s)", the time since the command began
// first. A start is held back until the step has run slowStep (or, for a
// message that never ends, until then or Flush); verbose prints starts at
// once, as they come.
type Steps struct {
	w       io.Writer
	prefix  string
	verbose bool
	slow    time.Duration // slowStep; shorter in tests
	begun   time.Time

	mu      sync.Mutex
	pending map[[2]string]*held
	seq     int
}

// held is a start or message not printed yet; seq keeps Flush in order.
type held struct {
	t   *time.Timer
	seq int
}

// NewSteps prints on w, each line prefixed "prefix ELAPSED:".
func NewSteps(w io.Writer, prefix string, verbose bool) *Steps {
	return &Steps{w: w, prefix: prefix, verbose: verbose, slow: slowStep, begun: time.Now(), pending: map[[2]string]*held{}}
}

// Consume prints one event of up's or down's stream: a message at once,
// a step's end with its time, a step's start only once it has run
// slowStep (at once with verbose).
func (s *Steps) Consume(e step.Event) {
	host, name := e.Host, e.Step
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.Kind == step.Noted {
		s.line(host, name)
		return
	}
	key := [2]string{host, name}
	if e.Kind == step.Ended {
		if h, ok := s.pending[key]; ok {
			h.t.Stop()
			delete(s.pending, key)
		}
		s.line(host, fmt.Sprintf("%s (%s)", name, round(e.Took)))
		return
	}
	if s.verbose {
		s.line(host, name)
		return
	}
	if h, ok := s.pending[key]; ok {
		h.t.Stop()
	}
	s.seq++
	s.pending[key] = &held{t: time.AfterFunc(s.slow, func() { s.release(key) }), seq: s.seq}
}

// release prints a start (or message) held back since slowStep ago.
func (s *Steps) release(key [2]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pending[key]; ok {
		delete(s.pending, key)
		s.line(key[0], key[1])
	}
}

// Flush prints what is still held back: messages, and the starts of steps
// that never ended (a failure cut them short). Call it when up or down
// returns.
func (s *Steps) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := slices.Collect(maps.Keys(s.pending))
	slices.SortFunc(keys, func(a, b [2]string) int { return s.pending[a].seq - s.pending[b].seq })
	for _, key := range keys {
		s.pending[key].t.Stop()
		s.line(key[0], key[1])
	}
	clear(s.pending)
}

func (s *Steps) line(host, text string) {
	fmt.Fprintf(s.w, "%s %s: %-8s %s\n", s.prefix, round(time.Since(s.begun)), host, text)
}

// round is a duration to 3 significant digits: 1.61s, 38ms, 2m5s.
func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
