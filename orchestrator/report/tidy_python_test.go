package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// TestTidyCSVsInPython reads the demo matrix's report as an analyst would,
// in python3 (pandas when installed, else the csv module), with counts
// taken from the matrix directory itself: results.csv one row per run,
// hosts.csv one per run x host, configurations.csv one per configuration,
// the baseline's ratio 1, each run's row repeating its configuration's.
// The system's python3 is the one Debian's python3-pandas installs into
// (scripts/lab-deps.sh --test); where the suite must not skip (CI, or
// ORCH_REQUIRE_BROWSER as make test sets it) pandas is required.
func TestTidyCSVsInPython(t *testing.T) {
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		if py, err = exec.LookPath("python3"); err != nil {
			t.Fatal("no python3")
		}
	}
	if os.Getenv("CI") != "" || os.Getenv("ORCH_REQUIRE_BROWSER") != "" {
		if out, err := exec.Command(py, "-c", "import pandas").CombinedOutput(); err != nil {
			t.Fatalf("%s has no pandas (scripts/lab-deps.sh --test installs python3-pandas): %v: %s", py, err, out)
		}
	}
	out := t.TempDir()
	if _, _, err := render.Generate([]string{demoDir}, out, []string{render.FormatCSV}, analyse.Options{}); err != nil {
		t.Fatal(err)
	}
	b, err := exec.Command(py, filepath.Join("testdata", "tidy", "check.py"), demoDir, out).CombinedOutput()
	t.Logf("check.py:\n%s", b)
	if err != nil {
		t.Errorf("check.py: %v", err)
	}
}
