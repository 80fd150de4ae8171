package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/rundir"
)

// The barrier: two clients launched detached at different moments (the
// second 400 ms later, as a slow SSH connection would) both hold until the
// common instant, and each notes when it passed; the program itself
// prints its own clock, which must not be before the instant either.
func TestBarrierReleasesClientsTogether(t *testing.T) {
	ex := executor.NewLocal("loadbox")
	at := time.Now().Add(1500 * time.Millisecond)
	type box struct {
		dir   string
		delay time.Duration
	}
	boxes := []*box{{dir: filepath.Join(t.TempDir(), "a")}, {dir: filepath.Join(t.TempDir(), "b"), delay: 400 * time.Millisecond}}
	step := bench.Step{Phase: bench.PhaseRun, Name: "clock", Argv: []string{"date", "+%s.%N"}}
	errs := orchestrator.ForEach(context.Background(), 0, boxes, func(ctx context.Context, _ int, b *box) error {
		if err := os.MkdirAll(b.dir, 0o700); err != nil {
			return err
		}
		time.Sleep(b.delay)
		rem, err := launch(ctx, ex, b.dir, step, barrier(at, b.dir))
		if err != nil {
			return err
		}
		var out bytes.Buffer
		if code, err := rem.Follow(ctx, &out, nil, 5*time.Second, t.Logf); err != nil || code != 0 {
			t.Errorf("%s: exit %d, %v", b.dir, code, err)
		}
		ran, err := parseEpoch(out.String())
		if err != nil {
			return err
		}
		c := &client{exec: ex, remote: b.dir}
		passed, err := c.readStart(ctx)
		if err != nil {
			return err
		}
		// 1 ms: sleep's and date's granularity.
		if passed.Before(at.Add(-time.Millisecond)) || ran.Before(passed) {
			t.Errorf("%s: passed the barrier at %s, ran at %s; the barrier was %s", b.dir, passed.Format("15:04:05.000"), ran.Format("15:04:05.000"), at.Format("15:04:05.000"))
		}
		t.Logf("%s: %.1f ms after the barrier instant", b.dir, ms(passed.Sub(at)))
		return nil
	})
	if err := orchestrator.Aggregate(errs); err != nil {
		t.Fatal(err)
	}
}

// readStart moves a client's own clock back to this machine's.
func TestReadStartCorrectsTheClockOffset(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, startFile), []byte("1764590000.250000000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &client{exec: executor.NewLocal("loadbox"), remote: dir, offset: 2 * time.Second}
	got, err := c.readStart(context.Background())
	if want := time.Unix(1764589998, 250_000_000); err != nil || !got.Equal(want) {
		t.Fatalf("readStart = %s, %v; want %s", got, err, want)
	}
}

func TestParseEpoch(t *testing.T) {
	for in, want := range map[string]time.Time{
		"1764590000.123456789\n": time.Unix(1764590000, 123456789),
		"1764590000.5":           time.Unix(1764590000, 500_000_000),
		"1764590000":             time.Unix(1764590000, 0),
	} {
		if got, err := parseEpoch(in); err != nil || !got.Equal(want) {
			t.Errorf("parseEpoch(%q) = %s, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "abc", "1764590000.12x", "1764590000.1234567890"} {
		if _, err := parseEpoch(in); err == nil {
			t.Errorf("parseEpoch(%q) accepted", in)
		}
	}
}

// The local machine's clock against itself: the offset is within the
// round trip, whatever it is.
func TestClockOffsetOfTheSameClock(t *testing.T) {
	off, err := clockOffset(context.Background(), executor.NewLocal("loadbox"))
	if err != nil {
		t.Fatal(err)
	}
	if off < -time.Second || off > time.Second {
		t.Errorf("offset of this machine's own clock: %s", off)
	}
}

// A load box whose clock is centuries or hours off is refused, naming the
// box and how far off it is: its `date` here prints a time in 2318, or
// two hours back.
func TestClockFarOffIsRefused(t *testing.T) {
	for _, c := range []struct{ script, words string }{
		{"#!/bin/sh\necho 11000000000.000000000\n", "loadbox localhost: its clock is 292 years ahead of this machine's, more than 5m0s"},
		{"#!/bin/sh\nexec /bin/date -d '2 hours ago' +%s.%N\n", "loadbox localhost: its clock is 2h0m0s behind this machine's"},
	} {
		bin := t.TempDir()
		if err := os.WriteFile(filepath.Join(bin, "date"), []byte(c.script), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
		_, err := clockOffset(context.Background(), executor.NewLocal("loadbox"))
		if err == nil || !strings.Contains(err.Error(), c.words) || !strings.Contains(err.Error(), "nothing was started") {
			t.Errorf("got %v, want %q", err, c.words)
		}
	}
}

// A stall or Ctrl-C stops every client: the ones orch launched itself and,
// after a re-attach, the ones it knows only by their PID files.
func TestStopClientsStopsEveryLoadBox(t *testing.T) {
	ex := executor.NewLocal("loadbox")
	step := bench.Step{Phase: bench.PhaseRun, Name: "long", Argv: []string{"sleep", "60"}}
	r := &run{logf: t.Logf}
	for i := 0; i < 3; i++ {
		dir := filepath.Join(t.TempDir(), "w")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		rem, err := Launch(context.Background(), ex, dir, step)
		if err != nil {
			t.Fatal(err)
		}
		c := &client{exec: ex, remote: dir, rem: rem}
		if i == 2 {
			c.rem = nil // known only by its PID file
		}
		r.clients = append(r.clients, c)
	}
	start := time.Now()
	r.stopClients(bench.PhaseRun, r.clients)
	for i, c := range r.clients {
		rem, err := Attach(context.Background(), ex, c.remote, bench.PhaseRun)
		if err != nil {
			t.Fatal(err)
		}
		if running, _, err := remoteState(context.Background(), ex, &rundir.Remote{Dir: c.remote, PID: rem.PID}); err != nil || running {
			t.Errorf("client %d still running (%v) after stopClients", i, err)
		}
	}
	t.Logf("three clients stopped in %s", time.Since(start).Round(time.Millisecond))
}

// The live display shows the clients' summed throughput for a report only
// once every client has printed it.
func TestClientProgressSumsEveryClientsReport(t *testing.T) {
	var out bytes.Buffer
	p := &Progress{W: &out, Every: time.Nanosecond}
	p.Start(time.Now())
	cp := newClientProgress(p, 2)
	num := func(s string) bench.Number {
		n, err := bench.ParseNumber(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	cp.add(bench.Interval{T: 1, Threads: 2, TPS: num("100.50"), QPS: num("100.50")})
	if out.Len() != 0 {
		t.Fatalf("shown before the second client reported: %q", out.String())
	}
	cp.add(bench.Interval{T: 1, Threads: 1, TPS: num("40.25"), QPS: num("40.50")})
	if got := out.String(); !strings.Contains(got, "tps 140.75  qps 141.00") {
		t.Errorf("display %q, want the sum 140.75", got)
	}
}
