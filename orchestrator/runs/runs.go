// Package runs owns the runs folder: the run and matrix directories under
// a root (each named from its UTC start, so that name order is start
// order), the latest link, finding the newest directory that answers a
// question, and naming a sibling directory so that the folder can move
// as a whole. Everything that scans the folder goes through here; a
// results history across runs extends it. It reads files only.
package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/orch-bench/orch/orchestrator/schema"
)

// Latest is the path of root's latest link, which names the newest run or
// matrix; an error says there is none.
func Latest(root string) (string, error) {
	p := filepath.Join(root, schema.LatestLink)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("no runs in %s yet (%s is missing)", root, schema.LatestLink)
	} else if err != nil {
		return "", err
	}
	return p, nil
}

// Newest walks the directories under root from the newest (hidden ones
// left out) and returns the absolute path of the first that keep accepts;
// "" when none does.
func Newest(root string, keep func(dir string) bool) (string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return "", err
	}
	// ReadDir sorts by name: the newest last.
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if p := filepath.Join(root, e.Name()); keep(p) {
			return filepath.Abs(p)
		}
	}
	return "", nil
}

// IsMatrix reports whether dir is a matrix directory (it holds a
// matrix.json).
func IsMatrix(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, schema.FileMatrix))
	return err == nil && st.Mode().IsRegular()
}

// Name is how a directory is recorded beside the runs under root: its name
// when it sits directly under root (so that the folder can move as a
// whole), else its absolute path; links are resolved.
func Name(dir, root string) (string, error) {
	abs, err := real(dir)
	if err != nil {
		return "", err
	}
	if r, err := real(root); err == nil && filepath.Dir(abs) == r {
		return filepath.Base(abs), nil
	}
	return abs, nil
}

// Resolve is the directory a Name recorded in a directory under root
// stands for: a name is a sibling of that directory, a path itself.
func Resolve(name, beside string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(filepath.Dir(beside), name)
}

func real(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	return abs, nil
}
