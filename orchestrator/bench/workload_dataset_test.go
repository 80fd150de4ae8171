package bench

import "testing"

func TestDatasetSQL(t *testing.T) {
	d := DatasetSpec{Database: "sb`x", Tables: []string{"sbtest1"}}
	if got := d.CreateDatabaseSQL(); got != "CREATE DATABASE IF NOT EXISTS `sb``x`" {
		t.Errorf("create: %s", got)
	}
}

// What the tables hold at the start, as the report's head says it: an
// oltp_insert with auto_inc off starts empty whatever table_size says.
func TestStartingData(t *testing.T) {
	for _, tc := range []struct{ workload, want string }{
		{`{tool: sysbench, test: oltp_insert, options: {tables: 8, table_size: 1000000, auto_inc: false}}`,
			"8 tables (sbtest1..sbtest8) start empty: oltp_insert with auto_inc=off prepares no rows whatever table_size says " +
				"(table_size=1000000 only bounds the values of column k)"},
		{`{tool: sysbench, test: oltp_insert, options: {tables: 2, table_size: 500}}`, "2 tables (sbtest1..sbtest2) of 500 rows each at the start"},
		{`{tool: sysbench, test: oltp_read_write}`, "sbtest1 of 10000 rows at the start"},
		{`{tool: sysbench, test: oltp_insert, prepare: false, options: {auto_inc: false}}`, ""},
		{`{tool: sysbench, test: bulk_insert}`, ""},
	} {
		if got := StartingData(mustWorkload(t, tc.workload)); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.workload, got, tc.want)
		}
	}
}
