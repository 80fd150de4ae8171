package step

import (
	"sort"
	"sync"
	"time"
)

// Kind says what an Event is.
type Kind string

const (
	// Began: a step started on a host.
	Began Kind = "step_begin"
	// Ended: a step ended; Took is its wall time.
	Ended Kind = "step_end"
	// Noted: a message about a host that is no step ("started the
	// server, which was down"): nothing to wait for.
	Noted Kind = "note"
)

// Event is one thing a command's work did: a step began or ended on a
// host, or a message about one.
type Event struct {
	At   time.Time
	Host string
	Step string
	Kind Kind
	Took time.Duration
}

// Stream is a command's one stream of events: the console prints it, a
// Tracker follows it for the heartbeat and a second Ctrl-C, up's timings
// and a run directory's events.jsonl and phases are made from it. Every
// consumer gets every event in the same order, one at a time, so a
// consumer needs no lock of its own against the stream. It keeps what it
// carried (a command's steps are tens), so a consumer that comes late
// (the run directory, made after up) can replay the whole command. Safe
// for concurrent use; a nil *Stream drops events.
type Stream struct {
	mu   sync.Mutex
	subs map[int]func(Event)
	next int
	kept []Event
}

// Subscribe hands fn every event from now on, until the returned cancel
// is called. fn must not emit on the stream.
func (s *Stream) Subscribe(fn func(Event)) (cancel func()) {
	return s.subscribe(fn, false)
}

// Replay is Subscribe that first hands fn every event the stream carried
// so far, with nothing lost or repeated between the two.
func (s *Stream) Replay(fn func(Event)) (cancel func()) {
	return s.subscribe(fn, true)
}

func (s *Stream) subscribe(fn func(Event), replay bool) func() {
	if s == nil {
		return func() {}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if replay {
		for _, e := range s.kept {
			fn(e)
		}
	}
	if s.subs == nil {
		s.subs = map[int]func(Event){}
	}
	id := s.next
	s.next++
	s.subs[id] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.subs, id)
	}
}

// Emit hands e (At defaults to now) to every consumer, in the order they
// subscribed.
func (s *Stream) Emit(e Event) {
	if s == nil {
		return
	}
	if e.At.IsZero() {
		e.At = time.Now()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kept = append(s.kept, e)
	ids := make([]int, 0, len(s.subs))
	for id := range s.subs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		s.subs[id](e)
	}
}

// Begin says step started on host.
func (s *Stream) Begin(host, step string) { s.Emit(Event{Host: host, Step: step, Kind: Began}) }

// End says step ended on host after took.
func (s *Stream) End(host, step string, took time.Duration) {
	s.Emit(Event{Host: host, Step: step, Kind: Ended, Took: took})
}

// Note says msg about host.
func (s *Stream) Note(host, msg string) { s.Emit(Event{Host: host, Step: msg, Kind: Noted}) }

// HostEvents is one host's side of a stream: where the steps a Sequence
// runs on that host are said, as they begin and end. The zero value
// says nothing.
type HostEvents struct {
	Stream *Stream
	// Host is the host's name in the stream ("slave1").
	Host string
}

// Begin says step started on the host.
func (h HostEvents) Begin(step string) { h.Stream.Begin(h.Host, step) }

// End says step ended on the host after took.
func (h HostEvents) End(step string, took time.Duration) { h.Stream.End(h.Host, step, took) }

// Tracker follows which step each host is in, from a Stream, so that a
// heartbeat can say what goes on and a second Ctrl-C, which exits at
// once, what it left unfinished. Safe for concurrent use; the zero value
// is ready.
type Tracker struct {
	mu    sync.Mutex
	doing map[string]string // host -> step begun and not ended
}

// Consume follows one event: a step that begins is the host's step until
// it ends (or another begins).
func (t *Tracker) Consume(e Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch e.Kind {
	case Began:
		if t.doing == nil {
			t.doing = map[string]string{}
		}
		t.doing[e.Host] = e.Step
	case Ended:
		if t.doing[e.Host] == e.Step {
			delete(t.doing, e.Host)
		}
	}
}

// Unfinished lists "host: step" for every host whose step had begun and
// not ended, by host.
func (t *Tracker) Unfinished() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for h, s := range t.doing {
		out = append(out, h+": "+s)
	}
	sort.Strings(out)
	return out
}
