package sqlrows

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/orch-bench/orch/orchestrator/internal/sqlfake"
)

// server answers SHOW GLOBAL VARIABLES as MariaDB prints it (a NULL where a
// variable has no value) and refuses anything else.
type server struct{}

func (server) Handle(_ context.Context, q string) (sqlfake.Result, error) {
	if q != "SHOW GLOBAL VARIABLES LIKE 'gtid%'" {
		return sqlfake.Result{}, errors.New("unexpected " + q)
	}
	return sqlfake.Result{Cols: []string{"Variable_name", "Value"}, Rows: [][]any{
		{"gtid_binlog_pos", "0-1-42"}, {"GTID_Strict_Mode", "ON"}, {"gtid_slave_pos", nil}}}, nil
}

func TestQueryReadsTextAndNull(t *testing.T) {
	db := sqlfake.Open(func(context.Context) (sqlfake.Session, error) { return server{}, nil })
	defer db.Close()
	tb, err := Query(context.Background(), db, "SHOW GLOBAL VARIABLES LIKE 'gtid%'")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tb.Cols, []string{"Variable_name", "Value"}) || len(tb.Rows) != 3 || tb.Rows[2][1].Valid {
		t.Fatalf("table %+v", tb)
	}
	if tb.Value() != "gtid_binlog_pos" {
		t.Errorf("value %q", tb.Value())
	}
	want := map[string]string{"gtid_binlog_pos": "0-1-42", "gtid_strict_mode": "ON", "gtid_slave_pos": ""}
	if got := tb.NameValues(); !reflect.DeepEqual(got, want) {
		t.Errorf("name values %v", got)
	}
	if got := tb.Strings(); got[2][1] != "" || got[0][1] != "0-1-42" {
		t.Errorf("strings %v", got)
	}
	if _, err := Query(context.Background(), db, "SELECT 1"); err == nil {
		t.Error("an error of the server was lost")
	}
	if (Table{}).Value() != "" {
		t.Error("an empty result has a value")
	}
}
