package bench

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/orch-bench/orch/playbooks"
)

// maxWorkloadSize guards against pointing at a huge file by mistake.
const maxWorkloadSize = 1 << 20

// builtinPrefix names embedded files in errors, as they sit in the repository.
const builtinPrefix = "playbooks/"

// LoadWorkload loads a workload by built-in name ("pure-random-writes") or
// from a file. A name with a '/' is always a file path. A bare name ending
// in .yaml or .yml is a file in the working directory if there is one,
// else a built-in; any other bare name is a built-in.
func LoadWorkload(nameOrPath string) (*Workload, error) {
	isFile := strings.ContainsRune(nameOrPath, '/')
	base, hasExt := strings.CutSuffix(nameOrPath, ".yaml")
	if !hasExt {
		base, hasExt = strings.CutSuffix(nameOrPath, ".yml")
	}
	if !isFile && hasExt {
		if _, err := os.Stat(nameOrPath); err == nil {
			isFile = true
		}
	}
	if isFile {
		data, err := readWorkload(nameOrPath)
		if err != nil {
			return nil, err
		}
		return ParseWorkload(nameOrPath, data)
	}
	embedded := path.Join(playbooks.WorkloadDir, base+".yaml")
	data, err := fs.ReadFile(playbooks.Workloads, embedded)
	if err != nil {
		return nil, fmt.Errorf("workload %q: no such file and no built-in workload of that name (built-in: %s)",
			nameOrPath, strings.Join(BuiltinWorkloads(), ", "))
	}
	return ParseWorkload(builtinPrefix+embedded, data)
}

// BuiltinWorkloads lists the embedded workload names, sorted.
func BuiltinWorkloads() []string {
	entries, err := fs.ReadDir(playbooks.Workloads, playbooks.WorkloadDir)
	if err != nil {
		return nil // cannot happen: the directory is embedded
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// readWorkload reads at most maxWorkloadSize bytes; errors start with the
// file name and wrap the os error (fs.ErrNotExist stays testable).
func readWorkload(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, unwrapPath(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a workload file", file)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxWorkloadSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, unwrapPath(err))
	}
	if len(data) > maxWorkloadSize {
		return nil, fmt.Errorf("%s: larger than 1 MiB; a workload is a small YAML file", file)
	}
	return data, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
