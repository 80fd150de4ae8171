package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/orch-bench/orch/orchestrator/report/load"
)

// The db-insert report: PerconaFT's db-insert built against the fractal
// tree (engine tokudb) and Berkeley DB (engine bdb), the seed's third
// experiment. It reads the matrix's cells itself (results.json for the
// program's batches, the database's bytes on disk and the program's CPU;
// manifest.json for the workload's sizes; the host's os.csv for disk
// writes) and writes dbinsert.md and plots/dbinsert-random.svg beside the
// matrix's report.

// WriteDBInsert reads the runs and writes dir/dbinsert.md and its plot. It
// returns the answer line and the paths written.
func WriteDBInsert(dir string, runs []load.DBInsertRun) (string, []string, error) {
	var read []*load.DBIRun
	var errs []error
	for _, r := range runs {
		if r.State != "ok" && r.State != "failed" {
			continue
		}
		d, err := load.ReadDBInsertRun(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		read = append(read, d)
	}
	cfgs, failed := load.DBIConfigs(read)
	if len(cfgs) == 0 {
		return "", nil, errors.Join(append(errs, errors.New("db-insert report: no run ended ok"))...)
	}
	var paths []string
	plotRel := filepath.Join(load.PlotsDir, "dbinsert-random.svg")
	svg, err := dbiPlot(cfgs)
	if err == nil {
		p := filepath.Join(dir, plotRel)
		if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			err = os.WriteFile(p, svg, 0o644)
		}
		paths = append(paths, p)
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("db-insert plot: %w", err))
		plotRel = ""
	}
	answer, md := dbiMarkdown(cfgs, failed, plotRel)
	p := filepath.Join(dir, load.FileDBInsert)
	if err := os.WriteFile(p, []byte(md), 0o644); err != nil {
		return answer, paths, err
	}
	return answer, append(paths, p), errors.Join(errs...)
}
