package replication

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

func TestTeardown(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	if _, err := f.verify(t, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	writes := f.m.localWrites
	f.clearLogs()
	res, err := Teardown(context.Background(), f.master, f.slaves, flavor.Params{}, nil)
	if err != nil {
		t.Fatalf("Teardown: %v", err)
	}
	if f.m.vars["rpl_semi_sync_master_enabled"] != "OFF" {
		t.Error("master semi-sync still on")
	}
	if _, ok := f.m.users["'repl'@'%'"]; ok || f.m.localWrites != writes {
		t.Errorf("account still there (%v) or dropped with binary logging on (%d writes, was %d)", ok, f.m.localWrites, writes)
	}
	// Semi-sync goes off on the master before any slave is touched, so no
	// write can wait for a slave that is going away.
	if l := f.logOf(f.m); !slices.Contains(l, "SET GLOBAL rpl_semi_sync_master_enabled = OFF") {
		t.Errorf("master received %q", l)
	}
	for _, s := range f.s {
		if s.replica != nil || s.vars["rpl_semi_sync_slave_enabled"] != "OFF" {
			t.Errorf("%s: replica %+v, semi-sync %s", s.name, s.replica, s.vars["rpl_semi_sync_slave_enabled"])
		}
		want := []string{"STOP SLAVE", "RESET SLAVE ALL", "SET GLOBAL rpl_semi_sync_slave_enabled = OFF"}
		if got := changes(f.logOf(s)); !slices.Equal(got, want) {
			t.Errorf("%s received %q, want %q", s.name, got, want)
		}
	}
	if names := stepNames(res); !slices.Equal(names, []string{
		"master/disable semi-sync/applied",
		"slave1/stop replica/applied", "slave1/disable semi-sync/applied",
		"slave2/stop replica/applied", "slave2/disable semi-sync/applied",
		"master/drop replication account/applied",
	}) {
		t.Errorf("steps %q", names)
	}

	st, err := GetStatus(context.Background(), f.master, f.slaves)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range append([]HostStatus{st.Master}, st.Slaves...) {
		if h.Replica != nil || h.SemiSync.Active || h.SemiSync.Enabled {
			t.Errorf("%s after teardown: replica %+v, semi-sync %+v", h.Name, h.Replica, h.SemiSync)
		}
	}

	// Twice: nothing left to undo, nothing sent.
	f.clearLogs()
	res, err = Teardown(context.Background(), f.master, f.slaves, flavor.Params{}, nil)
	if err != nil || res.Changed() {
		t.Fatalf("second Teardown: %v, changed %v", err, res.Changed())
	}
	for _, s := range f.c.servers {
		if c := changes(f.logOf(s)); len(c) > 0 {
			t.Errorf("second Teardown sent %q to %s", c, s.name)
		}
	}
}

func TestTeardownGoesOnPastFailures(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.s[0].failOn["STOP SLAVE"] = errors.New("Error 1227: denied")
	res, err := Teardown(context.Background(), f.master, f.slaves, flavor.Params{}, nil)
	if err == nil || err.Error() != "slave1 10.0.0.2: stop replica: STOP SLAVE: Error 1227: denied" {
		t.Fatalf("error: %v", err)
	}
	if f.s[1].replica != nil {
		t.Error("slave2 was not torn down")
	}
	if _, ok := f.m.users["'repl'@'%'"]; ok {
		t.Error("account not dropped")
	}
	if !res.Changed() {
		t.Error("result says nothing changed")
	}
}

func stepNames(res *Result) []string {
	var out []string
	for _, s := range res.Steps {
		host, _, _ := strings.Cut(s.Host, " ")
		out = append(out, host+"/"+s.Name+"/"+string(s.Action))
	}
	return out
}
