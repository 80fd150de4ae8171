package dataset

import (
	"context"
	"fmt"

	"github.com/orch-bench/orch/orchestrator/server"

	"github.com/orch-bench/orch/orchestrator"
)

// Consistency runs CHECKSUM TABLE and COUNT(*) on each table of database on
// the master and every slave (servers in parallel, tables one after another
// on each) and compares them with the master's. Run it once the slaves have
// caught up (WaitCaughtUp), or differences are only lag. With no tables
// given, the master's base tables of database are compared.
//
// A difference is a failed check in the report, not an error: the error is
// for servers that could not be asked (their values carry the error too,
// and the report is not OK).
func Consistency(ctx context.Context, master *server.Node, slaves []*server.Node, database string, tables []string) (*ConsistencyReport, error) {
	if err := checkNodes(master, slaves); err != nil {
		return nil, fmt.Errorf("consistency: %w", err)
	}
	if len(tables) == 0 {
		var err error
		if tables, err = baseTables(ctx, master, database); err != nil {
			return nil, err
		}
		if len(tables) == 0 {
			return nil, fmt.Errorf("%s: consistency: database %s has no tables", master, database)
		}
	}
	nodes := append([]*server.Node{master}, slaves...)
	vals := make([][]TableValues, len(nodes)) // [node][table]
	errs := orchestrator.ForEach(ctx, len(nodes), nodes, func(ctx context.Context, i int, n *server.Node) error {
		vals[i] = make([]TableValues, len(tables))
		var first error
		for j, t := range tables {
			v, err := tableValues(ctx, n, database, t)
			if err != nil {
				v.Error = err.Error()
				if first == nil {
					first = fmt.Errorf("%s: %w", n, err)
				}
			}
			vals[i][j] = v
		}
		return first
	})
	rep := &ConsistencyReport{OK: true, Database: database}
	for i, n := range nodes {
		rep.Hosts = append(rep.Hosts, n.String())
		if vals[i] == nil { // never started: ctx cancelled
			vals[i] = make([]TableValues, len(tables))
			for j := range tables {
				vals[i][j] = TableValues{Host: n.String(), Error: fmt.Sprint(errs[i])}
			}
		}
	}
	for j, t := range tables {
		row := make([]TableValues, len(nodes))
		for i := range nodes {
			row[i] = vals[i][j]
		}
		tc := compareValues(t, row)
		rep.OK = rep.OK && tc.OK
		rep.Tables = append(rep.Tables, tc)
	}
	return rep, orchestrator.Aggregate(errs)
}

// compareValues checks one table's values, the master's first, against
// the master's.
func compareValues(table string, row []TableValues) TableCheck {
	tc := TableCheck{Table: table, OK: true, Values: row}
	ref := row[0]
	if ref.Error != "" || !ref.Exists {
		tc.OK = false
		tc.Mismatches = append(tc.Mismatches, fmt.Sprintf("%s: %s", ref.Host, ref))
	}
	for _, v := range row[1:] {
		same := v.Error == "" && ref.Error == "" && v.Exists == ref.Exists && v.Rows == ref.Rows && v.Checksum == ref.Checksum
		if !same {
			tc.OK = false
			tc.Mismatches = append(tc.Mismatches, fmt.Sprintf("%s: %s (%s: %s)", v.Host, v, ref.Host, ref))
		}
	}
	return tc
}

// tableValues reads one table's checksum and row count on one server.
func tableValues(ctx context.Context, n *server.Node, database, table string) (TableValues, error) {
	v := TableValues{Host: n.String()}
	name, err := qualified(database, table)
	if err != nil {
		return v, err
	}
	// CHECKSUM TABLE answers NULL (with a warning) for a missing table,
	// where COUNT(*) would fail: ask it first.
	_, rows, err := queryRows(ctx, n.DB, ScanTimeout, "CHECKSUM TABLE "+name)
	if err != nil {
		return v, fmt.Errorf("checksum %s.%s: %w", database, table, err)
	}
	if len(rows) != 1 || len(rows[0]) < 2 {
		return v, fmt.Errorf("checksum %s.%s: unexpected result (%d rows)", database, table, len(rows))
	}
	if rows[0][1] == nil {
		return v, nil
	}
	v.Exists, v.Checksum = true, *rows[0][1]
	if v.Rows, err = countRows(ctx, n.DB, database, table); err != nil {
		return v, err
	}
	return v, nil
}

// baseTables lists the base tables of database on n, in name order.
func baseTables(ctx context.Context, n *server.Node, database string) ([]string, error) {
	_, rows, err := queryRows(ctx, n.DB, StatementTimeout,
		"SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME", database)
	if err != nil {
		return nil, fmt.Errorf("%s: list tables of %s: %w", n, database, err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, str(r[0]))
	}
	return out, nil
}
