package load

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// FileMatrix is the plan and state file of a matrix directory.
const FileMatrix = schema.FileMatrix

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
	// AA: the input is an A/A matrix; NoiseFloor the A/A matrix a matrix
	// named for its noise floor; Started when its first cell began.
	AA         bool
	NoiseFloor string
	// AllowMixed: the matrix was run with --allow-mixed (matrix.json).
	AllowMixed bool
	Started    time.Time
	// Until is the matrix's stopping rule, Skipped the cells it did not
	// need (left out of every table).
	Until   *UntilDoc
	Skipped int
	// Analysis is the analysis the matrix pre-registered ("": none).
	Analysis string
}

// InputError is an input that cannot be read as a matrix, a run directory
// or `orch parse` output: bad command-line input rather than a failure.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string {
	// A parse error names its file (and line) already; a flag's error
	// names the flag (no Path).
	if msg := e.Err.Error(); e.Path == "" || strings.HasPrefix(msg, e.Path+":") {
		return msg
	}
	return e.Path + ": " + e.Err.Error()
}

func (e *InputError) Unwrap() error { return e.Err }

// Load reads the inputs: matrix directories (or their matrix.json), run
// directories (or their results.json), folders of repetitions, and files
// of `orch parse` output or raw client logs.
func Load(paths []string) (*Input, error) { return LoadLabelled(paths, nil) }

// LoadLabelled is Load with --label NAME=GLOB: the inputs each glob
// matches are added, and their runs are repetitions of NAME. A run given
// twice (a matrix and one of its cells) is counted once.
func LoadLabelled(paths []string, labels []LabelGlob) (*Input, error) {
	inputs, labelOf, err := expandLabels(paths, labels)
	if err != nil {
		return nil, err
	}
	in := &Input{NoEffect: map[string]string{}, Sources: inputs}
	seen := map[string]int{}
	byID := map[string]int{} // run identity -> index in in.Runs
	for _, p := range inputs {
		runs, home, err := in.load(p)
		if err != nil {
			var ie *InputError
			if errors.As(err, &ie) {
				return nil, err
			}
			return nil, &InputError{Path: p, Err: err}
		}
		name, labelled := labelOf[absPath(p)]
		for _, r := range runs {
			key := r.identity()
			if i, dup := byID[key]; dup {
				// The matrix knows the cell's label and repetition: its
				// reading wins over the cell directory given alone.
				if r.inMatrix && !in.Runs[i].inMatrix {
					r.ID = in.Runs[i].ID
					in.Runs[i] = r
				}
				continue
			}
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
			if labelled {
				r.Label = name
			}
			byID[key] = len(in.Runs)
			in.Runs = append(in.Runs, r)
		}
		if len(inputs) == 1 {
			in.Home = home
		}
	}
	if len(in.Runs) == 0 {
		return nil, &InputError{Path: strings.Join(inputs, ", "), Err: errors.New("no runs to report on")}
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
		if exists(filepath.Join(real, schema.FileResults)) || exists(filepath.Join(real, schema.FileManifest)) {
			r, err := ReadRunDir(real)
			if err != nil {
				return nil, "", err
			}
			return []*Run{r}, real, nil
		}
		// Neither a matrix nor a run directory: a folder of repetitions,
		// reported elsewhere (./report) so it keeps only its logs.
		runs, err := loadFolder(real)
		return runs, "", err
	}
	switch filepath.Base(real) {
	case FileMatrix:
		dir := filepath.Dir(real)
		runs, err := in.loadMatrix(dir)
		return runs, dir, err
	case schema.FileResults, schema.FileManifest:
		dir := filepath.Dir(real)
		r, err := ReadRunDir(dir)
		if err != nil {
			return nil, "", err
		}
		return []*Run{r}, dir, nil
	}
	runs, err := ReadParseFile(real)
	return runs, "", err
}

// ReadParseFile reads the JSON documents `orch parse` printed into a file
// (one per parsed log, one after the other).
func ReadParseFile(path string) ([]*Run, error) {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	// A raw client log streams through the parser (its memory is the
	// intervals kept, bench.MaxIntervals at most, not the file); JSON is
	// read whole.
	if raw, err := isRawLog(path); err != nil {
		return nil, err
	} else if raw {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readRawLog(path, name, f)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimSpace(b)
	if files, ok := parseBundle(trimmed); ok {
		return bundleRuns(path, files)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var runs []*Run
	for i := 1; ; i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("not JSON from orch parse (document %d): %w", i, err)
		}
		bench, err := DecodeBench(raw, "")
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

// isRawLog reports whether the file's first non-blank byte starts
// something other than JSON (an object or an array).
func isRawLog(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for {
		c, err := br.ReadByte()
		switch {
		case errors.Is(err, io.EOF):
			return false, nil // empty: the JSON path says so
		case err != nil:
			return false, err
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		return c != '{' && c != '[', nil
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// readRawLog parses a benchmark client's own output (what `orch parse`
// would read), labelled by the file name.
func readRawLog(path, name string, r io.Reader) ([]*Run, error) {
	res, err := bench.ParseAuto(path, r)
	if err != nil && !errors.Is(err, bench.ErrIncomplete) {
		return nil, err
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	bn, err := DecodeBench(raw, "")
	if err != nil || bn == nil {
		return nil, fmt.Errorf("not a benchmark log orch can parse: %v", err)
	}
	return []*Run{{ID: name, Label: name, Source: path, Tool: bn.Tool, Bench: bn, Health: emptyHealth()}}, nil
}

// bundleDoc is one element of `orch parse a b` output: the file and its
// parsed result.
type bundleDoc struct {
	File   string          `json:"file"`
	Result json.RawMessage `json:"result"`
}

// parseBundle reads `orch parse` output of several files: a JSON array of
// {"file", "result"} objects.
func parseBundle(b []byte) ([]bundleDoc, bool) {
	if len(b) == 0 || b[0] != '[' {
		return nil, false
	}
	var docs []bundleDoc
	if json.Unmarshal(b, &docs) != nil || len(docs) == 0 {
		return nil, false
	}
	for _, d := range docs {
		if d.File == "" || len(d.Result) == 0 {
			return nil, false
		}
	}
	return docs, true
}

// bundleRuns makes one run per file of a bundle, labelled by its file name.
func bundleRuns(path string, docs []bundleDoc) ([]*Run, error) {
	var runs []*Run
	for i, d := range docs {
		bn, err := DecodeBench(d.Result, "")
		if err != nil {
			return nil, fmt.Errorf("document %d (%s): %w", i+1, d.File, err)
		}
		if bn == nil {
			return nil, fmt.Errorf("document %d (%s): null, not a benchmark result", i+1, d.File)
		}
		name := strings.TrimSuffix(filepath.Base(d.File), filepath.Ext(d.File))
		runs = append(runs, &Run{ID: name, Label: name, Source: path, Tool: bn.Tool, Bench: bn, Health: emptyHealth()})
	}
	return runs, nil
}
