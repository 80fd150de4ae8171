package monitor

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// csvFile streams one time series. Each row is built in a reused buffer
// and written with one write call, unbuffered: memory stays flat however
// long the run, and a crash loses at most the row being written.
type csvFile struct {
	f    *os.File
	row  []byte
	rows int
	err  error
}

// createCSV creates path (never overwriting: a run directory is fresh and
// its data is not to be lost) and writes the header.
func createCSV(path string, header []string) (*csvFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("monitor: %w", err)
	}
	c := &csvFile{f: f, row: make([]byte, 0, 1024)}
	if _, err := f.WriteString(strings.Join(header, ",") + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("monitor: write %s: %w", path, err)
	}
	return c, nil
}

// start begins a row with t (timeLayout, UTC), elapsed_s and interval_s
// (empty for the first row).
func (c *csvFile) start(t time.Time, elapsed, interval time.Duration) {
	c.row = t.UTC().AppendFormat(c.row[:0], timeLayout)
	c.float(elapsed.Seconds(), 3)
	if interval > 0 {
		c.float(interval.Seconds(), 3)
	} else {
		c.empty()
	}
}

func (c *csvFile) empty() { c.row = append(c.row, ',') }

// float appends v with prec decimals; NaN (no value) is an empty cell.
func (c *csvFile) float(v float64, prec int) {
	c.row = append(c.row, ',')
	if !math.IsNaN(v) {
		c.row = strconv.AppendFloat(c.row, v, 'f', prec, 64)
	}
}

// int appends v when ok, else an empty cell.
func (c *csvFile) int(v int64, ok bool) {
	c.row = append(c.row, ',')
	if ok {
		c.row = strconv.AppendInt(c.row, v, 10)
	}
}

// text appends s, quoted per RFC 4180 when it holds a comma, quote or
// line break (GTID positions list several domains with commas).
func (c *csvFile) text(s string) {
	c.row = append(c.row, ',')
	if !strings.ContainsAny(s, ",\"\r\n") {
		c.row = append(c.row, s...)
		return
	}
	c.row = append(c.row, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			c.row = append(c.row, '"')
		}
		c.row = append(c.row, s[i])
	}
	c.row = append(c.row, '"')
}

// end writes the row. After a write error the file takes no more rows;
// the error is reported by close.
func (c *csvFile) end() {
	if c.err != nil {
		return
	}
	c.row = append(c.row, '\n')
	if _, err := c.f.Write(c.row); err != nil {
		c.err = fmt.Errorf("monitor: write %s: %w", c.f.Name(), err)
		return
	}
	c.rows++
}

func (c *csvFile) close() error {
	if err := c.f.Close(); err != nil && c.err == nil {
		c.err = fmt.Errorf("monitor: close %s: %w", c.f.Name(), err)
	}
	return c.err
}
