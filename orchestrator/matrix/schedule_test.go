package matrix

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// schedule records what the replaced cell runner saw: which cells ran on
// which cluster, in what order, and how many cells of one cluster ran at
// once.
type schedule struct {
	mu      sync.Mutex
	order   map[string][]string // cluster -> cell ids in run order
	running map[string]int
	overlap bool // two clusters ran cells at the same time
	maxOne  int  // most cells of one cluster running at once
	// outcomes, when set, decides each cell's end (called with mu held).
	outcomes func(cluster, id string) (State, error)
	// slower, when set, is a cluster whose cells take ten times as long.
	slower string
}

func (s *schedule) install(t *testing.T, wait time.Duration) {
	t.Helper()
	s.order, s.running = map[string][]string{}, map[string]int{}
	prev := runCellFunc
	t.Cleanup(func() { runCellFunc = prev })
	runCellFunc = func(ctx context.Context, _ *Matrix, c *Cell, _ ExecConfig) (State, error) {
		// cfg.Cluster is nil here: the cell id names the cluster.
		name := c.ID[:strings.IndexByte(c.ID, '-')]
		s.mu.Lock()
		s.order[name] = append(s.order[name], c.ID)
		s.running[name]++
		s.maxOne = max(s.maxOne, s.running[name])
		for other, n := range s.running {
			if other != name && n > 0 {
				s.overlap = true
			}
		}
		d := wait
		if name == s.slower {
			d = 10 * wait
		}
		s.mu.Unlock()
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
		s.mu.Lock()
		s.running[name]--
		s.mu.Unlock()
		if ctx.Err() != nil {
			return Interrupted, ctx.Err()
		}
		if s.outcomes != nil {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.outcomes(name, c.ID)
		}
		return OK, nil
	}
}

func createdBlocked(t *testing.T, repeat int) *Matrix {
	t.Helper()
	m, _ := newBlocked(t, repeat, []string{"east", "west"}, 3, true)
	if _, err := Create(t.TempDir(), m, time.Now()); err != nil {
		t.Fatal(err)
	}
	return m
}

// Each cluster runs its own block in order, one cell at a time, the two
// clusters at once; the design survives matrix.json.
func TestExecuteDesignRunsBlocksInParallel(t *testing.T) {
	m := createdBlocked(t, 2)
	var s schedule
	s.install(t, 20*time.Millisecond)
	targets := []Target{{Name: "east"}, {Name: "west"}}
	if err := execute(context.Background(), m, targets, ExecConfig{}); err != nil {
		t.Fatal(err)
	}
	if m.Count(OK) != len(m.Cells) || len(m.Cells) != 16 {
		t.Fatalf("%d of %d cells ok", m.Count(OK), len(m.Cells))
	}
	for _, cl := range []string{"east", "west"} {
		if got, want := strings.Join(s.order[cl], " "), strings.Join(m.Design.block(cl).Cells, " "); got != want {
			t.Errorf("%s ran %s, want its block's order %s", cl, got, want)
		}
	}
	if s.maxOne != 1 || !s.overlap {
		t.Errorf("at most %d cell(s) of a cluster at once (want 1); clusters overlapped: %v", s.maxOne, s.overlap)
	}
	back, err := Load(m.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if back.Design == nil || back.Design.Seed != 3 || back.Design.Check(back, []string{"east", "west"}) != nil {
		t.Fatalf("design read back: %+v", back.Design)
	}
}

// A failed cell on a cluster whose hosts no longer answer takes the
// cluster out: its unfinished round runs again, whole, on the other one,
// and the matrix completes there.
func TestExecuteDesignTakesOutUnreachableCluster(t *testing.T) {
	m := createdBlocked(t, 2)
	var s schedule
	var mu sync.Mutex
	westDown := false
	s.outcomes = func(cluster, id string) (State, error) {
		mu.Lock()
		defer mu.Unlock()
		if cluster == "west" && len(s.order["west"]) == 2 {
			westDown = true
		}
		if cluster == "west" && westDown {
			return Failed, errors.New("up: ssh: connection refused")
		}
		return OK, nil
	}
	s.install(t, 5*time.Millisecond)
	probeWest := func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if westDown {
			return errors.New("west-m 10.2.0.1: dial: no route to host")
		}
		return nil
	}
	targets := []Target{{Name: "east"}, {Name: "west", Probe: probeWest}}
	if err := execute(context.Background(), m, targets, ExecConfig{}); err != nil {
		t.Fatalf("the matrix should complete on east: %v", err)
	}
	d := m.Design
	west := d.block("west")
	if !strings.Contains(west.Failed, "no route to host") || len(d.Moved) == 0 {
		t.Fatalf("west failed %q, moved %+v", west.Failed, d.Moved)
	}
	if m.Count(Failed) != 0 || len(m.Remaining()) != 0 {
		t.Errorf("%d failed, %d remaining: the cell lost with west must leave the matrix, not fail a configuration", m.Count(Failed), len(m.Remaining()))
	}
	// east now holds every configuration more often than repeat: its own
	// rounds and the moved ones, each complete.
	perLabel := map[string]int{}
	for _, id := range d.block("east").Cells {
		c, _ := m.Cell(id)
		perLabel[c.Label]++
	}
	for l, n := range perLabel {
		if n != perLabel[m.Baseline] {
			t.Errorf("east runs %s %d times, the baseline %d: rounds must move whole", l, n, perLabel[m.Baseline])
		}
	}
}

// --fail-fast: an unreachable cluster stops the matrix with a resumable
// state instead of moving its work.
func TestExecuteDesignFailFast(t *testing.T) {
	m := createdBlocked(t, 1)
	var s schedule
	s.outcomes = func(cluster, id string) (State, error) {
		if cluster == "west" {
			return Failed, errors.New("ssh: connection refused")
		}
		return OK, nil
	}
	s.install(t, time.Millisecond)
	targets := []Target{{Name: "east"}, {Name: "west", Probe: func(context.Context) error { return errors.New("unreachable") }}}
	err := execute(context.Background(), m, targets, ExecConfig{FailFast: true})
	if err == nil || m.Design.block("west").Failed != "" || len(m.Remaining()) == 0 {
		t.Fatalf("err %v, west failed %q, %d remaining: want a stop with the design intact", err, m.Design.block("west").Failed, len(m.Remaining()))
	}
}

// Ctrl-C: every running cell is interrupted, and a resume of the loaded
// matrix finishes the rest on the same design.
func TestExecuteDesignInterruptAndResume(t *testing.T) {
	m := createdBlocked(t, 2)
	var s schedule
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := 0
	s.outcomes = func(string, string) (State, error) {
		if ended++; ended == 3 {
			cancel() // west's first cell is still running
		}
		return OK, nil
	}
	// west's cells take 10x east's, so the cancel always finds one running
	// (a race between two equal cells made this flaky on a loaded machine).
	s.slower = "west"
	s.install(t, 10*time.Millisecond)
	err := execute(ctx, m, []Target{{Name: "east"}, {Name: "west"}}, ExecConfig{})
	if err == nil || !strings.Contains(err.Error(), "--resume") || m.Count(Interrupted) == 0 {
		t.Fatalf("err %v, %d interrupted", err, m.Count(Interrupted))
	}
	back, err := Load(m.Dir())
	if err != nil {
		t.Fatal(err)
	}
	s.outcomes = nil
	if err := execute(context.Background(), back, []Target{{Name: "west"}, {Name: "east"}}, ExecConfig{}); err != nil {
		t.Fatal(err)
	}
	if back.Count(OK) != len(back.Cells) {
		t.Errorf("after resume %d of %d ok", back.Count(OK), len(back.Cells))
	}
}

// One cluster is the same loop without a design: the cells run in the
// matrix's order on the one target, a failed cell is recorded and the
// matrix goes on (no probe takes the cluster out), --fail-fast stops at
// it, and two targets without a design are refused.
func TestExecuteOneCluster(t *testing.T) {
	m, err := New("pure-random-writes", []string{"innodb", "rocksdb"}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(t.TempDir(), m, time.Now()); err != nil {
		t.Fatal(err)
	}
	want := make([]string, 0, len(m.Cells))
	for _, c := range m.Cells {
		want = append(want, c.ID)
	}
	var ran []string
	prev := runCellFunc
	t.Cleanup(func() { runCellFunc = prev })
	runCellFunc = func(_ context.Context, _ *Matrix, c *Cell, cfg ExecConfig) (State, error) {
		if cfg.Cluster != nil {
			t.Errorf("cell %s: a cluster where the target has none", c.ID)
		}
		ran = append(ran, c.ID)
		if len(ran) == 2 {
			return Failed, errors.New("sysbench exited 1")
		}
		return OK, nil
	}
	var lines []string
	logf := func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }
	err = execute(context.Background(), m, []Target{{Name: "lab", Probe: func(context.Context) error { return errors.New("down") }}}, ExecConfig{Logf: logf})
	if err == nil || !strings.Contains(err.Error(), "cell "+want[1]+": sysbench exited 1") {
		t.Fatalf("err %v: want the failed cell named", err)
	}
	if strings.Join(ran, " ") != strings.Join(want, " ") || m.Count(OK) != len(want)-1 || m.Count(Failed) != 1 {
		t.Errorf("ran %v (want %v), %d ok, %d failed", ran, want, m.Count(OK), m.Count(Failed))
	}
	if !slices.Contains(lines, "matrix: cell 1/4 "+want[0]) || !slices.Contains(lines, "matrix: cell "+want[0]+" ok") {
		t.Errorf("log lines of one cluster carry no cluster name: %q", lines)
	}

	m2, _ := New("pure-random-writes", []string{"innodb"}, nil, 3)
	if _, err := Create(t.TempDir(), m2, time.Now()); err != nil {
		t.Fatal(err)
	}
	ran = nil
	if err := execute(context.Background(), m2, []Target{{Name: "lab"}}, ExecConfig{FailFast: true}); err == nil || len(ran) != 2 || len(m2.Remaining()) != 1 {
		t.Errorf("--fail-fast: err %v after %d cells, %d left; want a stop at the 2nd of 3", err, len(ran), len(m2.Remaining()))
	}
	if err := execute(context.Background(), m2, []Target{{Name: "a"}, {Name: "b"}}, ExecConfig{}); err == nil {
		t.Error("two targets without a design ran")
	}
}
