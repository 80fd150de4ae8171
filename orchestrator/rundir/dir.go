package rundir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/orch-bench/orch/orchestrator/atomicfile"
	"github.com/orch-bench/orch/orchestrator/runs"
)

// Permissions of what a run directory holds. Nothing in it is secret (see
// ScanForSecrets), so results can be shared as they are.
const (
	dirPerm  = 0o755
	filePerm = 0o644
	// A run directory itself, and the copies collect makes of files from
	// the hosts (error log slices, the benchmark's output: whatever the
	// host wrote there), are for the invoking user only; sharing a run is
	// a deliberate copy.
	runDirPerm = 0o700
	copyPerm   = 0o600
)

// Dir is one run directory. Its methods are safe for concurrent use.
type Dir struct {
	path string
	// mu serialises appends to events.jsonl and manifest read-modify-write
	// cycles within this process.
	mu sync.Mutex
}

// Create makes a new run directory under root, named after now (in UTC) and
// name, and points root/latest at it. Two runs started in the same second
// with the same name get distinct directories (a -2, -3 ... suffix).
func Create(root, name string, now time.Time) (*Dir, error) {
	if root == "" {
		return nil, errors.New("run directory: empty root")
	}
	if err := os.MkdirAll(root, dirPerm); err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	base := now.UTC().Format(TimeLayout) + "-" + Sanitize(name)
	var p string
	for i := 1; ; i++ {
		cand := base
		if i > 1 {
			cand += "-" + strconv.Itoa(i)
		}
		p = filepath.Join(root, cand)
		err := os.Mkdir(p, runDirPerm)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i >= 1000 {
			return nil, fmt.Errorf("run directory: %w", err)
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	if err := pointLatest(root, filepath.Base(p)); err != nil {
		return nil, err
	}
	return &Dir{path: abs}, nil
}

// pointLatest replaces root/latest atomically: a symlink made under a
// temporary name, renamed over the old one. Readers never find it missing.
// The target is relative so the whole root can be moved or copied.
func pointLatest(root, target string) error {
	link := filepath.Join(root, LatestLink)
	tmp := filepath.Join(root, "."+LatestLink+".tmp-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	if err := os.Symlink(target, tmp); err != nil {
		return fmt.Errorf("run directory: latest link: %w", err)
	}
	if err := os.Rename(tmp, link); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("run directory: latest link: %w", err)
	}
	return nil
}

// Open returns the run directory at path. A symlink (such as runs/latest) is
// resolved, so the Dir keeps naming the same run when the link moves on.
func Open(path string) (*Dir, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		// The cause, not the system call: "no such file or directory".
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("run directory %s: %w", path, err)
	}
	abs, err := filepath.Abs(real)
	if err != nil {
		return nil, fmt.Errorf("run directory %s: %w", path, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("run directory %s: %w", path, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("run directory %s: not a directory", path)
	}
	return &Dir{path: abs}, nil
}

// OpenLatest opens the run root/latest points at.
func OpenLatest(root string) (*Dir, error) {
	latest, err := runs.Latest(root)
	if err != nil {
		return nil, err
	}
	return Open(latest)
}

// Path is the run directory's absolute path.
func (d *Dir) Path() string { return d.path }

// HostDir is the absolute path of host's directory (hosts/<name>). It is
// created by the first file written into it.
func (d *Dir) HostDir(name string) string {
	return filepath.Join(d.path, "hosts", Sanitize(name))
}

// Abs turns a path relative to the run directory into an absolute one,
// refusing paths that would leave the directory.
func (d *Dir) Abs(rel string) (string, error) {
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("run directory: %q is not a path inside the run directory", rel)
	}
	return filepath.Join(d.path, rel), nil
}

// WriteFile replaces rel with data atomically, creating parent directories.
func (d *Dir) WriteFile(rel string, data []byte) error {
	p, err := d.Abs(rel)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(p, bytes.NewReader(data), filePerm); err != nil {
		return fmt.Errorf("run directory: write %s: %w", rel, err)
	}
	return nil
}

// WriteJSON writes v as indented JSON to rel, atomically.
func (d *Dir) WriteJSON(rel string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("run directory: encode %s: %w", rel, err)
	}
	return d.WriteFile(rel, append(data, '\n'))
}

// Create opens rel for streaming (raw client output, CSV time series),
// truncating it if it exists. It is written in place, not atomically, so
// that it can be followed while the run goes on; the caller closes it.
func (d *Dir) Create(rel string) (*os.File, error) {
	p, err := d.Abs(rel)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), dirPerm); err != nil {
		return nil, fmt.Errorf("run directory: create %s: %w", rel, err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, filePerm)
	if err != nil {
		return nil, fmt.Errorf("run directory: create %s: %w", rel, err)
	}
	return f, nil
}

// Confined is Abs for a path orch reads or writes as root on a run
// directory it did not necessarily make (a copied or edited one): no
// existing component of rel may be a symbolic link, so that a planted
// link (hosts/master -> /etc) never sends a read or a write outside.
func (d *Dir) Confined(rel string) (string, error) {
	p, err := d.Abs(rel)
	if err != nil {
		return "", err
	}
	cur, shown := d.path, ""
	for _, part := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		cur, shown = filepath.Join(cur, part), path.Join(shown, part)
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("run directory: %w", err)
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("run directory: %s is a symbolic link: orch never follows one inside a run directory", shown)
		}
	}
	return p, nil
}
