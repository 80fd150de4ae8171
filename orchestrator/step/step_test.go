package step

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// journal is a pretend host: it appends what is done and undone to a log.
type journal struct{ log []string }

func (j *journal) step(name string, fail, undoFails bool) Step {
	s := Step{Name: name, Do: func(context.Context) error {
		if fail {
			j.log = append(j.log, "fail "+name)
			return errors.New(name + " broke")
		}
		j.log = append(j.log, "do "+name)
		return nil
	}}
	s.Undo = func(ctx context.Context) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		j.log = append(j.log, "undo "+name)
		if undoFails {
			return errors.New("cannot undo " + name)
		}
		return nil
	}
	return s
}

func TestUndoRunsNewestFirstOnADetachedContext(t *testing.T) {
	j := &journal{}
	var heard []string
	events := &Stream{}
	events.Subscribe(func(e Event) {
		if e.Host != "db1" {
			t.Errorf("event %+v not on db1", e)
		}
		heard = append(heard, string(e.Kind)+" "+e.Step)
	})
	q := &Sequence{Host: "db1 192.0.2.1", Events: HostEvents{Stream: events, Host: "db1"}}
	ctx, cancel := context.WithCancel(context.Background())
	if err := q.Do(ctx, j.step("write", false, false)); err != nil {
		t.Fatal(err)
	}
	check := j.step("check", false, false)
	check.Undo = nil // nothing to take back
	if err := q.Do(ctx, check); err != nil {
		t.Fatal(err)
	}
	if err := q.Do(ctx, j.step("restart", false, false)); err != nil {
		t.Fatal(err)
	}
	cancel() // Ctrl-C
	if err := q.Do(ctx, j.step("verify", false, false)); !errors.Is(err, context.Canceled) {
		t.Fatalf("a step started on a cancelled context: %v", err)
	}
	if err := q.Undo(ctx); err != nil {
		t.Fatalf("undo after Ctrl-C: %v", err)
	}
	if got := strings.Join(j.log, ", "); got != "do write, do check, do restart, undo restart, undo write" {
		t.Errorf("log %q", got)
	}
	// Each step is said as it begins and as it ends, not after the
	// sequence; the one never begun (cancelled) not at all.
	if got := strings.Join(heard, ", "); got != "step_begin write, step_end write, step_begin check, step_end check, step_begin restart, step_end restart, "+
		"step_begin undo restart, step_end undo restart, step_begin undo write, step_end undo write" {
		t.Errorf("events %q", got)
	}
	if q.Pending() {
		t.Error("still pending after Undo")
	}
	var actions []string
	for _, r := range q.Records {
		if r.Host != "db1 192.0.2.1" {
			t.Errorf("record %+v lacks the host", r)
		}
		actions = append(actions, r.Name+"="+string(r.Action))
	}
	if got := strings.Join(actions, " "); got != "write=applied check=applied restart=applied undo restart=undone undo write=undone" {
		t.Errorf("records %s", got)
	}
}

func TestFailedStepIsNotUndoneAndUndoGoesOn(t *testing.T) {
	j := &journal{}
	q := &Sequence{Host: "db2 192.0.2.2"}
	ctx := context.Background()
	q.Do(ctx, j.step("install", false, true))
	q.Do(ctx, j.step("write", false, false))
	if err := q.Do(ctx, j.step("restart", true, false)); err == nil {
		t.Fatal("failing step succeeded")
	}
	err := q.Undo(ctx)
	if err == nil || err.Error() != "undo install: cannot undo install" {
		t.Fatalf("undo error %v", err)
	}
	if got := strings.Join(j.log, ", "); got != "do install, do write, fail restart, undo write, undo install" {
		t.Errorf("log %q", got)
	}
	last := q.Records[len(q.Records)-1]
	if last.Action != Failed || last.Error != "cannot undo install" {
		t.Errorf("last record %+v", last)
	}
	if r := q.Records[2]; r.Action != Failed || r.Error != "restart broke" {
		t.Errorf("failed step record %+v", r)
	}
}

// TestHalfDoneStepIsUndone: a step marked UndoOnFailure is undone even when
// its Do failed, since part of it may have happened.
func TestHalfDoneStepIsUndone(t *testing.T) {
	j := &journal{}
	q := &Sequence{}
	s := j.step("upload", true, false)
	s.UndoOnFailure = true
	if err := q.Do(context.Background(), s); err == nil {
		t.Fatal("failing step succeeded")
	}
	if !q.Pending() {
		t.Fatal("a half-done step is not pending undo")
	}
	if err := q.Undo(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(j.log, ", "); got != "fail upload, undo upload" {
		t.Errorf("log %q", got)
	}
}

// A step that looks before it acts is taken back only for what it did
// this time: a row it found in place has no undo, one it made has, and a
// half-done one (its error and an undo together) is taken back too.
func TestDecideUndoesOnlyWhatItChanged(t *testing.T) {
	var log []string
	row := func(name string, existed bool, fail error) Step {
		return Step{Name: name, Decide: func(context.Context) (Outcome, error) {
			if existed {
				return Outcome{Action: Skipped, Reason: name + " was there"}, nil
			}
			log = append(log, "insert "+name)
			return Outcome{Reason: name + " was missing", Statements: []string{"INSERT " + name},
				Undo: func(context.Context) error { log = append(log, "delete "+name); return nil }}, fail
		}}
	}
	q := &Sequence{Host: "db1"}
	ctx := context.Background()
	for _, s := range []Step{row("a", true, nil), row("b", false, nil)} {
		if err := q.Do(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Do(ctx, row("c", false, errors.New("disk full"))); err == nil || err.Error() != "disk full" {
		t.Fatalf("err %v", err)
	}
	if err := q.Undo(ctx); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(log, ", "); got != "insert b, insert c, delete c, delete b" {
		t.Errorf("log %q", got)
	}
	want := []Record{
		{Host: "db1", Name: "a", Action: Skipped, Reason: "a was there"},
		{Host: "db1", Name: "b", Action: Applied, Reason: "b was missing", Statements: []string{"INSERT b"}},
		{Host: "db1", Name: "c", Action: Failed, Reason: "c was missing", Statements: []string{"INSERT c"}, Error: "disk full"},
		{Host: "db1", Name: "undo c", Action: Undone},
		{Host: "db1", Name: "undo b", Action: Undone},
	}
	if len(q.Records) != len(want) {
		t.Fatalf("records %+v", q.Records)
	}
	for i, r := range q.Records {
		r.Took = 0
		if r.Host != want[i].Host || r.Name != want[i].Name || r.Action != want[i].Action || r.Reason != want[i].Reason ||
			strings.Join(r.Statements, ";") != strings.Join(want[i].Statements, ";") || r.Error != want[i].Error {
			t.Errorf("record %d: %+v, want %+v", i, r, want[i])
		}
	}
}
