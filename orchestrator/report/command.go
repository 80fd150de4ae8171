package report

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
	"github.com/orch-bench/orch/orchestrator/runs"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// Request is `orch report`: the inputs and how to compare and write them.
type Request struct {
	analyse.Options
	// Inputs are run or matrix directories, folders, client logs and
	// orch parse output; none (and no Labels): the latest run under Root.
	Inputs []string
	// Labels are --label NAME=GLOB, parsed into Options.Labels.
	Labels []string
	Root   string
	// Out is the output directory ("": the input's, else ./report).
	Out string
	// Formats are the outputs to write, comma-separated (md,html,csv).
	Formats string
}

// Answer writes the report req asks for and prints its summary, where it
// went and its answer to w. Bad input (flags, inputs) is an *InputError.
func Answer(req Request, w io.Writer) error {
	bad := func(format string, args ...any) error { return &load.InputError{Err: fmt.Errorf(format, args...)} }
	fs, err := render.ParseFormats(req.Formats)
	if err != nil {
		return bad("--format: %v", err)
	}
	switch req.Headline {
	case analyse.HeadlineBoth, analyse.HeadlineMaster, analyse.HeadlineSustained:
	default:
		return bad("--headline %q: want both, master or sustained", req.Headline)
	}
	if req.WarmupS != nil && !(*req.WarmupS >= 0) {
		return bad("--warmup %v: want 0 or more seconds", *req.WarmupS)
	}
	for _, l := range req.Labels {
		lg, err := load.ParseLabelGlob(l)
		if err != nil {
			return bad("--label %v", err)
		}
		req.Options.Labels = append(req.Options.Labels, lg)
	}
	inputs := req.Inputs
	if len(inputs) == 0 && len(req.Options.Labels) == 0 {
		latest, err := runs.Latest(req.Root)
		if err != nil {
			return bad("no %s to report on: give a run or matrix directory, or orch parse output", filepath.Join(req.Root, schema.LatestLink))
		}
		inputs = []string{latest}
	}
	rep, paths, err := render.Generate(inputs, req.Out, fs, req.Options)
	var inErr *load.InputError
	if err != nil {
		if len(paths) > 0 && !errors.As(err, &inErr) {
			fmt.Fprintln(w, render.WrittenLine(paths))
		}
		return err
	}
	fmt.Fprint(w, render.Summary(rep))
	fmt.Fprintln(w, render.WrittenLine(paths))
	fmt.Fprint(w, render.AnswerText(rep))
	answer, dbiPaths, err := render.RegenerateDBInsert(inputs)
	for _, p := range dbiPaths {
		fmt.Fprintln(w, "db-insert report: "+p)
	}
	if answer != "" {
		fmt.Fprintln(w, "db-insert answer: "+answer)
	}
	return err
}
