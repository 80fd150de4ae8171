package replication

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// verify runs Verify with a liveness guard: it must return on its own.
func (f *fixture) verify(t *testing.T, timeout time.Duration) (*Status, error) {
	t.Helper()
	type out struct {
		st  *Status
		err error
	}
	done := make(chan out, 1)
	go func() {
		st, err := Verify(context.Background(), f.master, f.slaves, timeout)
		done <- out{st, err}
	}()
	select {
	case o := <-done:
		return o.st, o.err
	case <-time.After(timeout + 20*time.Second):
		t.Fatal("Verify did not return")
		return nil, nil
	}
}

func TestVerifyHealthy(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	st, err := f.verify(t, 2*time.Second)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	c := st.Canary
	if c == nil || len(c.Token) != 24 || c.MasterGTID != "0-1-3" {
		t.Fatalf("canary %+v; want a token and the master at 0-1-3 (database, table, row)", c)
	}
	for i, s := range f.s {
		if !c.Slaves[i].Seen || !slices.Contains(s.tokens, c.Token) {
			t.Errorf("%s: canary %+v, tokens %q", s.name, c.Slaves[i], s.tokens)
		}
	}
	if cl := st.Master.SemiSync.Clients; cl == nil || *cl != 2 {
		t.Errorf("master clients %v", cl)
	}

	// A second Verify writes one row and no DDL.
	f.clearLogs()
	st2, err := f.verify(t, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if st2.Canary.Token == c.Token || st2.Canary.MasterGTID != "0-1-4" {
		t.Errorf("second canary %+v", st2.Canary)
	}
	if got := changes(f.logOf(f.m)); len(got) != 1 || !strings.HasPrefix(got[0], "INSERT INTO orch.canary") {
		t.Errorf("second Verify sent %q to the master", got)
	}
}

func TestVerifyNamesCutSlave(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.s[1].cut = true
	st, err := f.verify(t, 500*time.Millisecond)
	if err == nil {
		t.Fatal("Verify passed with slave2 cut off")
	}
	want := "slave2 10.0.0.3: Slave_IO_Running=Connecting: error 2003: error connecting to master 'repl@10.0.0.1:3306' - message: Can't connect"
	if !slices.Contains(strings.Split(err.Error(), "\n"), want) {
		t.Errorf("error lacks %q:\n%v", want, err)
	}
	if strings.Contains(err.Error(), "slave1") {
		t.Errorf("error blames slave1:\n%v", err)
	}
	if !strings.Contains(err.Error(), "master 10.0.0.1: semi-sync clients 1, want 2") {
		t.Errorf("error lacks the master's client count:\n%v", err)
	}
	if st == nil || st.Canary != nil {
		t.Errorf("status %+v: want one, without a canary", st)
	}
}

// A slave whose status looks healthy but applies nothing (a silent link
// loss: Seconds_Behind_Master 0, IO Yes) is caught by the canary alone.
func TestVerifyCatchesFrozenSlave(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.s[1].frozen = true
	st, err := f.verify(t, time.Second)
	if err == nil {
		t.Fatal("Verify passed with slave2 frozen")
	}
	want := regexp.MustCompile(`^slave2 10\.0\.0\.3: canary not applied within \ds: applied "", master at "0-1-3" \(3 transactions behind\)$`)
	if !want.MatchString(err.Error()) {
		t.Errorf("error\n%v\nwant it to match\n%s", err, want)
	}
	if !st.Canary.Slaves[0].Seen || st.Canary.Slaves[1].Seen {
		t.Errorf("canary arrivals %+v", st.Canary.Slaves)
	}
}

func TestVerifyUnreachableSlave(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.s[1].unreachable = true
	_, err := f.verify(t, 500*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "slave2 10.0.0.3: server facts: no answer within") {
		t.Fatalf("error: %v", err)
	}
	if strings.Contains(err.Error(), "slave1") {
		t.Errorf("error blames slave1:\n%v", err)
	}
}

// With no semi-sync slave, a canary write would block: Verify must not
// send one.
func TestVerifyNeverWritesWithoutClients(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.s[0].cut, f.s[1].cut = true, true
	f.clearLogs()
	if _, err := f.verify(t, 300*time.Millisecond); err == nil {
		t.Fatal("Verify passed with both slaves cut off")
	}
	for _, q := range f.logOf(f.m) {
		if strings.HasPrefix(q, "INSERT") || strings.HasPrefix(q, "CREATE") {
			t.Errorf("master received %q with no semi-sync client", q)
		}
	}
}

func TestVerifyWaitsForRecovery(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.c.mu.Lock()
	f.s[0].cut = true
	f.c.mu.Unlock()
	go func() {
		time.Sleep(300 * time.Millisecond)
		f.c.mu.Lock()
		f.s[0].cut = false
		f.c.mu.Unlock()
	}()
	if _, err := f.verify(t, 5*time.Second); err != nil {
		t.Fatalf("Verify did not wait for slave1 to reconnect: %v", err)
	}
}

func TestVerifyRejectsBadInput(t *testing.T) {
	f := newFixture(t, mariadb)
	if _, err := Verify(context.Background(), f.master, f.slaves, 0); err == nil {
		t.Error("zero timeout accepted")
	}
	if _, err := Verify(context.Background(), nil, f.slaves, time.Second); err == nil {
		t.Error("nil master accepted")
	}
}

// A verify whose time is up before the servers answered still reports what
// they say (the slave's IO error), not its own deadline: every poll has
// the time a probe needs, whatever is left of the verify's timeout.
func TestVerifyQuotesTheSlavesErrorAtTheDeadline(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.s[1].cut = true
	_, err := f.verify(t, time.Nanosecond)
	if err == nil || !strings.Contains(err.Error(), "slave2 10.0.0.3: Slave_IO_Running=Connecting: error 2003: error connecting to master") {
		t.Fatalf("error does not quote the slave's IO error:\n%v", err)
	}
	if strings.Contains(err.Error(), "no answer within") {
		t.Errorf("error blames the verify's own deadline:\n%v", err)
	}
}
