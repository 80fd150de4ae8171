package bench

import (
	"errors"
	"strings"
	"testing"
)

func TestDatasetSQL(t *testing.T) {
	d := DatasetSpec{Database: "sb`x", Tables: []string{"sbtest1"}}
	if got := d.CreateDatabaseSQL(); got != "CREATE DATABASE IF NOT EXISTS `sb``x`" {
		t.Errorf("create: %s", got)
	}
	if got := d.CountQuery("t`1"); got != "SELECT COUNT(*) FROM `sb``x`.`t``1`" {
		t.Errorf("count: %s", got)
	}
	q, args := d.TablesQuery()
	if !strings.Contains(q, "information_schema.TABLES") || !strings.Contains(q, "TABLE_SCHEMA = ?") ||
		strings.Contains(q, "sb`x") || len(args) != 1 || args[0] != "sb`x" {
		t.Errorf("tables query %q %v: the schema must be a placeholder argument", q, args)
	}
}

func TestDatasetCheck(t *testing.T) {
	spec := DatasetSpec{Database: "sbtest", Tables: []string{"sbtest1", "sbtest2"}, TableSize: 100, Engine: "rocksdb"}
	tests := []struct {
		name  string
		found []TableState
		want  string // "" = matches
	}{
		{"match, not counted", []TableState{{"sbtest1", "ROCKSDB", -1}, {"sbtest2", "ROCKSDB", -1}}, ""},
		{"match, counted, extra table ignored", []TableState{{"sbtest2", "RocksDB", 100}, {"sbtest1", "ROCKSDB", 100}, {"sbtest3", "InnoDB", 5}}, ""},
		{"empty schema", nil, "sbtest.sbtest1 is missing"},
		{"one missing", []TableState{{"sbtest1", "ROCKSDB", -1}}, "sbtest.sbtest2 is missing"},
		{"engine", []TableState{{"sbtest1", "InnoDB", -1}, {"sbtest2", "ROCKSDB", -1}}, "sbtest.sbtest1 uses engine InnoDB, not rocksdb"},
		{"rows after a run", []TableState{{"sbtest1", "ROCKSDB", 100}, {"sbtest2", "ROCKSDB", 4711}}, "sbtest.sbtest2 has 4711 rows, prepare leaves 100"},
	}
	for _, tc := range tests {
		err := spec.Check(tc.found)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.Is(err, ErrDatasetMismatch) || !strings.HasSuffix(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want …%s", tc.name, err, tc.want)
		}
	}
	// No engine in the spec: any engine will do.
	if err := (DatasetSpec{Database: "d", Tables: []string{"t"}}).Check([]TableState{{"t", "Aria", 0}}); err != nil {
		t.Errorf("engine-less spec: %v", err)
	}
	if err := (DatasetSpec{}).Check(nil); err == nil || errors.Is(err, ErrDatasetMismatch) {
		t.Errorf("empty spec: %v", err)
	}
}
