package load

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// FileDBInsert is the db-insert report's file.
const FileDBInsert = "dbinsert.md"

// DBInsertRun is one cell of a db-insert matrix.
type DBInsertRun struct {
	Label string // the library: tokudb or bdb
	Rep   int
	Dir   string // the cell's run directory
	State string // ok, failed, ...
}

// DBIRun is a run as read.
type DBIRun struct {
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

func ReadDBInsertRun(r DBInsertRun) (*DBIRun, error) {
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
	out := &DBIRun{DBInsertRun: r, Complete: d.Complete, BatchSize: d.BatchSize, Insertions: d.Insertions,
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
func (d *DBIRun) readWorkload() {
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
		s, err := ReadSeries(f)
		if err != nil || s == nil {
			return math.NaN()
		}
		total, any := 0.0, false
		for _, row := range s.Rows {
			mb, iv := s.Value(row, col), s.Value(row, "interval_s")
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

// DBIConfig is one library's runs that ended ok.
type DBIConfig struct {
	Label string
	Runs  []*DBIRun
}

func (c *DBIConfig) Values(f func(*DBIRun) float64) []float64 {
	var out []float64
	for _, r := range c.Runs {
		if v := f(r); !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

// BatchMean is the mean over runs of batch i's rate (NaN when none has it).
func (c *DBIConfig) BatchMean(i int, random bool) float64 {
	return MeanOf(c.Values(func(r *DBIRun) float64 {
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

func (c *DBIConfig) Batches() int {
	n := 0
	for _, r := range c.Runs {
		n = max(n, len(r.Random))
	}
	return n
}

// DBIConfigs groups the ok, complete runs by library, the fractal tree
// first; failed runs are listed apart.
func DBIConfigs(runs []*DBIRun) (cfgs []*DBIConfig, failed []*DBIRun) {
	for _, r := range runs {
		if r.State != "ok" || !r.Complete {
			failed = append(failed, r)
			continue
		}
		i := slices.IndexFunc(cfgs, func(c *DBIConfig) bool { return c.Label == r.Label })
		if i < 0 {
			cfgs = append(cfgs, &DBIConfig{Label: r.Label})
			i = len(cfgs) - 1
		}
		cfgs[i].Runs = append(cfgs[i].Runs, r)
	}
	slices.SortStableFunc(cfgs, func(a, b *DBIConfig) int { return strings.Compare(libOrder(a.Label), libOrder(b.Label)) })
	return cfgs, failed
}

func libOrder(l string) string {
	if l == "tokudb" {
		return "0"
	}
	return "1" + l
}

func LibName(l string) string {
	switch l {
	case "tokudb":
		return "fractal tree (tokudb)"
	case "bdb":
		return "Berkeley DB (bdb)"
	}
	return l
}

// Collapse finds where a library's random rate fell: the first batch whose
// mean random rate is under a tenth of batch 0's. It returns -1 when none.
func Collapse(c *DBIConfig) int {
	first := c.BatchMean(0, true)
	for i := 1; i < c.Batches(); i++ {
		if v := c.BatchMean(i, true); !math.IsNaN(first) && v < first/10 {
			return i
		}
	}
	return -1
}

// DBInsertRuns are the cells of a matrix over the libraries db-insert is
// built against (a workload that uses no server) that ended, for
// WriteDBInsert; nil for any other matrix. The matrix writes dbinsert.md at
// its end and `orch report MATRIXDIR` writes it again from the same cells.
func DBInsertRuns(dir string, m *schema.Matrix) ([]DBInsertRun, error) {
	if w, err := bench.LoadWorkload(m.Workload); err != nil || w.UsesServer() {
		return nil, nil
	}
	var runs []DBInsertRun
	for _, c := range m.Cells {
		if c.State != schema.CellOK && c.State != schema.CellFailed {
			continue
		}
		if !filepath.IsLocal(c.Dir) {
			return nil, fmt.Errorf("matrix: cell %s: %q is not a path inside the matrix", c.ID, c.Dir)
		}
		runs = append(runs, DBInsertRun{Label: c.Engine, Rep: c.Rep, Dir: filepath.Join(dir, c.Dir), State: string(c.State)})
	}
	return runs, nil
}
