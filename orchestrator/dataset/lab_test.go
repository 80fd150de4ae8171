package dataset

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/server"

	"github.com/orch-bench/orch/orchestrator/labenv"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/replication"
	"github.com/orch-bench/orch/topology"
)

// The lab test runs against a lab made by `orch lab up` and wired by
// `orch up`, and is skipped unless
//
//	ORCH_TEST_LAB_INVENTORY=/tmp/lab-dir/lab.yaml
//
// It creates and drops the orch_ds_* databases on the master (replicated),
// stops and restarts slave2's replication threads and deletes a row on
// slave2 without binary logging.

// Test databases: two InnoDB tables of 1000 rows, one RocksDB table.
const (
	labInno  = "orch_ds_inno"
	labRocks = "orch_ds_rocks"
	labRows  = 1000
)

type lab struct {
	master *server.Node
	slaves []*server.Node
	exs    map[string]executor.Executor
}

func needLab(t *testing.T) *lab {
	t.Helper()
	path := labenv.Inventory(t)
	inv, err := topology.Load(path, topology.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l := &lab{exs: map[string]executor.Executor{}}
	for _, h := range inv.DBHosts() {
		ex, err := executor.Dial(ctx, h, executor.DialConfig{KnownHostsFile: inv.KnownHostsFile})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ex.Close() })
		l.exs[h.Name] = ex
		n, err := server.Open(ctx, h, ex, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		if h.Role == topology.RoleMaster {
			l.master = n
		} else {
			l.slaves = append(l.slaves, n)
		}
	}
	if l.master == nil || len(l.slaves) != 2 {
		t.Fatalf("%s: want a master and two slaves", path)
	}
	st, err := replication.GetStatus(ctx, l.master, l.slaves)
	if err == nil {
		err = st.Err()
	}
	if err != nil {
		t.Fatalf("replication is not healthy (run orch up -i %s first): %v", path, err)
	}
	return l
}

// sql runs statements in order on one session of db.
func labSQL(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range stmts {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func sbtestDDL(db, table, engine string) []string {
	return []string{
		fmt.Sprintf("CREATE TABLE %s.%s (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, "+
			"c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', PRIMARY KEY (id), KEY k_1 (k)) ENGINE=%s", db, table, engine),
		fmt.Sprintf("INSERT INTO %s.%s (k, c, pad) SELECT seq %% 97, SHA2(seq, 256), MD5(seq) FROM %s.seq_1_to_%d", db, table, db, labRows),
	}
}

func (l *lab) createData(t *testing.T) {
	drop := []string{"DROP DATABASE IF EXISTS " + labInno, "DROP DATABASE IF EXISTS " + labRocks}
	labSQL(t, l.master.DB, drop...)
	t.Cleanup(func() {
		for _, s := range l.slaves {
			labSQL(t, s.DB, "START SLAVE")
		}
		labSQL(t, l.master.DB, drop...)
	})
	stmts := []string{"CREATE DATABASE " + labInno, "CREATE DATABASE " + labRocks}
	stmts = append(stmts, sbtestDDL(labInno, "sbtest1", "InnoDB")...)
	stmts = append(stmts, sbtestDDL(labInno, "sbtest2", "InnoDB")...)
	stmts = append(stmts, sbtestDDL(labRocks, "sbtest1", "ROCKSDB")...)
	labSQL(t, l.master.DB, stmts...)
}

func TestLab(t *testing.T) {
	l := needLab(t)
	l.createData(t)
	ctx := context.Background()
	nodes := append([]*server.Node{l.master}, l.slaves...)
	slave2 := l.slaves[1]

	t.Run("WaitCaughtUp", func(t *testing.T) {
		cu, err := WaitCaughtUp(ctx, l.master, l.slaves, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if cu.MasterGTID == "" || len(cu.Slaves) != 2 || !cu.Slaves[0].CaughtUp || !cu.Slaves[1].CaughtUp {
			t.Fatalf("catch-up: %+v", cu)
		}
	})

	t.Run("Matches", func(t *testing.T) {
		spec := Spec{Database: labInno, Tables: 2, TableSize: labRows, Engine: "innodb"}
		for _, n := range nodes { // replicated: every server holds it
			ok, why, err := Matches(ctx, n.DB, spec)
			if err != nil || !ok || !strings.Contains(why, "with 1000 rows each") {
				t.Fatalf("%s: Matches = %v %q %v", n, ok, why, err)
			}
		}
		if ok, why, err := Matches(ctx, l.master.DB, Spec{Database: labRocks, Tables: 1, Engine: "RocksDB"}); err != nil || !ok {
			t.Fatalf("rocksdb: %v %q %v", ok, why, err)
		}
		for _, c := range []struct {
			spec Spec
			want string
		}{
			{Spec{Database: labInno, Tables: 3}, "sbtest3 missing (2 of 3 tables present)"},
			{Spec{Database: labInno, Tables: 1}, "sbtest2 present beyond the 1 tables wanted"},
			{Spec{Database: labInno, Tables: 2, Engine: "rocksdb"}, "sbtest1 is InnoDB, want rocksdb"},
			{Spec{Database: labInno, Tables: 2, TableSize: 5000}, "orch_ds_inno.sbtest1 has 1000 rows, want 5000"},
			{Spec{Database: "orch_ds_nope", Tables: 2}, "database orch_ds_nope does not exist"},
		} {
			ok, why, err := Matches(ctx, l.master.DB, c.spec)
			if err != nil || ok || !strings.Contains(why, c.want) {
				t.Errorf("%+v: Matches = %v %q %v, want false with %q", c.spec, ok, why, err, c.want)
			}
		}
	})

	t.Run("ConsistencyOK", func(t *testing.T) {
		rep, err := Consistency(ctx, l.master, l.slaves, labInno, []string{"sbtest1", "sbtest2"})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK || len(rep.Tables) != 2 || len(rep.Hosts) != 3 {
			t.Fatalf("consistency: %+v\n%s", rep, rep.Summary())
		}
		for _, tc := range rep.Tables {
			for _, v := range tc.Values {
				if !v.Exists || v.Rows != labRows || v.Checksum == "" || v.Checksum == "0" {
					t.Fatalf("%s on %s: %+v", tc.Table, v.Host, v)
				}
			}
		}
		// No tables named: the master's tables of the database.
		rep, err = Consistency(ctx, l.master, l.slaves, labRocks, nil)
		if err != nil || !rep.OK || len(rep.Tables) != 1 || rep.Tables[0].Values[2].Rows != labRows {
			t.Fatalf("rocksdb consistency: %+v %v", rep, err)
		}
	})

	t.Run("Sizes", func(t *testing.T) {
		inno, err := Sizes(ctx, l.master.DB, labInno, SizeOptions{Exec: l.exs[l.master.Host.Name], Refresh: true})
		if err != nil {
			t.Fatal(err)
		}
		rocks, err := Sizes(ctx, l.master.DB, labRocks, SizeOptions{Exec: l.exs[l.master.Host.Name], Refresh: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("innodb: %d+%d bytes, rocksdb: %d+%d bytes, datadir %d bytes, paths %v",
			inno.DataBytes, inno.IndexBytes, rocks.DataBytes, rocks.IndexBytes, rocks.DatadirBytes, rocks.Paths)
		if len(inno.Tables) != 2 || len(inno.Engines) != 1 || inno.Engines[0].Engine != "innodb" || inno.Engines[0].Tables != 2 {
			t.Fatalf("innodb report: %+v", inno)
		}
		// 1000 rows of ~250 bytes: at least 100 KB each, and well under 10 MB.
		for _, ts := range inno.Tables {
			if ts.DataBytes < 100<<10 || ts.DataBytes > 10<<20 || ts.IndexBytes <= 0 {
				t.Errorf("innodb %s: %+v", ts.Table, ts)
			}
		}
		if len(rocks.Tables) != 1 || rocks.Tables[0].Engine != "rocksdb" || rocks.Tables[0].DataBytes <= 0 || rocks.Tables[0].DataBytes > 10<<20 {
			t.Fatalf("rocksdb report (memtable not flushed?): %+v", rocks.Tables)
		}
		if rocks.DatadirSource != SourceDu || rocks.DatadirBytes <= inno.DataBytes+rocks.DataBytes ||
			rocks.Paths["#rocksdb"] < rocks.DataBytes || inno.Paths[labInno] < inno.DataBytes {
			t.Fatalf("datadir: %+v / %+v", rocks, inno.Paths)
		}
		// Tables on disk per engine, from the files; the logs apart.
		if inno.EngineDiskBytes["innodb"] < inno.DataBytes || rocks.EngineDiskBytes["rocksdb"] < rocks.DataBytes ||
			inno.BinlogBytes <= 0 {
			t.Errorf("on disk: innodb %v binlog %d / rocksdb %v", inno.EngineDiskBytes, inno.BinlogBytes, rocks.EngineDiskBytes)
		}
		// Without an executor the catalogue stands in for du.
		cat, err := Sizes(ctx, l.slaves[0].DB, labInno, SizeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cat.DatadirSource != SourceCatalog || cat.DatadirBytes < cat.DataBytes+cat.IndexBytes {
			t.Fatalf("catalogue datadir: %+v", cat)
		}
	})

	t.Run("ViewBeyondAndFileNames", func(t *testing.T) {
		// A view named like a benchmark table beyond those wanted is the
		// user's: the dataset still matches (DropBeyond leaves views, so
		// counting it made every run prepare again).
		labSQL(t, l.master.DB, "CREATE VIEW "+labInno+".sbtest9 AS SELECT 1 AS one")
		defer labSQL(t, l.master.DB, "DROP VIEW "+labInno+".sbtest9")
		if ok, why, err := Matches(ctx, l.master.DB, Spec{Database: labInno, Tables: 2, TableSize: labRows}); err != nil || !ok {
			t.Errorf("a view sbtest9 beside sbtest1-2: Matches = %v %q %v", ok, why, err)
		}
		// A schema whose name the server encodes on disk: '$' is @0024.
		const odd = "orch_ds$odd"
		labSQL(t, l.master.DB, "CREATE DATABASE `"+odd+"`",
			"CREATE TABLE `"+odd+"`.sbtest1 (id INT PRIMARY KEY, pad CHAR(200) NOT NULL) ENGINE=InnoDB",
			"INSERT INTO `"+odd+"`.sbtest1 SELECT seq, REPEAT('x', 200) FROM "+labInno+".seq_1_to_2000")
		defer labSQL(t, l.master.DB, "DROP DATABASE `"+odd+"`")
		rep, err := Sizes(ctx, l.master.DB, odd, SizeOptions{Exec: l.exs[l.master.Host.Name], Refresh: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: paths %v, engines %v", odd, rep.Paths, rep.EngineDiskBytes)
		if rep.DatadirSource != SourceDu || rep.Paths["orch_ds@0024odd"] < 64<<10 || rep.EngineDiskBytes["innodb"] < 64<<10 {
			t.Errorf("%s measured on disk: paths %v, engines %v; want its directory orch_ds@0024odd and its .ibd", odd, rep.Paths, rep.EngineDiskBytes)
		}
	})

	t.Run("WaitCaughtUpFailures", func(t *testing.T) {
		if _, err := WaitCaughtUp(ctx, l.master, l.slaves, time.Minute); err != nil {
			t.Fatal(err)
		}
		// SQL thread stopped: it can never catch up, so the wait fails
		// without using up its timeout.
		labSQL(t, slave2.DB, "STOP SLAVE SQL_THREAD")
		labSQL(t, l.master.DB, "INSERT INTO "+labInno+".sbtest1 (k) VALUES (1)")
		cu, err := WaitCaughtUp(ctx, l.master, l.slaves, 5*time.Minute)
		if err == nil {
			t.Fatal("a slave with its SQL thread stopped caught up")
		}
		for _, want := range []string{slave2.String(), "Slave_SQL_Running=No", "1 transaction behind the master"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
		if strings.Contains(err.Error(), l.slaves[0].String()) || !cu.Slaves[0].CaughtUp || cu.Slaves[1].CaughtUp {
			t.Fatalf("only slave2 is behind: %v / %+v", err, cu.Slaves)
		}
		// IO thread stopped: the slave might still get there, so it is
		// given the whole timeout.
		t.Logf("SQL thread stopped: %v", err)
		labSQL(t, slave2.DB, "START SLAVE SQL_THREAD", "STOP SLAVE IO_THREAD")
		labSQL(t, l.master.DB, "INSERT INTO "+labInno+".sbtest1 (k) VALUES (2)")
		_, err = WaitCaughtUp(ctx, l.master, l.slaves, 3*time.Second)
		if err == nil || !strings.Contains(err.Error(), slave2.String()+": has not applied the master's GTID") ||
			!strings.Contains(err.Error(), "within 3s") || !strings.Contains(err.Error(), "1 transaction behind") {
			t.Fatalf("IO thread stopped: %v", err)
		}
		t.Logf("IO thread stopped: %v", err)
		labSQL(t, slave2.DB, "START SLAVE IO_THREAD")
		if _, err := WaitCaughtUp(ctx, l.master, l.slaves, time.Minute); err != nil {
			t.Fatalf("after restarting replication: %v", err)
		}
	})

	t.Run("ConsistencyBroken", func(t *testing.T) {
		labSQL(t, slave2.DB, "SET SESSION sql_log_bin = 0", "DELETE FROM "+labInno+".sbtest2 WHERE id = 1")
		rep, err := Consistency(ctx, l.master, l.slaves, labInno, []string{"sbtest1", "sbtest2"})
		if err != nil {
			t.Fatal(err)
		}
		if rep.OK {
			t.Fatalf("a deleted row on slave2 went unnoticed: %+v", rep)
		}
		bad := rep.Mismatched()
		if len(bad) != 1 || bad[0].Table != "sbtest2" || len(bad[0].Mismatches) != 1 ||
			!strings.HasPrefix(bad[0].Mismatches[0], slave2.String()+": 999 rows") {
			t.Fatalf("mismatches: %+v", bad)
		}
		t.Logf("summary: %s", rep.Summary())
	})
}
