package report

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestTidyCSVsInPython reads the demo matrix's report as an analyst would,
// in python3 (pandas when installed, else the csv module), with counts
// taken from the matrix directory itself: results.csv one row per run,
// hosts.csv one per run x host, configurations.csv one per configuration,
// the baseline's ratio 1, each run's row repeating its configuration's.
func TestTidyCSVsInPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	out := t.TempDir()
	if _, _, err := Generate([]string{demoDir}, out, []string{FormatCSV}, Options{}); err != nil {
		t.Fatal(err)
	}
	b, err := exec.Command(py, filepath.Join("testdata", "tidy", "check.py"), demoDir, out).CombinedOutput()
	t.Logf("check.py:\n%s", b)
	if err != nil {
		t.Errorf("check.py: %v", err)
	}
}
