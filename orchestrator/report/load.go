package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/orch-bench/orch/orchestrator/rundir"
)

// FileMatrix is the plan and state file of a matrix directory.
const FileMatrix = "matrix.json"

// Input is what the report is built from: runs in input order, and what
// the matrices among the inputs say about them.
type Input struct {
	Runs []*Run
	// Baseline is the matrix's baseline label ("" when none said).
	Baseline string
	// WarmupS is the matrix's warm-up (nil when none said).
	WarmupS *float64
	// NoEffect maps a knob the server ignores to why (matrix.json).
	NoEffect map[string]string
	// Home is where the report goes by default: the matrix or run
	// directory when it is the only input, else "".
	Home string
	// Sources lists the inputs as given.
	Sources []string
	// Design is the matrix's design over several clusters (nil if none).
	Design *ClusterDesign
}

// InputError is an input that cannot be read as a matrix, a run directory
// or `orch parse` output: bad command-line input rather than a failure.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Load reads the inputs: matrix directories (or their matrix.json), run
// directories (or their results.json), and files of `orch parse` output.
func Load(paths []string) (*Input, error) {
	in := &Input{NoEffect: map[string]string{}, Sources: paths}
	seen := map[string]int{}
	for _, p := range paths {
		runs, home, err := in.load(p)
		if err != nil {
			var ie *InputError
			if errors.As(err, &ie) {
				return nil, err
			}
			return nil, &InputError{Path: p, Err: err}
		}
		for _, r := range runs {
			// Two inputs with the same name (a/run.json, b/run.json) stay
			// apart: the second becomes "run (2)".
			orig := r.ID
			if n := seen[orig]; n > 0 {
				r.ID = fmt.Sprintf("%s (%d)", orig, n+1)
				if r.Label == orig {
					r.Label = r.ID
				}
			}
			seen[orig]++
			in.Runs = append(in.Runs, r)
		}
		if len(paths) == 1 {
			in.Home = home
		}
	}
	if len(in.Runs) == 0 {
		return nil, &InputError{Path: strings.Join(paths, ", "), Err: errors.New("no runs to report on")}
	}
	return in, nil
}

// load reads one input and returns its runs and the directory a report
// about it alone belongs in ("" for a parse file).
func (in *Input) load(p string) ([]*Run, string, error) {
	// Resolve runs/latest and friends so labels name the real directory.
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", errors.New("no such file or directory")
	}
	if err != nil {
		return nil, "", err
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, "", err
	}
	if st.IsDir() {
		if exists(filepath.Join(real, FileMatrix)) {
			runs, err := in.loadMatrix(real)
			return runs, real, err
		}
		if exists(filepath.Join(real, rundir.FileResults)) || exists(filepath.Join(real, rundir.FileManifest)) {
			r, err := readRunDir(real)
			if err != nil {
				return nil, "", err
			}
			return []*Run{r}, real, nil
		}
		return nil, "", fmt.Errorf("neither a matrix (%s) nor a run directory (%s, %s)", FileMatrix, rundir.FileResults, rundir.FileManifest)
	}
	switch filepath.Base(real) {
	case FileMatrix:
		dir := filepath.Dir(real)
		runs, err := in.loadMatrix(dir)
		return runs, dir, err
	case rundir.FileResults, rundir.FileManifest:
		dir := filepath.Dir(real)
		r, err := readRunDir(dir)
		if err != nil {
			return nil, "", err
		}
		return []*Run{r}, dir, nil
	}
	runs, err := readParseFile(real)
	return runs, "", err
}

// readParseFile reads the JSON documents `orch parse` printed into a file
// (one per parsed log, one after the other).
func readParseFile(path string) ([]*Run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	dec := json.NewDecoder(bytes.NewReader(b))
	var runs []*Run
	for i := 1; ; i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("not JSON from orch parse (document %d): %w", i, err)
		}
		bench, err := decodeBench(raw, "")
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if bench == nil {
			return nil, fmt.Errorf("document %d: null, not a benchmark result", i)
		}
		id := name
		if i > 1 {
			id = fmt.Sprintf("%s#%d", name, i)
		}
		runs = append(runs, &Run{ID: id, Label: id, Source: path, Tool: bench.Tool, Bench: bench, Health: emptyHealth()})
	}
	if len(runs) == 0 {
		return nil, errors.New("empty: no orch parse output")
	}
	return runs, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
