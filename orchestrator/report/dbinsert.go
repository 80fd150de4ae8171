package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The db-insert report: PerconaFT's db-insert built against the fractal
// tree (engine tokudb) and Berkeley DB (engine bdb), the seed's third
// experiment. It reads the matrix's cells itself (results.json for the
// program's batches, the database's bytes on disk and the program's CPU;
// manifest.json for the workload's sizes; the host's os.csv for disk
// writes) and writes dbinsert.md and plots/dbinsert-random.svg beside the
// matrix's report.

// FileDBInsert is the db-insert report's file.
const FileDBInsert = "dbinsert.md"

// DBInsertRun is one cell of a db-insert matrix.
type DBInsertRun struct {
	Label string // the library: tokudb or bdb
	Rep   int
	Dir   string // the cell's run directory
	State string // ok, failed, ...
}

// dbiRun is a run as read.
type dbiRun struct {
	DBInsertRun
	Complete   bool
	BatchSize  int64
	Insertions int64
	Rate       float64
	TotalS     float64
	Serial     []float64 // per batch, insertions/s
	Random     []float64
	Bytes      float64 // database directory, bytes on disk; NaN unknown
	CPUS       float64 // user+sys seconds of the program; NaN unknown
	// DiskWriteMB is the host's disk writes (10^6 bytes) and Flushes its
	// disk's flush requests over the run's monitored seconds; NaN unknown.
	DiskWriteMB, Flushes float64
	CacheSize            float64 // --cachesize, bytes; NaN: the library's default
	RecordBytes          float64 // key + value bytes
}

func readDBInsertRun(r DBInsertRun) (*dbiRun, error) {
	var res struct {
		// results.json's benchmark is the parsed result itself.
		Benchmark *struct {
			Complete   bool     `json:"complete"`
			BatchSize  int64    `json:"batch_size"`
			Insertions int64    `json:"insertions"`
			Rate       *float64 `json:"rate"`
			TotalS     *float64 `json:"total_s"`
			Batches    []struct {
				SerialRate *float64 `json:"serial_rate"`
				RandomRate *float64 `json:"random_rate"`
			} `json:"batches"`
			DBBytes *int64   `json:"db_bytes"`
			User    *float64 `json:"cpu_user_s"`
			Sys     *float64 `json:"cpu_sys_s"`
		} `json:"benchmark"`
	}
	raw, err := os.ReadFile(filepath.Join(r.Dir, "results.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", r.Dir, err)
	}
	d := res.Benchmark
	if d == nil {
		return nil, fmt.Errorf("%s: no db-insert result", r.Dir)
	}
	out := &dbiRun{DBInsertRun: r, Complete: d.Complete, BatchSize: d.BatchSize, Insertions: d.Insertions,
		Rate: numOr(d.Rate), TotalS: numOr(d.TotalS), Bytes: math.NaN(), CPUS: math.NaN(),
		CacheSize: math.NaN(), RecordBytes: 16}
	for _, b := range d.Batches {
		out.Serial = append(out.Serial, numOr(b.SerialRate))
		out.Random = append(out.Random, numOr(b.RandomRate))
	}
	if d.DBBytes != nil {
		out.Bytes = float64(*d.DBBytes)
	}
	if d.User != nil && d.Sys != nil {
		out.CPUS = *d.User + *d.Sys
	}
	out.readWorkload()
	out.DiskWriteMB = hostTotal(r.Dir, "disk_write_mbps")
	out.Flushes = hostTotal(r.Dir, "disk_flushes_ps")
	return out, nil
}

func numOr(n *float64) float64 {
	if n == nil {
		return math.NaN()
	}
	return *n
}

// readWorkload takes the cache and record sizes from the run's manifest
// (the resolved workload; the program's defaults are 8-byte keys and
// values).
func (d *dbiRun) readWorkload() {
	var m struct {
		Workload struct {
			Options struct {
				CacheSize, KeySize, ValueSize *float64
			}
		} `json:"workload"`
	}
	raw, err := os.ReadFile(filepath.Join(d.Dir, "manifest.json"))
	if err != nil || json.Unmarshal(raw, &m) != nil {
		return
	}
	o := m.Workload.Options
	if o.CacheSize != nil {
		d.CacheSize = *o.CacheSize
	}
	k, v := 8.0, 8.0
	if o.KeySize != nil {
		k = *o.KeySize
	}
	if o.ValueSize != nil {
		v = *o.ValueSize
	}
	d.RecordBytes = k + v
}

// hostTotal sums a per-second column × interval_s over the os.csv rows of
// the host the program ran on: what the host's disk took while the
// monitor ran (the whole host's, the program's included).
func hostTotal(dir, col string) float64 {
	files, _ := filepath.Glob(filepath.Join(dir, "timeseries", "*-os.csv"))
	var man struct {
		Remote struct{ Host string } `json:"remote"`
	}
	if raw, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err == nil {
		json.Unmarshal(raw, &man)
	}
	for _, f := range files {
		if filepath.Base(f) != man.Remote.Host+"-os.csv" {
			continue
		}
		s, err := readSeries(f)
		if err != nil || s == nil {
			return math.NaN()
		}
		total, any := 0.0, false
		for _, row := range s.rows {
			mb, iv := s.value(row, col), s.value(row, "interval_s")
			if !math.IsNaN(mb) && !math.IsNaN(iv) {
				total += mb * iv
				any = true
			}
		}
		if any {
			return total
		}
	}
	return math.NaN()
}

// dbiConfig is one library's runs that ended ok.
type dbiConfig struct {
	Label string
	Runs  []*dbiRun
}

func (c *dbiConfig) values(f func(*dbiRun) float64) []float64 {
	var out []float64
	for _, r := range c.Runs {
		if v := f(r); !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

// batchMean is the mean over runs of batch i's rate (NaN when none has it).
func (c *dbiConfig) batchMean(i int, random bool) float64 {
	return meanOf(c.values(func(r *dbiRun) float64 {
		xs := r.Serial
		if random {
			xs = r.Random
		}
		if i < len(xs) {
			return xs[i]
		}
		return math.NaN()
	}))
}

func (c *dbiConfig) batches() int {
	n := 0
	for _, r := range c.Runs {
		n = max(n, len(r.Random))
	}
	return n
}

// dbiConfigs groups the ok, complete runs by library, the fractal tree
// first; failed runs are listed apart.
func dbiConfigs(runs []*dbiRun) (cfgs []*dbiConfig, failed []*dbiRun) {
	for _, r := range runs {
		if r.State != "ok" || !r.Complete {
			failed = append(failed, r)
			continue
		}
		i := slices.IndexFunc(cfgs, func(c *dbiConfig) bool { return c.Label == r.Label })
		if i < 0 {
			cfgs = append(cfgs, &dbiConfig{Label: r.Label})
			i = len(cfgs) - 1
		}
		cfgs[i].Runs = append(cfgs[i].Runs, r)
	}
	slices.SortStableFunc(cfgs, func(a, b *dbiConfig) int { return strings.Compare(libOrder(a.Label), libOrder(b.Label)) })
	return cfgs, failed
}

func libOrder(l string) string {
	if l == "tokudb" {
		return "0"
	}
	return "1" + l
}

func libName(l string) string {
	switch l {
	case "tokudb":
		return "fractal tree (tokudb)"
	case "bdb":
		return "Berkeley DB (bdb)"
	}
	return l
}

// collapse finds where a library's random rate fell: the first batch whose
// mean random rate is under a tenth of batch 0's. It returns -1 when none.
func collapse(c *dbiConfig) int {
	first := c.batchMean(0, true)
	for i := 1; i < c.batches(); i++ {
		if v := c.batchMean(i, true); !math.IsNaN(first) && v < first/10 {
			return i
		}
	}
	return -1
}

// WriteDBInsert reads the runs and writes dir/dbinsert.md and its plot. It
// returns the answer line and the paths written.
func WriteDBInsert(dir string, runs []DBInsertRun) (string, []string, error) {
	var read []*dbiRun
	var errs []error
	for _, r := range runs {
		if r.State != "ok" && r.State != "failed" {
			continue
		}
		d, err := readDBInsertRun(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		read = append(read, d)
	}
	cfgs, failed := dbiConfigs(read)
	if len(cfgs) == 0 {
		return "", nil, errors.Join(append(errs, errors.New("db-insert report: no run ended ok"))...)
	}
	var paths []string
	plotRel := filepath.Join(PlotsDir, "dbinsert-random.svg")
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
	p := filepath.Join(dir, FileDBInsert)
	if err := os.WriteFile(p, []byte(md), 0o644); err != nil {
		return answer, paths, err
	}
	return answer, append(paths, p), errors.Join(errs...)
}
