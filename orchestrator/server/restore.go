package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/orchestrator/step"
)

// Restore undoes orch's configuration for `orch down`: the file orch
// replaced goes back (FileName.orig), or orch's file is removed when there
// was none; then the server restarts and every variable orch had set must
// show what the remaining option files say. When the server does not start
// without orch's file, orch's file is put back and the server started on
// it. A host without an orch file is left alone (Result.Unchanged).
func (n *Node) Restore(ctx context.Context, events step.HostEvents) (*Result, error) {
	res := &Result{Host: n.Host.String()}
	q := n.sequence(events)
	defer func() { res.Steps = q.Records }()
	cur, err := n.readState(ctx)
	if err != nil {
		return res, err
	}
	if !cur.owned() {
		res.Unchanged = true
		if cur.exists {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %s is not orch's (no %q header): left alone", n.Host, n.configPath(), ownerMarker))
		}
		return res, nil
	}
	var names []string
	if f, err := parseCnf(n.configFile(), cur.text); err == nil {
		for _, l := range f.lines {
			if l.kind == lineOption && isServerSection(l.section) {
				names = append(names, l.name)
			}
		}
	}
	// The original comes back by copy: .orig stays until the server has
	// started without orch's file, so a rollback loses nothing.
	p := shell.Quote(n.configPath())
	script := "rm -f " + p
	if cur.origExists {
		script = "cp -p " + p + ".orig " + p
	}
	st := &serverState{}
	if err := q.Do(ctx, step.Step{Name: "restore " + n.configPath(),
		Do: func(ctx context.Context) error {
			if _, err := n.Exec.Run(ctx, executor.Command{Script: script, Sudo: true, Timeout: commandTimeout}); err != nil {
				return n.errorf("restore %s: %w", n.configPath(), stripHost(err))
			}
			return nil
		},
		Undo: n.fileUndo(cur, st), // orch's file back, and the server on it
	}); err != nil {
		return res, err
	}
	if strings.HasPrefix(n.Facts.DropIn, ownerMarker) {
		if err := q.Do(ctx, n.dropInStep("")); err != nil {
			_, err = n.rollBack(ctx, q, res, err)
			return res, err
		}
	}
	if err := q.Do(ctx, n.restartStep("without orch's config", st)); err != nil {
		_, err = n.rollBack(ctx, q, res, err)
		return res, err
	}
	if _, err := n.Exec.Run(ctx, executor.Command{Script: "rm -f " + p + ".orig " + p + ".bak", Sudo: true, Timeout: commandTimeout}); err != nil {
		return res, n.errorf("remove orch's backups: %w", stripHost(err))
	}
	res.Restarted = true
	if err := q.Do(ctx, step.Step{Name: "verify", Do: func(ctx context.Context) error { return n.verifyDefaults(ctx, names) }}); err != nil {
		return res, err
	}
	return res, nil
}

// verifyDefaults checks that each named variable runs with the value the
// option files now give it (variables no file sets keep their defaults,
// which orch cannot know, and are not checked).
func (n *Node) verifyDefaults(ctx context.Context, names []string) error {
	opts, err := n.printDefaults(ctx)
	if err != nil {
		return err
	}
	now, err := n.Variables(ctx)
	if err != nil {
		return err
	}
	var bad []string
	for _, name := range names {
		w, ok := winner(opts, name)
		actual, shown := now[name]
		if !ok || !shown {
			continue
		}
		if want := shownValue(name, w.value, w.bare); !sameValue(want, actual) {
			bad = append(bad, fmt.Sprintf("%s is %s, the option files say %s", name, actual, want))
		}
	}
	if len(bad) > 0 {
		return n.errorf("after restoring: %s", strings.Join(bad, "; "))
	}
	return nil
}
