// Package step is the one shape of work orch does on a host: a Step is a
// value (name, host, what to do, how to undo it), and a Sequence runs steps
// in order, records each as a Record, and on a failure or a Ctrl-C undoes
// the ones that succeeded, newest first, on a context the interrupt did not
// cancel. server (config, restarts), replication (wiring) and account
// (orch's accounts) run their work as steps and report it as Records; up
// aggregates them per host.
package step

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Action says what a step did to a host.
type Action string

const (
	// Skipped: the host was already as wanted; nothing was sent.
	Skipped Action = "skipped"
	// Ensured: idempotent statements re-asserted a state (the replication
	// account, whose password cannot be read back to compare).
	Ensured Action = "ensured"
	// Applied: the host's state was changed.
	Applied Action = "applied"
	// Failed: the step stopped at an error; part of it may have happened.
	Failed Action = "failed"
	// Undone: the step had succeeded and was taken back.
	Undone Action = "undone"
)

// Step is one piece of work on one host and how to take it back.
type Step struct {
	Name string
	Host string // "slave1 10.0.0.2"
	Do   func(ctx context.Context) error
	// Decide, instead of Do, runs a step that looks before it acts: it
	// may find the host already as wanted, and what to take back depends
	// on what it found (an account it created, not one that existed).
	// Its Outcome fills the Record; its Outcome.Undo replaces Undo.
	Decide func(ctx context.Context) (Outcome, error)
	// Undo takes Do's effect back, on a context detached from the one Do
	// ran on; nil when there is nothing to take back (a check, a read).
	Undo func(ctx context.Context) error
	// UndoOnFailure: Do may have half happened when it fails (a backup
	// made but the upload cut, some plugins installed), so a failed Do is
	// undone too. Its Undo must then cope with any part of Do done.
	UndoOnFailure bool
}

// Outcome is what a Decide step found and did.
type Outcome struct {
	// Action is Skipped, Ensured or Applied ("" means Applied).
	Action Action
	// Reason says why: what the step found.
	Reason string
	// Statements are the SQL statements that ran, secrets redacted.
	Statements []string
	// Undo takes back what this run of the step changed; nil when it
	// changed nothing orch may take back. Returned with an error too when
	// part of the step may have happened: it is then undone as well.
	Undo func(ctx context.Context) error
}

// Record is what one step did, and the one record of a step that orch
// reports (up --json, run directories).
type Record struct {
	Host   string `json:"host"`
	Name   string `json:"step"`
	Action Action `json:"action,omitempty"`
	// Reason says why the step did what it did.
	Reason string `json:"reason,omitempty"`
	// Statements are the SQL statements that ran, secrets redacted.
	Statements []string      `json:"statements,omitempty"`
	Took       time.Duration `json:"duration_ns"`
	Error      string        `json:"error,omitempty"`
}

// DefaultUndoTimeout bounds a Sequence's whole undo when it sets none.
const DefaultUndoTimeout = 5 * time.Minute

// Sequence runs one host's steps in order and keeps what is needed to undo
// them. Not safe for concurrent use: one host's steps run one at a time.
type Sequence struct {
	Host string
	// Events hears each step begin and end (undos as "undo NAME") as it
	// happens.
	Events HostEvents
	// UndoTimeout bounds Undo (default DefaultUndoTimeout).
	UndoTimeout time.Duration

	Records []Record
	done    []Step // succeeded, with an Undo, oldest first
}

// Do runs s (its Host defaults to the sequence's) and records it. A step
// that succeeds and has an Undo can be taken back by Undo. A step does not
// start on a cancelled ctx.
func (q *Sequence) Do(ctx context.Context, s Step) error {
	if s.Host == "" {
		s.Host = q.Host
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	q.Events.Begin(s.Name)
	start := time.Now()
	var out Outcome
	var err error
	if s.Decide != nil {
		out, err = s.Decide(ctx)
		s.Undo, s.UndoOnFailure = out.Undo, true
	} else {
		err = s.Do(ctx)
	}
	rec := Record{Host: s.Host, Name: s.Name, Action: out.Action, Reason: out.Reason, Statements: out.Statements, Took: time.Since(start)}
	if rec.Action == "" {
		rec.Action = Applied
	}
	q.Events.End(s.Name, rec.Took)
	if err != nil {
		rec.Action, rec.Error = Failed, err.Error()
	}
	if s.Undo != nil && (err == nil || s.UndoOnFailure) {
		q.done = append(q.done, s)
	}
	q.Records = append(q.Records, rec)
	return err
}

// Undo takes back every step that succeeded, newest first, on a context
// detached from ctx with its own timeout: the Ctrl-C that stopped the work
// must not stop its undoing. It goes on past a failed undo (each later
// step's undo is independent of it) and returns every failure.
func (q *Sequence) Undo(ctx context.Context) error {
	timeout := q.UndoTimeout
	if timeout <= 0 {
		timeout = DefaultUndoTimeout
	}
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	var errs []error
	for i := len(q.done) - 1; i >= 0; i-- {
		s := q.done[i]
		name := "undo " + s.Name
		q.Events.Begin(name)
		start := time.Now()
		err := s.Undo(uctx)
		rec := Record{Host: s.Host, Name: name, Action: Undone, Took: time.Since(start)}
		q.Events.End(name, rec.Took)
		if err != nil {
			rec.Action, rec.Error = Failed, err.Error()
			errs = append(errs, fmt.Errorf("undo %s: %w", s.Name, err))
		}
		q.Records = append(q.Records, rec)
	}
	q.done = nil
	return errors.Join(errs...)
}

// Pending reports whether any succeeded step could still be undone.
func (q *Sequence) Pending() bool { return q != nil && len(q.done) > 0 }
