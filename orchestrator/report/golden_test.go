package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

// TestGolden pins report.md and results.csv for the matrix fixture plus a
// legacy log, so a change in wording, columns or figures shows as a diff
// to review (go test -run Golden -update rewrites them).
func TestGolden(t *testing.T) {
	rep := build(t, analyse.Options{}, matrixDir, "testdata/parse/legacy-0.5.json")
	for name, write := range map[string]func(*bytes.Buffer) error{
		"report.md":   func(b *bytes.Buffer) error { return render.WriteMarkdown(rep, b) },
		"results.csv": func(b *bytes.Buffer) error { return render.WriteCSV(rep, b) },
	} {
		var got bytes.Buffer
		if err := write(&got); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "golden", name)
		if *update {
			if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -run Golden -update writes it)", err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s differs from %s; review and rerun with -update:\n%s", name, path, firstDiff(got.Bytes(), want))
		}
	}
}

// firstDiff shows the first differing line.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, gl, wl)
		}
	}
	return ""
}
