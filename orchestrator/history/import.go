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
// matrix) by the directories in it, oldest first.
func expand(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if isRunOrMatrix(d) {
			out = append(out, d)
			continue
		}
		ents, err := os.ReadDir(d)
		if err != nil {
			out = append(out, d) // Extract names the error
			continue
		}
		for _, e := range ents {
			p := filepath.Join(d, e.Name())
			if e.IsDir() && e.Name()[0] != '.' && isRunOrMatrix(p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func isRunOrMatrix(d string) bool {
	if runs.IsMatrix(d) {
		return true
	}
	_, err := os.Stat(filepath.Join(d, "manifest.json"))
	return err == nil
}
