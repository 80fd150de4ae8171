package replication

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/topology"
)

const testPassword = "Test-pw'42"

var (
	mariadb = mustServer(flavor.MariaDB, flavor.V(10, 11, 19))
	mysql80 = mustServer(flavor.MySQL, flavor.V(8, 0, 36))
)

func mustServer(f flavor.Flavor, v flavor.Version) flavor.Server {
	s, err := flavor.New(f, v)
	if err != nil {
		panic(err)
	}
	return s
}

// fixture is a master and two slaves on a fakeCluster.
type fixture struct {
	c      *fakeCluster
	m      *fakeServer
	s      []*fakeServer
	master *server.Node
	slaves []*server.Node
}

func newFixture(t *testing.T, srv flavor.Server) *fixture {
	t.Helper()
	c := newFakeCluster(srv, "master", "slave1", "slave2")
	f := &fixture{c: c, m: c.servers[0], s: c.servers[1:]}
	for i, s := range c.servers {
		role := topology.RoleSlave
		if i == 0 {
			role = topology.RoleMaster
		}
		db := s.open()
		t.Cleanup(func() { db.Close() })
		n := &server.Node{Host: &topology.Host{Name: s.name, Role: role, Address: s.addr}, DB: db, Server: srv}
		if i == 0 {
			f.master = n
		} else {
			f.slaves = append(f.slaves, n)
		}
	}
	return f
}

func params() flavor.Params { return flavor.Params{ReplPassword: testPassword, Fresh: true} }

func (f *fixture) setup(t *testing.T) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	events := &step.Stream{}
	var said []step.Event
	events.Subscribe(func(e step.Event) { said = append(said, e) })
	res, err := Setup(ctx, f.master, f.slaves, params(), events)
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	// Every step is said on the stream, under its host's name, as it
	// begins and as it ends, with the time its record keeps.
	begun := map[string]bool{}
	ended := map[string]bool{}
	for _, e := range said {
		key := e.Host + "/" + e.Step
		switch e.Kind {
		case step.Began:
			begun[key] = true
		case step.Ended:
			ended[key+"/"+e.Took.String()] = true
		}
	}
	for _, r := range res.Steps {
		name, _, _ := strings.Cut(r.Host, " ")
		if !begun[name+"/"+r.Name] || !ended[name+"/"+r.Name+"/"+r.Took.String()] {
			t.Errorf("step %s on %s was not said as it began and ended (%d events)", r.Name, name, len(said))
		}
	}
	if len(said) != 2*len(res.Steps) {
		t.Errorf("%d events for %d steps", len(said), len(res.Steps))
	}
	return res
}

func (f *fixture) clearLogs() {
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	for _, s := range f.c.servers {
		s.log = nil
	}
}

// logOf returns what s received, under the cluster lock.
func (f *fixture) logOf(s *fakeServer) []string {
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	return slices.Clone(s.log)
}

var changing = regexp.MustCompile(`^(STOP|START|RESET|CHANGE|SET GLOBAL|INSTALL|CREATE|ALTER|GRANT|DROP|INSERT)\b`)

func changes(log []string) []string {
	var out []string
	for _, q := range log {
		if changing.MatchString(q) {
			out = append(out, q)
		}
	}
	return out
}

func stepsOf(res *Result, host string) map[string]step.Record {
	out := map[string]step.Record{}
	for _, s := range res.Steps {
		if strings.HasPrefix(s.Host, host+" ") {
			out[s.Name] = s
		}
	}
	return out
}

func TestSetupFromScratch(t *testing.T) {
	f := newFixture(t, mariadb)
	res := f.setup(t)

	m := stepsOf(res, "master")
	if m[StepAccount].Action != step.Applied || m[StepMasterSemiSync].Action != step.Applied {
		t.Fatalf("master steps: %+v", m)
	}
	if f.m.localWrites != 0 {
		t.Errorf("master binlogged %d writes while creating the account; want none", f.m.localWrites)
	}
	for k, want := range map[string]string{"rpl_semi_sync_master_wait_point": "AFTER_SYNC",
		"rpl_semi_sync_master_timeout": "1000000000000000000", "rpl_semi_sync_master_enabled": "ON"} {
		if got := f.m.vars[k]; got != want {
			t.Errorf("master %s = %q, want %q", k, got, want)
		}
	}
	for _, s := range f.s {
		st := stepsOf(res, s.name)[StepReplica]
		if st.Action != step.Applied || st.Reason != "not a replica" {
			t.Errorf("%s: step %+v", s.name, st)
		}
		got := changes(f.logOf(s))
		want := []string{"STOP SLAVE", "RESET SLAVE ALL", "RESET MASTER", "SET GLOBAL gtid_slave_pos = ''",
			"CHANGE MASTER TO MASTER_HOST = '10.0.0.1', MASTER_PORT = 3306, MASTER_USER = 'repl', MASTER_PASSWORD = 'Test-pw''42', MASTER_CONNECT_RETRY = 2, MASTER_USE_GTID = slave_pos",
			"SET GLOBAL rpl_semi_sync_slave_enabled = ON", "START SLAVE", "STOP SLAVE IO_THREAD", "START SLAVE IO_THREAD"}
		if !slices.Equal(got, want) {
			t.Errorf("%s received\n%q\nwant\n%q", s.name, got, want)
		}
		if io, _, msg := s.ioState(); io != "Yes" || !s.replica.semi {
			t.Errorf("%s: IO %s (%s), semi-sync registered %v", s.name, io, msg, s.replica.semi)
		}
	}
	if n := f.m.clients(); n != 2 {
		t.Errorf("master semi-sync clients %d, want 2", n)
	}
	js, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(js), "Test-pw") {
		t.Errorf("result JSON leaks the password: %s", js)
	}
	if !slices.Contains(res.Executed(), "slave2 10.0.0.3: CHANGE MASTER TO MASTER_HOST = '10.0.0.1', MASTER_PORT = 3306, MASTER_USER = 'repl', MASTER_PASSWORD = '<redacted>', MASTER_CONNECT_RETRY = 2, MASTER_USE_GTID = slave_pos") {
		t.Errorf("result lacks slave2's redacted CHANGE MASTER: %q", res.Executed())
	}
}

func TestSetupAgainChangesNothing(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.clearLogs()
	res := f.setup(t)

	if res.Changed() {
		t.Fatalf("second Setup changed something:\n%s", strings.Join(res.Executed(), "\n"))
	}
	for _, s := range f.s {
		if c := changes(f.logOf(s)); len(c) > 0 {
			t.Errorf("%s received changing statements on a re-run: %q", s.name, c)
		}
		if st := stepsOf(res, s.name)[StepReplica]; st.Action != step.Skipped || len(st.Statements) > 0 {
			t.Errorf("%s: %+v, want skipped", s.name, st)
		}
	}
	// Only the account is re-asserted (its password cannot be compared),
	// unlogged, so nothing replicates or waits for semi-sync.
	if st := stepsOf(res, "master")[StepMasterSemiSync]; st.Action != step.Skipped {
		t.Errorf("master semi-sync: %+v, want skipped", st)
	}
	for _, q := range changes(f.logOf(f.m)) {
		if !strings.Contains(q, "'repl'@'%'") {
			t.Errorf("master received %q on a re-run", q)
		}
	}
	if f.m.localWrites != 0 {
		t.Errorf("re-run binlogged %d writes on the master", f.m.localWrites)
	}
}

func TestSetupRepairsOnlySemiSync(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	// As after a restart without the setting in the config file.
	f.s[0].vars["rpl_semi_sync_slave_enabled"] = "OFF"
	f.s[0].replica.semi = false
	f.clearLogs()
	res := f.setup(t)

	st := stepsOf(res, "slave1")[StepReplicaSemiSync]
	want := []string{"SET GLOBAL rpl_semi_sync_slave_enabled = ON", "STOP SLAVE IO_THREAD", "START SLAVE IO_THREAD"}
	if st.Action != step.Applied || !slices.Equal(st.Statements, want) || !slices.Equal(changes(f.logOf(f.s[0])), want) {
		t.Fatalf("slave1: %+v, server received %q; want exactly %q", st, changes(f.logOf(f.s[0])), want)
	}
	if st := stepsOf(res, "slave2")[StepReplica]; st.Action != step.Skipped {
		t.Errorf("slave2: %+v, want skipped", st)
	}
	if n := f.m.clients(); n != 2 {
		t.Errorf("master semi-sync clients %d after repair, want 2", n)
	}
}

func TestSetupFreshOnlyForOtherMasters(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.s[0].replica.sql = false // stopped applier: same master, keep its data
	f.s[1].replica.io, f.s[1].replica.sql = false, false
	f.s[1].replica.host = "10.0.0.9" // another master: start afresh
	f.clearLogs()
	res := f.setup(t)

	s1, s2 := changes(f.logOf(f.s[0])), changes(f.logOf(f.s[1]))
	if slices.Contains(s1, "RESET MASTER") || !slices.Contains(s1, "RESET SLAVE ALL") {
		t.Errorf("slave1 (same master) received %q: want a re-point without RESET MASTER", s1)
	}
	if !slices.Contains(s2, "RESET MASTER") {
		t.Errorf("slave2 (other master) received %q: want RESET MASTER (Fresh)", s2)
	}
	if r := stepsOf(res, "slave1")[StepReplica].Reason; r != "Slave_SQL_Running=No" {
		t.Errorf("slave1 reason %q", r)
	}
	if r := stepsOf(res, "slave2")[StepReplica].Reason; r != "replicates from 10.0.0.9:3306, want 10.0.0.1:3306" {
		t.Errorf("slave2 reason %q", r)
	}
}

func TestSetupAggregatesSlaveErrors(t *testing.T) {
	f := newFixture(t, mariadb)
	f.s[0].failOn["START SLAVE"] = errors.New("Error 1200 (HY000): boom one")
	f.s[1].failOn["CHANGE MASTER"] = errors.New("Error 1064 (42000): boom two near 'Test-pw''42' at line 1")
	res, err := Setup(context.Background(), f.master, f.slaves, params(), nil)
	if err == nil {
		t.Fatal("Setup succeeded")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 ||
		lines[0] != "slave1 10.0.0.2: replica: START SLAVE: Error 1200 (HY000): boom one" ||
		!strings.HasPrefix(lines[1], "slave2 10.0.0.3: replica: CHANGE MASTER TO MASTER_HOST = '10.0.0.1', MASTER_PORT = 3306, MASTER_USER = 'repl', MASTER_PASSWORD = '<redacted>'") {
		t.Fatalf("error:\n%v", err)
	}
	if strings.Contains(err.Error(), "Test-pw") {
		t.Errorf("error leaks the password: %v", err)
	}
	for _, s := range []string{"slave1", "slave2"} {
		if st := stepsOf(res, s)[StepReplica]; st.Action != step.Failed || st.Error == "" {
			t.Errorf("%s: %+v, want a failed step", s, st)
		}
	}
	// A connection a failed plan ran on is discarded, never reused.
	if st := stepsOf(res, "slave1")[StepReplica]; !slices.Contains(st.Statements, "CHANGE MASTER TO MASTER_HOST = '10.0.0.1', MASTER_PORT = 3306, MASTER_USER = 'repl', MASTER_PASSWORD = '<redacted>', MASTER_CONNECT_RETRY = 2, MASTER_USE_GTID = slave_pos") {
		t.Errorf("slave1 step lacks the statements that ran before the failure: %q", st.Statements)
	}
}

func TestSetupMasterFailureLeavesSlavesAlone(t *testing.T) {
	f := newFixture(t, mariadb)
	f.m.failOn["GRANT"] = errors.New("Error 1045: denied")
	_, err := Setup(context.Background(), f.master, f.slaves, params(), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "master 10.0.0.1: replication account: GRANT REPLICATION SLAVE") {
		t.Fatalf("error: %v", err)
	}
	for _, s := range f.s {
		if l := f.logOf(s); len(l) > 0 {
			t.Errorf("%s was touched after the master failed: %q", s.name, l)
		}
	}
}

// With semi-sync already on in the master's config and no slave connected,
// any binlogged write hangs (the lab's ordering trap); Setup must not.
func TestSetupWithSemiSyncPersistedOnMaster(t *testing.T) {
	f := newFixture(t, mariadb)
	f.m.vars["rpl_semi_sync_master_enabled"] = "ON"
	f.m.vars["rpl_semi_sync_master_timeout"] = "1000000000000000000"
	f.setup(t)
	if f.m.localWrites != 0 || f.m.clients() != 2 {
		t.Fatalf("master: %d binlogged writes, %d clients", f.m.localWrites, f.m.clients())
	}
}

func TestSetupUnreachableMasterDoesNotHang(t *testing.T) {
	f := newFixture(t, mariadb)
	f.m.unreachable = true
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := Setup(ctx, f.master, f.slaves, params(), nil); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.HasPrefix(err.Error(), "master 10.0.0.1: connect: no answer within") {
			t.Fatalf("error: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Setup hangs on an unreachable master")
	}
}

func TestSetupMySQL8(t *testing.T) {
	f := newFixture(t, mysql80)
	p := params()
	p.WaitForReplicaCount = 2
	if _, err := Setup(context.Background(), f.master, f.slaves, p, nil); err != nil {
		t.Fatal(err)
	}
	if !f.m.plugins["rpl_semi_sync_source"] || f.m.vars["rpl_semi_sync_source_wait_for_replica_count"] != "2" {
		t.Errorf("master plugins %v, vars %v", f.m.plugins, f.m.vars)
	}
	for _, s := range f.s {
		if io, _, msg := s.ioState(); io != "Yes" || s.replica.gtidMode != "AUTO" || !s.replica.semi {
			t.Errorf("%s: IO %s %s, mode %s, semi %v", s.name, io, msg, s.replica.gtidMode, s.replica.semi)
		}
	}
	f.clearLogs()
	res, err := Setup(context.Background(), f.master, f.slaves, p, nil)
	if err != nil || res.Changed() {
		t.Fatalf("re-run: %v, changed %v:\n%s", err, res.Changed(), strings.Join(res.Executed(), "\n"))
	}
	for _, s := range f.s {
		if c := changes(f.logOf(s)); len(c) > 0 {
			t.Errorf("%s received %q on a re-run", s.name, c)
		}
	}
}

func TestSetupRejectsBadInput(t *testing.T) {
	f := newFixture(t, mariadb)
	mixed := newFixture(t, mysql80)
	for name, tc := range map[string]struct {
		master *server.Node
		slaves []*server.Node
		p      flavor.Params
		want   string
	}{
		"no slaves":     {f.master, nil, params(), "no slaves"},
		"no password":   {f.master, f.slaves, flavor.Params{}, "replication password is empty"},
		"other address": {f.master, f.slaves, flavor.Params{MasterHost: "10.1.1.1", ReplPassword: "x"}, "differs from the inventory's 10.0.0.1:3306"},
		"mixed flavors": {f.master, []*server.Node{mixed.slaves[0]}, params(), "incompatible GTIDs"},
		"nil slave":     {f.master, []*server.Node{nil}, params(), "slave 1: no host"},
		"not detected":  {&server.Node{Host: f.master.Host, DB: f.master.DB}, f.slaves, params(), "server flavour not detected"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Setup(context.Background(), tc.master, tc.slaves, tc.p, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestSetupReportsUnreadableSlave(t *testing.T) {
	f := newFixture(t, mariadb)
	f.s[1].failOn["SHOW SLAVE STATUS"] = errors.New("Error 1227 (42000): Access denied; you need the REPLICA MONITOR privilege")
	res, err := Setup(context.Background(), f.master, f.slaves, params(), nil)
	want := "slave2 10.0.0.3: replica: replica status: Error 1227 (42000): Access denied; you need the REPLICA MONITOR privilege (what replication setup had changed was undone)"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n%v\nwant\n%s", err, want)
	}
	if st := stepsOf(res, "slave2")[StepReplica]; st.Action != step.Failed || len(st.Statements) > 0 {
		t.Errorf("slave2 step %+v", st)
	}
	// The other slave was set up, then taken back with the master's part.
	s1 := stepsOf(res, "slave1")
	if s1[StepReplica].Action != step.Applied || s1["undo "+StepReplica].Action != step.Undone {
		t.Errorf("slave1 steps %+v: set up, then undone", s1)
	}
	if !res.Undone {
		t.Error("result not marked undone")
	}
}

// A Setup that fails on one slave leaves the cluster as it found it: the
// account it created dropped, the master's semi-sync settings at their
// old values, the slave it wired no replica again, with semi-sync off.
func TestSetupFailureTakesBackWhatItChanged(t *testing.T) {
	f := newFixture(t, mariadb)
	before := maps.Clone(f.m.vars)
	f.s[1].failOn["START SLAVE"] = errors.New("Error 1200 (HY000): cannot start")
	res, err := Setup(context.Background(), f.master, f.slaves, params(), nil)
	if err == nil || !strings.HasSuffix(err.Error(), "(what replication setup had changed was undone)") {
		t.Fatalf("error %v", err)
	}
	if _, ok := f.m.users["'repl'@'%'"]; ok || len(f.m.users) != 0 {
		t.Errorf("master accounts after the undo: %v", f.m.users)
	}
	for _, k := range []string{"rpl_semi_sync_master_enabled", "rpl_semi_sync_master_wait_point", "rpl_semi_sync_master_timeout"} {
		if f.m.vars[k] != before[k] {
			t.Errorf("master %s = %q after the undo, was %q", k, f.m.vars[k], before[k])
		}
	}
	if f.m.localWrites != 0 {
		t.Errorf("the undo binlogged %d writes on the master", f.m.localWrites)
	}
	for _, s := range f.s {
		if s.replica != nil {
			t.Errorf("%s still replicates from %s after the undo", s.name, s.replica.host)
		}
		if v := s.vars["rpl_semi_sync_slave_enabled"]; v != "OFF" {
			t.Errorf("%s semi-sync %q after the undo", s.name, v)
		}
	}
	// In the order they happened: the master's steps, the slaves' and
	// their undos, the master's undos last (the account after the slaves
	// stopped using it).
	var order []string
	for _, r := range res.Steps {
		order = append(order, strings.Fields(r.Host)[0]+" "+r.Name)
	}
	n := len(order)
	if n < 4 || order[0] != "master "+StepAccount || order[1] != "master "+StepMasterSemiSync ||
		order[n-2] != "master undo "+StepMasterSemiSync || order[n-1] != "master undo "+StepAccount {
		t.Errorf("steps in order %q", order)
	}
}

// What was already in place before a failing Setup stays: an account
// that existed, settings that held, a slave that replicated already.
func TestSetupFailureKeepsWhatWasThere(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.s[1].replica = nil // slave2 lost its replication
	f.s[1].failOn["CHANGE MASTER"] = errors.New("Error 1198 (HY000): busy")
	f.clearLogs()
	res, err := Setup(context.Background(), f.master, f.slaves, params(), nil)
	if err == nil || !strings.Contains(err.Error(), "slave2 10.0.0.3: replica: CHANGE MASTER") {
		t.Fatalf("error %v", err)
	}
	if _, ok := f.m.users["'repl'@'%'"]; !ok {
		t.Error("the account that existed before was dropped")
	}
	if f.m.vars["rpl_semi_sync_master_enabled"] != "ON" {
		t.Error("master semi-sync turned off though it was on before")
	}
	if io, _, _ := f.s[0].ioState(); io != "Yes" {
		t.Errorf("slave1, which replicated before, was touched: %q", changes(f.logOf(f.s[0])))
	}
	if got := changes(f.logOf(f.m)); slices.ContainsFunc(got, func(q string) bool { return strings.HasPrefix(q, "DROP") }) {
		t.Errorf("master received %q", got)
	}
	// slave2 half-ran its plan (STOP and RESET before the failed CHANGE):
	// its undo leaves it no replica, semi-sync off.
	if f.s[1].replica != nil {
		t.Errorf("slave2 replicates after the undo")
	}
	if st := stepsOf(res, "slave2")["undo "+StepReplica]; st.Action != step.Undone {
		t.Errorf("slave2 undo %+v", st)
	}
}

// TestSetupInterruptedIsTakenBack: a Ctrl-C while one slave does not
// answer stops the setup, and what it had done is still taken back: the
// interrupt must not stop the undoing (each time: the parallel undo once
// raced the cancelled context).
func TestSetupInterruptedIsTakenBack(t *testing.T) {
	for i := 0; i < 4; i++ {
		f := newFixture(t, mariadb)
		f.s[1].unreachable = true
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for {
				if io, _, _ := f.s[0].ioState(); io == "Yes" {
					cancel() // slave1 is wired; slave2 still hangs
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
		res, err := Setup(ctx, f.master, f.slaves, params(), nil)
		cancel()
		if err == nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v", err)
		}
		if f.s[0].replica != nil {
			t.Fatalf("round %d: slave1 still replicates after the interrupted setup: %+v", i, stepsOf(res, "slave1"))
		}
		if _, ok := f.m.users["'repl'@'%'"]; ok {
			t.Fatalf("round %d: the account made by the interrupted setup is still there", i)
		}
	}
}
