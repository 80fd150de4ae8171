package dataset

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// replicaSet is a master and two slaves holding the same two benchmark
// tables (and a view, which is not a table to compare).
func replicaSet(t *testing.T) (srvs []*mariaCatalog, master *server.Node, slaves []*server.Node) {
	for i, name := range []string{"db1", "db2", "db3"} {
		srv := newMariaCatalog()
		// Listed out of name order, as the catalogue may.
		srv.add(&mariaTable{schema: "sbtest", name: "sbtest2", engine: "InnoDB", count: 1000, checksum: "3581106470"})
		srv.add(&mariaTable{schema: "sbtest", name: "sbtest1", engine: "InnoDB", count: 1000, checksum: "1203445821"})
		srv.add(&mariaTable{schema: "sbtest", name: "sbtest_v", kind: "VIEW"})
		role := topology.RoleSlave
		if i == 0 {
			role = topology.RoleMaster
		}
		n := &server.Node{Host: &topology.Host{Name: name, Role: role, Address: "192.0.2.1" + string(rune('1'+i))}, DB: openCatalog(t, srv)}
		srvs = append(srvs, srv)
		if i == 0 {
			master = n
		} else {
			slaves = append(slaves, n)
		}
	}
	return srvs, master, slaves
}

// Every server agrees: the report is OK, with every server's values, the
// master first; with no tables named, the master's base tables in name
// order are compared.
func TestConsistencyAgrees(t *testing.T) {
	_, master, slaves := replicaSet(t)
	rep, err := Consistency(context.Background(), master, slaves, "sbtest", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.Database != "sbtest" || rep.Summary() != "" || rep.Mismatched() != nil {
		t.Fatalf("report %+v", rep)
	}
	if want := []string{"db1 192.0.2.11", "db2 192.0.2.12", "db3 192.0.2.13"}; !slices.Equal(rep.Hosts, want) {
		t.Errorf("hosts %v, want %v", rep.Hosts, want)
	}
	if len(rep.Tables) != 2 || rep.Tables[0].Table != "sbtest1" || rep.Tables[1].Table != "sbtest2" {
		t.Fatalf("tables %+v, want sbtest1 and sbtest2", rep.Tables)
	}
	for _, tc := range rep.Tables {
		for i, v := range tc.Values {
			if v.Host != rep.Hosts[i] || !v.Exists || v.Rows != 1000 || v.Checksum == "" || v.Error != "" {
				t.Errorf("%s on %s: %+v", tc.Table, rep.Hosts[i], v)
			}
		}
	}
	if rep.Tables[0].Values[2].Checksum != "1203445821" || rep.Tables[1].Values[1].Checksum != "3581106470" {
		t.Errorf("checksums not the servers': %+v", rep.Tables)
	}
}

// A slave that lost a row, and one that lacks a table, fail their checks
// and are named; the difference is a finding, not an error. A missing
// table is not counted (COUNT(*) would fail on it).
func TestConsistencyFindsDifferences(t *testing.T) {
	srvs, master, slaves := replicaSet(t)
	t2 := srvs[2].find("sbtest", "sbtest2")
	t2.count, t2.checksum = 999, "2931760118"
	srvs[1].mu.Lock()
	srvs[1].tables = slices.DeleteFunc(srvs[1].tables, func(t *mariaTable) bool { return t.name == "sbtest1" })
	srvs[1].mu.Unlock()

	rep, err := Consistency(context.Background(), master, slaves, "sbtest", []string{"sbtest1", "sbtest2"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK {
		t.Fatal("differences went unnoticed")
	}
	bad := rep.Mismatched()
	if len(bad) != 2 || len(bad[0].Mismatches) != 1 || len(bad[1].Mismatches) != 1 {
		t.Fatalf("mismatches %+v", bad)
	}
	m1, m2 := bad[0].Mismatches[0], bad[1].Mismatches[0]
	if bad[0].Table != "sbtest1" || !strings.HasPrefix(m1, "db2 192.0.2.12: ") || containsAll(m1, "no such table", "1000 rows", "1203445821") != "" {
		t.Errorf("sbtest1: %q", m1)
	}
	if bad[1].Table != "sbtest2" || !strings.HasPrefix(m2, "db3 192.0.2.13: ") || containsAll(m2, "999 rows", "2931760118", "1000 rows", "3581106470") != "" {
		t.Errorf("sbtest2: %q", m2)
	}
	if v := bad[0].Values[1]; v.Exists || v.Error != "" {
		t.Errorf("missing table on db2: %+v", v)
	}
	if got := srvs[1].scanned(); !slices.Equal(got, []string{"sbtest.sbtest2"}) {
		t.Errorf("db2 counted %v, want only the table it has", got)
	}
	sum := rep.Summary()
	if strings.Count(sum, "\n") != 2 || !strings.Contains(sum, "sbtest.sbtest1: db2") || !strings.Contains(sum, "sbtest.sbtest2: db3") {
		t.Errorf("summary:\n%s", sum)
	}
}

// A server that cannot be asked is an error naming it and the table; its
// values carry the error and the report is not OK, while the other
// servers and tables are still compared.
func TestConsistencyUnreadableServer(t *testing.T) {
	srvs, master, slaves := replicaSet(t)
	srvs[1].refuse = func(q string) error {
		if strings.HasPrefix(q, "CHECKSUM TABLE") && strings.Contains(q, "`sbtest1`") {
			return errLostConnection
		}
		return nil
	}
	rep, err := Consistency(context.Background(), master, slaves, "sbtest", []string{"sbtest1", "sbtest2"})
	if err == nil || containsAll(err.Error(), "db2 192.0.2.12", "sbtest1", "Lost connection") != "" || strings.Contains(err.Error(), "db3") {
		t.Fatalf("error %v", err)
	}
	if rep == nil || rep.OK || rep.Tables[0].OK || !rep.Tables[1].OK {
		t.Fatalf("report %+v", rep)
	}
	if v := rep.Tables[0].Values[1]; v.Error == "" || !strings.Contains(v.Error, "Lost connection") {
		t.Errorf("db2's sbtest1: %+v", v)
	}

	// COUNT(*) failing after the checksum: the same.
	srvs, master, slaves = replicaSet(t)
	srvs[2].refuse = func(q string) error {
		if strings.HasPrefix(q, "SELECT COUNT(*)") {
			return errLostConnection
		}
		return nil
	}
	if _, err := Consistency(context.Background(), master, slaves, "sbtest", []string{"sbtest2"}); err == nil ||
		containsAll(err.Error(), "db3 192.0.2.13", "sbtest2") != "" {
		t.Errorf("count failing: %v", err)
	}
}

// Nothing to compare, or a master that cannot list its tables, is an error
// naming the master; a missing server is refused before any is asked.
func TestConsistencyRefusals(t *testing.T) {
	ctx := context.Background()
	srvs, master, slaves := replicaSet(t)
	if _, err := Consistency(ctx, master, slaves, "nothing_here", nil); err == nil ||
		containsAll(err.Error(), "db1 192.0.2.11", "nothing_here") != "" {
		t.Errorf("no tables: %v", err)
	}
	srvs[0].refuse = func(q string) error {
		if strings.Contains(q, "information_schema.TABLES") {
			return errLostConnection
		}
		return nil
	}
	if _, err := Consistency(ctx, master, slaves, "sbtest", nil); err == nil ||
		containsAll(err.Error(), "db1 192.0.2.11", "Lost connection") != "" {
		t.Errorf("listing failed: %v", err)
	}
	srvs[0].refuse = nil

	before := len(srvs[0].received(""))
	for _, c := range []struct {
		master *server.Node
		slaves []*server.Node
		want   string
	}{
		{nil, slaves, "master"},
		{master, []*server.Node{slaves[0], nil}, "slave 2"},
		{master, []*server.Node{{Host: slaves[0].Host}}, "slave 1"},
	} {
		if _, err := Consistency(ctx, c.master, c.slaves, "sbtest", nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error naming %s, got %v", c.want, err)
		}
	}
	if got := len(srvs[0].received("")); got != before {
		t.Errorf("%d statements sent to the master for an incomplete set of servers", got-before)
	}

	// Cancelled: no server is asked to finish; every value says so.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	rep, err := Consistency(cctx, master, slaves, "sbtest", []string{"sbtest1"})
	if err == nil || rep == nil || rep.OK {
		t.Fatalf("cancelled: %+v %v", rep, err)
	}
	for i, v := range rep.Tables[0].Values {
		if v.Error == "" || v.Host != rep.Hosts[i] {
			t.Errorf("cancelled, %s: %+v", rep.Hosts[i], v)
		}
	}
}
