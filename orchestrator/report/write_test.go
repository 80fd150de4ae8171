package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

func TestWrittenLine(t *testing.T) {
	got := render.WrittenLine([]string{"r/plots/a.svg", "r/plots/b.svg", "r/report.md", "r/results.csv", "r/hosts.csv"})
	if want := "wrote r/{report.md,results.csv,hosts.csv} and 2 plots in r/plots"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := render.WrittenLine([]string{"x/results.csv"}); got != "wrote x/{results.csv}" {
		t.Errorf("got %q", got)
	}
}

// Every JSON file the report writes carries its schema_version.
func TestJSONSchemaVersion(t *testing.T) {
	_, paths, err := render.Generate([]string{demoDir}, t.TempDir(), render.AllFormats, analyse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := build(t, analyse.Options{}, demoDir)
	var nf bytes.Buffer
	if err := render.WriteNoiseFloorJSON(rep, &nf); err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{load.FileNoiseFloor: nf.Bytes()}
	for _, p := range paths {
		if strings.HasSuffix(p, ".json") {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			docs[filepath.Base(p)] = b
		}
	}
	if _, ok := docs[load.FileWhy]; !ok {
		t.Fatalf("no %s among %q", load.FileWhy, paths)
	}
	want := map[string]int{load.FileWhy: render.WhySchemaVersion, load.FileNoiseFloor: render.NoiseFloorSchemaVersion}
	for name, b := range docs {
		var doc struct {
			Schema *int `json:"schema_version"`
		}
		if err := json.Unmarshal(b, &doc); err != nil || doc.Schema == nil || *doc.Schema != want[name] {
			t.Errorf("%s: schema_version %v (err %v), want %d", name, doc.Schema, err, want[name])
		}
	}
}
