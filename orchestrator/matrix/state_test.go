package matrix

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// runAll drives m the way the execution loop does, finishing each cell with
// outcome(id), and returns the ids in the order they ran.
func runAll(t *testing.T, m *Matrix, outcome func(id string) (State, error)) []string {
	t.Helper()
	var ran []string
	for n := 0; ; n++ {
		c, ok := m.Next()
		if !ok {
			return ran
		}
		if n > len(m.Cells) {
			t.Fatal("Next keeps returning cells")
		}
		id := c.ID
		if err := m.Start(id, t0); err != nil {
			t.Fatal(err)
		}
		st, err := outcome(id)
		if err := m.Finish(id, st, err, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		ran = append(ran, id)
		if st == Interrupted {
			return ran
		}
	}
}

func TestNextRunsEveryCellInOrder(t *testing.T) {
	m := newMatrix(t)
	ran := runAll(t, m, func(id string) (State, error) {
		if id == m.Cells[2].ID {
			return Failed, errors.New("master 10.0.0.1: stall for 60s")
		}
		return OK, nil
	})
	if got, want := strings.Join(ran, " "), strings.Join(ids(m.Cells), " "); got != want {
		t.Errorf("ran %s\nwant %s (a failed cell does not stop the matrix)", got, want)
	}
	if !m.Done() || m.Count(OK) != 7 || m.Count(Failed) != 1 || len(m.Remaining()) != 0 {
		t.Errorf("after the run: done %v, ok %d, failed %d", m.Done(), m.Count(OK), m.Count(Failed))
	}
	if c := m.Cells[2]; c.Error != "master 10.0.0.1: stall for 60s" || !c.Ended.Equal(t0.Add(time.Minute)) {
		t.Errorf("failed cell: %+v", c)
	}
	if c, ok := m.Next(); ok {
		t.Errorf("Next after the end = %s", c.ID)
	}
}

// TestResumeAfterCrash: orch dies mid-cell, so matrix.json still says
// running; the next orch loads it and reruns that cell, then the rest.
func TestResumeAfterCrash(t *testing.T) {
	m := newMatrix(t)
	_, dir := create(t, m)
	for _, c := range m.Cells[:3] {
		if err := m.Start(c.ID, t0); err != nil {
			t.Fatal(err)
		}
		if err := m.Finish(c.ID, OK, nil, t0); err != nil {
			t.Fatal(err)
		}
	}
	crashed := m.Cells[3].ID
	if err := m.Start(crashed, t0); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}

	resumed, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := resumed.Next()
	if !ok || c.ID != crashed || c.State != Running {
		t.Fatalf("Next after a crash = %+v, %v; want the running cell %s", c, ok, crashed)
	}
	ran := runAll(t, resumed, func(string) (State, error) { return OK, nil })
	if want := ids(m.Cells[3:]); strings.Join(ran, " ") != strings.Join(want, " ") {
		t.Errorf("resumed run %q, want %q", ran, want)
	}
}

// TestResumeAfterInterrupt: Ctrl-C marks the cell interrupted; resuming
// starts with it and never reruns finished cells.
func TestResumeAfterInterrupt(t *testing.T) {
	m := newMatrix(t)
	_, dir := create(t, m)
	ran := runAll(t, m, func(id string) (State, error) {
		if id == m.Cells[1].ID {
			return Interrupted, errors.New("interrupted by the user")
		}
		return OK, nil
	})
	if len(ran) != 2 {
		t.Fatalf("ran %q before the interrupt", ran)
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	resumed, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := resumed.Next(); c == nil || c.ID != m.Cells[1].ID || c.State != Interrupted {
		t.Fatalf("Next after an interrupt = %+v", c)
	}
	if resumed.Done() || len(resumed.Remaining()) != 7 {
		t.Errorf("remaining %d, done %v", len(resumed.Remaining()), resumed.Done())
	}
	if err := resumed.Start(resumed.Cells[0].ID, t0); err == nil {
		t.Error("Start of a finished cell succeeded")
	}
}

func TestTransitionErrors(t *testing.T) {
	m := newMatrix(t)
	a, b := m.Cells[0].ID, m.Cells[1].ID
	boom := errors.New("boom")
	checks := []struct {
		name string
		err  error
		want string
	}{
		{"start unknown", m.Start("nope", t0), "matrix: start: no cell nope"},
		{"finish unknown", m.Finish("nope", OK, nil, t0), "matrix: finish: no cell nope"},
		{"finish pending", m.Finish(a, OK, nil, t0), "matrix: finish " + a + ": not running (pending)"},
	}
	for _, c := range checks {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("%s: %v, want %s", c.name, c.err, c.want)
		}
	}
	if err := m.Start(a, t0); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		state State
		err   error
		want  string
	}{
		{OK, boom, "matrix: finish " + a + ": ok with an error (boom)"},
		{Failed, nil, "matrix: finish " + a + ": failed without a reason"},
		{Pending, nil, "matrix: finish " + a + `: state "pending": want ok, failed or interrupted`},
		{Running, nil, "matrix: finish " + a + `: state "running": want ok, failed or interrupted`},
	} {
		if err := m.Finish(a, tc.state, tc.err, t0); err == nil || err.Error() != tc.want {
			t.Errorf("Finish(%s, %v): %v, want %s", tc.state, tc.err, err, tc.want)
		}
	}
	if m.Cells[0].State != Running {
		t.Errorf("a refused Finish changed the state to %s", m.Cells[0].State)
	}
	// A cell interrupted then restarted loses the old outcome.
	if err := m.Finish(a, Interrupted, errors.New("ctrl-c"), t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(a, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if c := m.Cells[0]; c.Error != "" || !c.Ended.IsZero() || !c.Started.Equal(t0.Add(time.Hour)) {
		t.Errorf("restarted cell %+v", c)
	}
	if c, ok := m.Cell(b); !ok || c.State != Pending {
		t.Errorf("Cell(%s) = %+v, %v", b, c, ok)
	}
}

func TestFinishRedactsAndStampsUTC(t *testing.T) {
	m := newMatrix(t)
	id := m.Cells[0].ID
	local := time.FixedZone("CET", 3600)
	if err := m.Start(id, time.Date(2025, 3, 4, 6, 6, 7, 999_000_000, local)); err != nil {
		t.Fatal(err)
	}
	err := errors.New("loadbox: mysql -uorch --password=hunter2 -e 'x' failed")
	if err := m.Finish(id, Failed, err, t0); err != nil {
		t.Fatal(err)
	}
	c := m.Cells[0]
	if strings.Contains(c.Error, "hunter2") || !strings.Contains(c.Error, "--password=***") {
		t.Errorf("error kept as %q", c.Error)
	}
	if c.Started != t0 || c.Started.Location() != time.UTC {
		t.Errorf("started %v, want %v (UTC, whole seconds)", c.Started, t0)
	}
}
