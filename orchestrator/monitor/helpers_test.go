package monitor

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// csvRows reads a series back with encoding/csv: the format check is that
// a standard reader gets the header and equal-length rows.
func csvRows(t testing.TB, path string, header []string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(recs) == 0 || !slices.Equal(recs[0], header) {
		t.Fatalf("%s: header %v, want %v", path, recs[0], header)
	}
	var rows []map[string]string
	for _, r := range recs[1:] {
		row := map[string]string{}
		for i, c := range header {
			row[c] = r[i]
		}
		rows = append(rows, row)
	}
	return rows
}

func num(t testing.TB, row map[string]string, col string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(row[col], 64)
	if err != nil {
		t.Fatalf("column %s: %q is not a number (row %v)", col, row[col], row)
	}
	return v
}

type eventLine struct {
	T, Host, Kind, Detail string
}

func readEvents(t testing.TB, dir string) []eventLine {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []eventLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e eventLine
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("events.jsonl line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func eventsOf(evs []eventLine, host, kind string) []eventLine {
	var out []eventLine
	for _, e := range evs {
		if e.Kind == kind && (host == "" || e.Host == host) {
			out = append(out, e)
		}
	}
	return out
}
