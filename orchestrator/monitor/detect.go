package monitor

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"
)

// maxStalls bounds the stalls kept for the summary (memory stays flat
// even if a cluster flaps for hours); later ones are only counted.
const maxStalls = 100

// masterView is what one master sample says about progress and semi-sync.
type masterView struct {
	at       time.Time
	dt       time.Duration
	first    bool
	progress bool

	enabled    bool
	status     string
	clients    int64
	hasClients bool

	yes, no, wait, waits uint64
	acksOK, waitOK       bool
}

// detector finds semi-sync fallbacks and master stalls. A stall is not a
// status flag: with a huge semi-sync timeout and every slave cut off the
// master keeps Rpl_semi_sync_master_status ON and its clients count, and
// only frozen commits, binlog position and yes_tx show it. So the master's
// samples report progress, and a watchdog ticking on its own (a hung
// sample must not delay it) judges how long progress has been missing.
type detector struct {
	mu         sync.Mutex
	events     *EventLog
	master     string // master host name; "" disables stall detection
	stallAfter time.Duration
	stallLimit time.Duration
	onStall    func(Event)

	load       bool
	progressAt time.Time
	open       *Stall
	stalls     []Stall
	dropped    int

	// The master's last facts, for diagnoses; failing lists sampling that
	// fails ("slave1 os") with its error.
	seen       bool
	last       masterView
	failing    map[string]string
	semiKnown  bool
	semiOff    bool
	offSince   time.Time
	semi       SemiSyncHealth
	wait       uint64
	waits      uint64
	minClients int64
	hasMin     bool
}

func (d *detector) masterSample(v masterView) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seen, d.last = true, v
	d.semi.Enabled = d.semi.Enabled || v.enabled
	if v.acksOK {
		d.semi.YesTx += int64(v.yes)
		d.semi.NoTx += int64(v.no)
	}
	if v.waitOK {
		d.wait += v.wait
		d.waits += v.waits
	}
	if v.enabled && v.hasClients && (!d.hasMin || v.clients < d.minClients) {
		d.minClients, d.hasMin = v.clients, true
	}
	off := v.enabled && v.status == "OFF"
	if off && !v.first {
		d.semi.AsyncFallbackSeconds += v.dt.Seconds()
	}
	switch {
	case off && (!d.semiKnown || !d.semiOff):
		d.semi.FallbackEvents++
		d.offSince = v.at
		d.events.write(Event{T: v.at, Host: d.master, Kind: KindSemiSyncOff, Detail: fmt.Sprintf(
			"semi-sync enabled but status OFF: the master replicates asynchronously (clients %s)", clientsText(v))})
	case !off && d.semiKnown && d.semiOff:
		d.events.write(Event{T: v.at, Host: d.master, Kind: KindSemiSyncOn, Detail: fmt.Sprintf(
			"semi-sync status ON again after %.1fs asynchronous (clients %s)", v.at.Sub(d.offSince).Seconds(), clientsText(v))})
	}
	d.semiKnown, d.semiOff = true, off

	if v.progress {
		d.progressAt = v.at
		if d.open != nil {
			d.closeStall(v.at, true, fmt.Sprintf("the master progresses again after %.1fs", v.at.Sub(d.open.Start).Seconds()))
		}
	}
}

func clientsText(v masterView) string {
	if !v.hasClients {
		return "unknown"
	}
	return fmt.Sprint(v.clients)
}

// sampling records whether a host's mysql or os sampling fails.
func (d *detector) sampling(host, kind string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	key := host + " " + kind
	if err == nil {
		delete(d.failing, key)
		return
	}
	if d.failing == nil {
		d.failing = map[string]string{}
	}
	d.failing[key] = err.Error()
}

// setLoad tells the detector whether a benchmark is running: stalls are
// only judged while one is.
func (d *detector) setLoad(active bool, now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if active && !d.load {
		d.progressAt = now
	}
	if !active && d.open != nil {
		d.closeStall(now, false, fmt.Sprintf("the benchmark stopped after %.1fs of stall", now.Sub(d.open.Start).Seconds()))
	}
	d.load = active
}

// check is the watchdog's tick: it opens a stall once progress has been
// missing for stallAfter, and calls onStall once the stall reaches
// stallLimit.
func (d *detector) check(now time.Time) {
	d.mu.Lock()
	if d.master == "" || !d.load {
		d.mu.Unlock()
		return
	}
	frozen := now.Sub(d.progressAt)
	if d.open == nil && frozen >= d.stallAfter {
		d.open = &Stall{Start: d.progressAt, Diagnosis: d.diagnose(frozen)}
		d.events.write(Event{T: d.progressAt, Host: d.master, Kind: KindStall, Detail: d.open.Diagnosis})
	}
	var fire *Event
	if d.open != nil && !d.open.LimitReached && now.Sub(d.open.Start) >= d.stallLimit {
		d.open.LimitReached = true
		d.open.Diagnosis = d.diagnose(frozen)
		ev := Event{T: now, Host: d.master, Kind: KindStallLimit,
			Detail: fmt.Sprintf("stall reached the %s limit: %s", d.stallLimit, d.open.Diagnosis)}
		d.events.write(ev)
		fire = &ev
	}
	d.mu.Unlock()
	if fire != nil && d.onStall != nil {
		// Its own goroutine: the callback may stop the benchmark, block,
		// or call Stop.
		go d.onStall(*fire)
	}
}

// diagnose says what a stall looks like from the facts at hand.
func (d *detector) diagnose(frozen time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "no commits, binlog writes or semi-sync acks on the master for %.0fs while the benchmark runs", frozen.Seconds())
	v := d.last
	switch err, down := d.failing[d.master+" mysql"]; {
	case down:
		fmt.Fprintf(&b, "; the master does not answer: %s", err)
	case !d.seen:
		b.WriteString("; the master has not been read yet")
	case v.enabled && v.status == "ON":
		fmt.Fprintf(&b, "; semi-sync is ON with %s clients and no_tx frozen: commits wait for slave acknowledgements that do not come (slaves cut off or not acknowledging)", clientsText(v))
	case v.enabled:
		b.WriteString("; semi-sync is OFF (asynchronous): the master itself does not commit")
	default:
		b.WriteString("; semi-sync is not enabled: the master itself does not commit (locks, disk, or the load stopped)")
	}
	var others []string
	for key := range d.failing {
		if !strings.HasPrefix(key, d.master+" ") {
			others = append(others, key)
		}
	}
	if len(others) > 0 {
		sort.Strings(others)
		b.WriteString("; not answering: " + strings.Join(others, ", "))
	}
	return b.String()
}

// closeStall ends the open stall; cleared says the master progresses again
// (rather than the load or the monitor stopping first).
func (d *detector) closeStall(end time.Time, cleared bool, detail string) {
	s := *d.open
	d.open = nil
	s.End, s.Seconds, s.Cleared = end, roundTo(end.Sub(s.Start).Seconds(), 3), cleared
	d.events.write(Event{T: end, Host: d.master, Kind: KindStallCleared, Detail: detail})
	if len(d.stalls) < maxStalls {
		d.stalls = append(d.stalls, s)
	} else {
		d.dropped++
	}
}

// finish closes what is still open at Stop and returns the detector's part
// of the summary.
func (d *detector) finish(now time.Time) (semi SemiSyncHealth, stalls []Stall, dropped int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.open != nil {
		d.closeStall(now, false, fmt.Sprintf("the monitor stopped after %.1fs of stall", now.Sub(d.open.Start).Seconds()))
	}
	semi = d.semi
	semi.AsyncFallbackSeconds = roundTo(semi.AsyncFallbackSeconds, 3)
	if d.waits > 0 {
		avg := roundTo(float64(d.wait)/float64(d.waits), 1)
		semi.AvgWaitUs = &avg
	}
	if d.hasMin {
		n := d.minClients
		semi.MinClients = &n
	}
	return semi, append([]Stall(nil), d.stalls...), d.dropped
}

// roundTo rounds v to the given decimals, for a readable results.json.
func roundTo(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}
