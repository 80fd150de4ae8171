// Package recheck recomputes a matrix report's figures from the raw files
// of its run directories, for tests: the client's raw text
// (benchmark/run.txt, read with regexps of sysbench 1.0's lines), the
// monitors' CSVs (read by column name), events.jsonl and results.json's
// catch-up. It shares no code with orchestrator/report or
// orchestrator/bench on purpose: a figure both compute the same way from
// different code is a figure a reviewer can trust.
package recheck

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// sysbench 1.0 prints one line per report interval, e.g.
// "[ 1s ] thds: 16 tps: 8029.02 qps: 8029.02 (r/w/o: 0.00/8029.02/0.00) lat (ms,95%): 3.62 err/s: 0.00 reconn/s: 0.00"
// (shared/samples/sysbench-1.0-oltp_insert-*-run.txt), and a summary with
// "total time:                          20.0058s".
var (
	intervalLine = regexp.MustCompile(`^\[ *([0-9.]+)s \] thds: ([0-9]+) tps: ([0-9.]+) qps: ([0-9.]+) \(r/w/o: ([0-9.]+)/([0-9.]+)/([0-9.]+)\)`)
	totalTime    = regexp.MustCompile(`^\s*total time:\s+([0-9.]+)s`)
	// intervalLat is the same line's percentile latency, "lat (ms,95%): 3.62".
	intervalLat = regexp.MustCompile(`\blat \(ms,[0-9]+%\): ([0-9.]+)`)
)

// clientLine is one interval of the client's raw output.
type clientLine struct{ t, threads, tps, writes, lat float64 }

// readClient reads benchmark/run.txt.
func readClient(path string) (lines []clientLine, total float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := intervalLine.FindStringSubmatch(sc.Text()); m != nil {
			l := clientLine{t: atof(m[1]), threads: atof(m[2]), tps: atof(m[3]), writes: atof(m[6]), lat: math.NaN()}
			if lm := intervalLat.FindStringSubmatch(sc.Text()); lm != nil {
				l.lat = atof(lm[1])
			}
			lines = append(lines, l)
		} else if m := totalTime.FindStringSubmatch(sc.Text()); m != nil {
			total = atof(m[1])
		}
	}
	return lines, total, sc.Err()
}

func atof(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return v
}

// table is one monitor CSV by column name.
type table struct {
	idx  map[string]int
	rows [][]string
}

func readTable(path string) (*table, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	tb := &table{idx: map[string]int{}, rows: recs[1:]}
	for i, h := range recs[0] {
		tb.idx[h] = i
	}
	return tb, nil
}

// get is a cell as a number; ok is false when empty or absent.
func (tb *table) get(row []string, col string) (float64, bool) {
	i, ok := tb.idx[col]
	if !ok || i >= len(row) || row[i] == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(row[i], 64)
	return v, err == nil
}

// gtidSeq is the sum of the sequence numbers of a gtid_pos cell
// ("0-1-4157" or "0-1-4157,1-2-9"): the counter of transactions.
func gtidSeq(cell string) (float64, bool) {
	if cell == "" {
		return 0, false
	}
	sum := 0.0
	for _, part := range strings.Split(cell, ",") {
		f := strings.Split(strings.TrimSpace(part), "-")
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return 0, false
		}
		sum += v
	}
	return sum, true
}

// event is one line of events.jsonl.
type event struct {
	T    time.Time `json:"t"`
	Host string    `json:"host"`
	Kind string    `json:"kind"`
}

func readEvents(path string) ([]event, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []event
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// resultsFile is what results.json says about the monitors' start and the
// catch-up.
type resultsFile struct {
	Monitor *struct {
		Start time.Time `json:"start"`
	} `json:"monitor"`
	CatchUp *struct {
		Slaves []slaveCatchUp `json:"slaves"`
	} `json:"catch_up"`
}

// slaveCatchUp is one slave's wait after the load: how long, whether it
// caught up, how far behind it was when the wait began (newer runs).
type slaveCatchUp struct {
	Host      string `json:"host"`
	WaitedNS  int64  `json:"waited_ns"`
	CatchUpNS *int64 `json:"catch_up_ns"`
	CaughtUp  bool   `json:"caught_up"`
	BehindTx  *int64 `json:"behind_at_wait_tx"`
}

// manifestFile names the hosts and their roles.
type manifestFile struct {
	Inventory struct {
		Hosts []struct {
			Name string `json:"name"`
			Role string `json:"role"`
		} `json:"hosts"`
	} `json:"inventory"`
}

func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// matrixFile is the part of matrix.json the recomputation needs.
type matrixFile struct {
	Baseline string   `json:"baseline"`
	WarmupS  *float64 `json:"warmup_s"`
	Analysis string   `json:"analysis"`
	Until    *until   `json:"until"`
	Cells    []struct {
		ID    string `json:"id"`
		Label string `json:"label"`
		Dir   string `json:"dir"`
		Rep   int    `json:"rep"`
		State string `json:"state"`
	} `json:"cells"`
	Design *struct {
		Blocks []struct {
			Cluster string   `json:"cluster"`
			Cells   []string `json:"cells"`
		} `json:"blocks"`
	} `json:"design"`
}

// until is matrix.json's stopping rule, as its line in the head states it.
type until struct {
	Precision float64 `json:"precision"`
	MinRounds int     `json:"min_rounds"`
	MaxRounds int     `json:"max_rounds"`
	// Judged is the last round the matrix judged (its progress).
	Judged int `json:"rounds_judged"`
	// skipped counts matrix.json's cells the rule did not need (state
	// "skipped"), set from its cells.
	skipped int
}

// clusterOf is the cluster that ran cell id ("" with one).
func (m matrixFile) clusterOf(id string) string {
	if m.Design == nil {
		return ""
	}
	for _, b := range m.Design.Blocks {
		for _, c := range b.Cells {
			if c == id {
				return b.Cluster
			}
		}
	}
	return ""
}

// readCSVFile reads a CSV with a header into one map per row.
func readCSVFile(path string) ([]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		out = append(out, m)
	}
	return out, nil
}

func join(dir string, parts ...string) string {
	return filepath.Join(append([]string{dir}, parts...)...)
}
