package matrix

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/runs"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// FileMatrix is the plan and state file in a matrix directory.
const FileMatrix = schema.FileMatrix

// Version is the matrix.json format this package writes and reads.
const Version = schema.MatrixVersion

// MaxCells guards against a product that explodes by mistake (a typo in a
// value list times a large repeat): such a plan would run for weeks.
const MaxCells = 10000

// Matrix is matrix.json (schema.Matrix) with the planner's methods. Its
// methods are not safe for concurrent use; the execution loop owns it.
type Matrix struct {
	schema.Matrix
	// Design is schema.Matrix's design (the same key, the same fields)
	// with the scheduling methods (blocks.go); the embedded one stays nil.
	Design *Design `json:"design,omitempty"`

	dir *rundir.Dir // set by Create and Load
}

// New plans a matrix of workload over engines × axes, each label repeat
// times, with the default baseline. The caller sets Overrides and WarmupS
// before Create.
func New(workload string, engines []string, axes []Axis, repeat int) (*Matrix, error) {
	if len(engines) == 0 {
		return nil, errors.New("matrix: no engine")
	}
	if repeat < 1 {
		return nil, fmt.Errorf("matrix: --repeat %d: want 1 or more", repeat)
	}
	n := len(engines) * repeat
	for _, ax := range axes {
		if len(ax.Values) == 0 {
			return nil, fmt.Errorf("matrix: knob %s has no value", ax.Name)
		}
		n *= len(ax.Values)
		if n > MaxCells {
			break // the product only grows; stop before it overflows
		}
	}
	if n > MaxCells {
		return nil, fmt.Errorf("matrix: the plan has more than %d cells; fewer values or repetitions, please", MaxCells)
	}
	if axes == nil {
		axes = []Axis{} // "knobs": [] rather than null
	}
	m := &Matrix{Matrix: schema.Matrix{
		Version:  Version,
		Workload: workload,
		Engines:  slices.Clone(engines),
		Knobs:    slices.Clone(axes),
		Repeat:   repeat,
		Baseline: DefaultBaseline(engines, axes),
		Cells:    Plan(engines, axes, repeat),
	}}
	return m, nil
}

// Labels lists the matrix's distinct configurations in execution order.
func (m *Matrix) Labels() []string { return Labels(m.Cells) }

// SetBaseline makes label the comparison base; it must be one of Labels.
func (m *Matrix) SetBaseline(label string) error {
	labels := m.Labels()
	if !slices.Contains(labels, label) {
		return fmt.Errorf("matrix: baseline %q is not a configuration of the plan (%s)", label, strings.Join(labels, "; "))
	}
	m.Baseline = label
	return nil
}

// Dir is the matrix directory's absolute path ("" before Create or Load).
func (m *Matrix) Dir() string {
	if m.dir == nil {
		return ""
	}
	return m.dir.Path()
}

// Create makes the matrix directory runs/<UTC>-matrix-<workload>/ under
// root with its cells/ subdirectory, points root/latest at it and saves m
// there. It returns the directory's absolute path.
func Create(root string, m *Matrix, now time.Time) (string, error) {
	if err := m.validate(); err != nil {
		return "", err
	}
	name := "matrix"
	if m.Workload != "" {
		name += "-" + m.Workload
	}
	d, err := rundir.Create(root, name, now)
	if err != nil {
		return "", fmt.Errorf("matrix: %w", err)
	}
	if err := os.Mkdir(filepath.Join(d.Path(), CellsDir), 0o755); err != nil {
		return "", fmt.Errorf("matrix: %w", err)
	}
	m.dir = d
	if err := m.Save(); err != nil {
		return "", err
	}
	return d.Path(), nil
}

// Load reads the matrix in dir (a symlink such as runs/latest is resolved).
func Load(dir string) (*Matrix, error) {
	d, err := rundir.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("matrix: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(d.Path(), FileMatrix))
	if err != nil {
		return nil, fmt.Errorf("matrix %s: %w", dir, err)
	}
	var m Matrix
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("matrix %s: %s: %w", dir, FileMatrix, err)
	}
	if m.Version != Version {
		return nil, fmt.Errorf("matrix %s: %s version %d: this orch reads version %d", dir, FileMatrix, m.Version, Version)
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("matrix %s: %w", dir, err)
	}
	m.dir = d
	return &m, nil
}

// Save replaces matrix.json atomically: a reader, or a resume after a
// crash, sees the previous state or this one, never a torn file. Call it
// after every Start and Finish.
func (m *Matrix) Save() error {
	if m.dir == nil {
		return errors.New("matrix: save: no directory (Create or Load first)")
	}
	if err := m.dir.WriteJSON(FileMatrix, m); err != nil {
		return fmt.Errorf("matrix: save: %w", err)
	}
	return nil
}

// validate checks what the execution loop and the report rely on.
func (m *Matrix) validate() error {
	if m.Version != Version {
		return fmt.Errorf("matrix: version %d: want %d", m.Version, Version)
	}
	if len(m.Cells) == 0 {
		return errors.New("matrix: no cell")
	}
	ids := map[string]bool{}
	labels := map[string]bool{}
	for i, c := range m.Cells {
		switch {
		case c.ID == "" || c.ID != idSafe(c.ID) || strings.HasPrefix(c.ID, "."):
			return fmt.Errorf("matrix: cell %d: id %q is not a safe directory name", i+1, c.ID)
		case ids[c.ID]:
			return fmt.Errorf("matrix: cell id %s is used twice", c.ID)
		case !c.State.Valid():
			return fmt.Errorf("matrix: cell %s: state %q: want pending, running, ok, failed, interrupted or skipped", c.ID, c.State)
		case !filepath.IsLocal(c.Dir):
			return fmt.Errorf("matrix: cell %s: dir %q is not inside the matrix directory", c.ID, c.Dir)
		}
		ids[c.ID] = true
		labels[c.Label] = true
	}
	if m.Baseline != "" && !labels[m.Baseline] {
		return fmt.Errorf("matrix: baseline %q is not the label of any cell", m.Baseline)
	}
	return m.validateAA()
}

// FindLatest returns the newest matrix directory under root, for --resume
// without a directory: root/latest when it is a matrix, else the last
// directory by name (names start with the UTC start time) that holds a
// matrix.json. A plain `orch run` after the matrix moves latest on, hence
// the scan.
func FindLatest(root string) (string, error) {
	if d, err := rundir.OpenLatest(root); err == nil && runs.IsMatrix(d.Path()) {
		return d.Path(), nil
	}
	dir, err := runs.Newest(root, runs.IsMatrix)
	switch {
	case err != nil:
		return "", fmt.Errorf("matrix: find the latest: %w", err)
	case dir == "":
		return "", fmt.Errorf("matrix: no matrix under %s (no directory holds %s)", root, FileMatrix)
	}
	return dir, nil
}

// CellDir makes the run directory of cell id and returns its absolute path.
// A directory left by an earlier attempt (a crash or Ctrl-C mid-cell) is
// kept as the evidence it is: renamed to <id>.attempt-N, N the first free.
func (m *Matrix) CellDir(id string) (string, error) {
	c := m.cell(id)
	if c == nil {
		return "", fmt.Errorf("matrix: no cell %s", id)
	}
	if m.dir == nil {
		return "", errors.New("matrix: cell directory: no matrix directory (Create or Load first)")
	}
	p, err := m.dir.Abs(c.Dir)
	if err != nil {
		return "", fmt.Errorf("matrix: cell %s: %w", id, err)
	}
	if _, err := os.Lstat(p); err == nil {
		if err := moveAside(p); err != nil {
			return "", fmt.Errorf("matrix: cell %s: keep the earlier attempt: %w", id, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("matrix: cell %s: %w", id, err)
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		return "", fmt.Errorf("matrix: cell %s: %w", id, err)
	}
	return p, nil
}

// cellPath is the absolute path of cell id's run directory, touching
// nothing (CellDir makes it, moving an earlier attempt aside).
func (m *Matrix) cellPath(id string) (string, error) {
	c := m.cell(id)
	if c == nil || m.dir == nil {
		return "", fmt.Errorf("matrix: no cell %s", id)
	}
	return m.dir.Abs(c.Dir)
}

// moveAside renames p to the first free p.attempt-N.
func moveAside(p string) error {
	for n := 1; n < 1000; n++ {
		dst := fmt.Sprintf("%s.attempt-%d", p, n)
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			return os.Rename(p, dst)
		}
	}
	return fmt.Errorf("%s: too many earlier attempts", p)
}
