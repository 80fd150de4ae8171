package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/orch-bench/orch/orchestrator/runs"
)

// Imported says what an import did: runs read, runs new to the store.
type Imported struct{ Read, Added int }

// Import records the runs of run and matrix directories, and of the
// directories a runs folder holds (each read alone, so that one damaged
// directory is named and the others still go in). Importing again adds
// nothing.
func Import(ctx context.Context, s *Store, dirs []string) (Imported, error) {
	var got Imported
	for _, d := range expand(dirs) {
		es, err := Extract([]string{d})
		if err != nil {
			return got, fmt.Errorf("%s: %w", d, err)
		}
		n, err := s.Record(ctx, es)
		if err != nil {
			return got, err
		}
		got.Read += len(es)
		got.Added += n
	}
	return got, nil
}

// expand replaces a runs folder (a directory that is neither a run nor a
// matrix) by the run and matrix directories in it, oldest first, and in
// its folders (runs/seed/sysbench/<matrix>: a team keeps campaigns in
// folders of their own), a few levels down. A symbolic link (runs/latest)
// is not followed: what it names is in the folder already.
func expand(dirs []string) []string {
	var out []string
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		ents, err := os.ReadDir(d)
		if err != nil {
			if depth == 0 {
				out = append(out, d) // Extract names the error
			}
			return
		}
		for _, e := range ents {
			p := filepath.Join(d, e.Name())
			switch {
			case !e.IsDir() || e.Name()[0] == '.':
			case isRunOrMatrix(p):
				out = append(out, p)
			case depth < maxFolderDepth:
				walk(p, depth+1)
			}
		}
	}
	for _, d := range dirs {
		if isRunOrMatrix(d) {
			out = append(out, d)
			continue
		}
		walk(d, 0)
	}
	return out
}

// maxFolderDepth is how many folders down a runs folder is searched.
const maxFolderDepth = 3

func isRunOrMatrix(d string) bool {
	if runs.IsMatrix(d) {
		return true
	}
	_, err := os.Stat(filepath.Join(d, "manifest.json"))
	return err == nil
}
