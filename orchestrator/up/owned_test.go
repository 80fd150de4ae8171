package up

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/internal/fakemaria"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/topology"
)

func master(lab *fakemaria.Lab) *fakemaria.DB { return lab.Hosts[0].Server() }

// TestUpRefusesAReplicationAccountOrchDidNotMake (N1): a repl@'%' that
// orch's record does not list stops up before any host is configured;
// --adopt-accounts takes it over and says so.
func TestUpRefusesAReplicationAccountOrchDidNotMake(t *testing.T) {
	c, lab := fakeCluster(t)
	master(lab).AddUser("repl", "%")
	_, err := Up(context.Background(), c, upOpts())
	if err == nil || !strings.Contains(err.Error(), "account 'repl'@'%' exists and orch did not make it") || !strings.Contains(err.Error(), "--adopt-accounts") {
		t.Fatalf("up: %v", err)
	}
	for _, h := range lab.Hosts {
		if _, ok := h.File(fakemaria.ConfDir + "/99-orch.cnf"); ok {
			t.Errorf("%s configured although up refused", h.Short())
		}
	}
	opts := upOpts()
	opts.AdoptAccounts = true
	var said []string
	opts.Events = &step.Stream{}
	opts.Events.Subscribe(func(e step.Event) { said = append(said, e.Host+" "+e.Step) })
	if _, err := Up(context.Background(), c, opts); err != nil {
		t.Fatalf("up --adopt-accounts: %v", err)
	}
	if !hasPrefix(said, "db1 adopting account 'repl'@'%': sets its password") {
		t.Errorf("adopting not said: %q", said)
	}
	// Adopted, it is orch's: down drops it.
	if _, err := Down(context.Background(), c, nil); err != nil {
		t.Fatal(err)
	}
	if master(lab).HasUser("repl", "%") {
		t.Error("down kept the adopted account")
	}
}

// TestDownKeepsTheInventorysReplicationAccount (N2): an account the
// inventory names (replication.user) survives down, whoever made it; one
// orch made for an inventory that does not name it is dropped.
func TestDownKeepsTheInventorysReplicationAccount(t *testing.T) {
	c, lab := fakeCluster(t)
	if _, err := Up(context.Background(), c, upOpts()); err != nil {
		t.Fatal(err)
	}
	c.Inventory.Replication.UserNamed = true
	if _, err := Down(context.Background(), c, nil); err != nil {
		t.Fatal(err)
	}
	if !master(lab).HasUser("repl", "%") {
		t.Fatal("down dropped the inventory's replication account")
	}
	c.Inventory.Replication.UserNamed = false
	if _, err := Up(context.Background(), c, upOpts()); err != nil {
		t.Fatal(err)
	}
	if _, err := Down(context.Background(), c, nil); err != nil {
		t.Fatal(err)
	}
	if master(lab).HasUser("repl", "%") {
		t.Error("down kept the replication account orch made")
	}
}

// TestPurgeDropsOnlyWhatTheRecordLists (N2): a DBA's mysqlslap schema and
// table, there before orch, survive --purge with a line saying why; the
// schemas orch made (sbtest) and its canary go.
func TestPurgeDropsOnlyWhatTheRecordLists(t *testing.T) {
	c, lab := fakeCluster(t)
	master(lab).AddTable("mysqlslap", "dba_t")
	if _, err := Up(context.Background(), c, upOpts()); err != nil {
		t.Fatal(err)
	}
	rep, err := Purge(context.Background(), c, nil)
	if err != nil {
		t.Fatalf("purge: %v", err)
	}
	if !master(lab).HasTable("mysqlslap", "dba_t") {
		t.Error("purge dropped the DBA's table")
	}
	if master(lab).HasTable("orch", "canary") {
		t.Error("purge kept orch's canary")
	}
	text := strings.Join(rep.Purged, "\n")
	for _, want := range []string{"db1: kept schema `mysqlslap`: it existed before orch, with its tables dba_t", "db1: dropped schema `sbtest`", "db1: dropped schema `orch`"} {
		if !strings.Contains(text, want) {
			t.Errorf("purge lines lack %q:\n%s", want, text)
		}
	}
}

// TestPurgeKeepsAForeignTableInOrchsSchema: a DBA's table put inside a
// schema orch made (the review's mysqlslap.precious went with DROP
// DATABASE) keeps the schema, saying why; orch's tables in it go, and a
// schema holding only orch's and its benchmarks' tables goes whole.
func TestPurgeKeepsAForeignTableInOrchsSchema(t *testing.T) {
	c, lab := fakeCluster(t)
	if _, err := Up(context.Background(), c, upOpts()); err != nil {
		t.Fatal(err)
	}
	master(lab).AddTable("mysqlslap", "precious")
	master(lab).AddTable("mysqlslap", "t1")
	master(lab).AddTable("sbtest", "sbtest1")
	rep, err := Purge(context.Background(), c, nil)
	if err != nil {
		t.Fatalf("purge: %v", err)
	}
	if !master(lab).HasTable("mysqlslap", "precious") {
		t.Error("purge dropped the DBA's table in orch's schema")
	}
	if master(lab).HasTable("mysqlslap", "t1") || master(lab).HasTable("sbtest", "sbtest1") {
		t.Error("purge kept a benchmark's table")
	}
	text := strings.Join(rep.Purged, "\n")
	for _, want := range []string{"db1: kept schema `mysqlslap`: orch made it, but it holds tables orch did not make: precious (orch's tables in it were dropped)",
		"db1: dropped table `mysqlslap`.`t1`", "db1: dropped schema `sbtest`"} {
		if !strings.Contains(text, want) {
			t.Errorf("purge lines lack %q:\n%s", want, text)
		}
	}
}

// TestPurgeTrustsNoForgedRecord: a row an INSERT-only account adds to
// orch's record (the review's made purge drop a DBA's dba@'%' on all three
// servers) has no digest orch's key makes: purge drops nothing on that
// server, says why and fails, keeping orch's state for a later purge.
func TestPurgeTrustsNoForgedRecord(t *testing.T) {
	c, lab := fakeCluster(t)
	if _, err := Up(context.Background(), c, upOpts()); err != nil {
		t.Fatal(err)
	}
	master(lab).AddUser("dba", "%")
	master(lab).InsertRow("orch", "orch_owned", "account", "dba@%")
	rep, err := Purge(context.Background(), c, nil)
	if err == nil || !strings.Contains(err.Error(), "db1 192.0.2.11: purge: dropped nothing: orch's record holds 1 row(s) orch did not write (account 'dba'@'%')") {
		t.Fatalf("purge: %v", err)
	}
	if !master(lab).HasUser("dba", "%") {
		t.Fatal("purge dropped the account a forged row named")
	}
	if !master(lab).HasTable("orch", "canary") {
		t.Error("purge dropped something on the server whose record was forged")
	}
	if text := strings.Join(rep.Purged, "\n"); !strings.Contains(text, "db1: dropped nothing") {
		t.Errorf("purge lines:\n%s", text)
	}
}

// TestRefusedReplicationAccountLeavesNoPasswordFile: with the replication
// password orch's to make, a DBA's repl@'%' stops up before the password
// file exists, so the next identical up finds nothing of orch's to take as
// proof and stops the same way (the review's second up took it over).
func TestRefusedReplicationAccountLeavesNoPasswordFile(t *testing.T) {
	c, lab := fakeCluster(t)
	pwFile := filepath.Join(t.TempDir(), "state", account.ReplPasswordFile)
	c.Inventory.Replication.PasswordManaged = true
	c.Inventory.Replication.Password = topology.Secret{File: pwFile}
	master(lab).AddUser("repl", "%")
	for i := 1; i <= 2; i++ {
		_, err := Up(context.Background(), c, upOpts())
		if err == nil || !strings.Contains(err.Error(), "account 'repl'@'%' exists and orch did not make it") {
			t.Fatalf("up %d: %v", i, err)
		}
		if _, err := os.Stat(pwFile); err == nil {
			t.Fatalf("up %d was refused yet wrote the replication password file", i)
		}
	}
	// Once orch may make it (the DBA's account gone), up makes the file
	// and replicates with it.
	master(lab).DropUser("repl", "%")
	if _, err := Up(context.Background(), c, upOpts()); err != nil {
		t.Fatalf("up: %v", err)
	}
	if _, err := os.Stat(pwFile); err != nil {
		t.Errorf("no replication password file after a successful up: %v", err)
	}
}
