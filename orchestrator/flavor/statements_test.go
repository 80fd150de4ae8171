package flavor

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func testParams() Params {
	return Params{MasterHost: "10.0.0.1", ReplPassword: "s3cret", Fresh: true}
}

func mustServer(t *testing.T, f Flavor, v Version) Server {
	t.Helper()
	s, err := New(f, v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestResolveDefaults(t *testing.T) {
	p, err := Params{MasterHost: "db1", ReplPassword: "x", WaitPoint: " after_commit "}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if p.MasterPort != 3306 || p.ReplUser != "repl" || p.ReplHost != "%" ||
		p.SemiSyncTimeoutMS != 1000000000000000000 || p.WaitPoint != "AFTER_COMMIT" || p.WaitForReplicaCount != 2 {
		t.Errorf("defaults not applied: %+v", p)
	}
}

func TestResolveRejectsBadParams(t *testing.T) {
	ok := testParams()
	for name, tt := range map[string]struct {
		mod  func(*Params)
		want string
	}{
		"no host":       {func(p *Params) { p.MasterHost = "" }, "master host is empty"},
		"port":          {func(p *Params) { p.MasterPort = 70000 }, "master port 70000"},
		"negative port": {func(p *Params) { p.MasterPort = -1 }, "master port -1"},
		"long user":     {func(p *Params) { p.ReplUser = strings.Repeat("u", 33) }, "33 characters"},
		"no password":   {func(p *Params) { p.ReplPassword = "" }, "password is empty"},
		"nul password":  {func(p *Params) { p.ReplPassword = "a\x00b" }, "password contains a NUL"},
		"bad utf8 host": {func(p *Params) { p.MasterHost = "\xff" }, "master host is not valid UTF-8"},
		"wait point":    {func(p *Params) { p.WaitPoint = "AFTER_SYNC; DROP" }, "wait point"},
		"count":         {func(p *Params) { p.WaitForReplicaCount = -1 }, "replica count -1"},
	} {
		p := ok
		tt.mod(&p)
		_, err := p.Resolve()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", name, err, tt.want)
		}
		s := mustServer(t, MariaDB, V(10, 11, 19))
		if _, err := s.SlaveSetup(p); err == nil || !strings.Contains(err.Error(), "MariaDB 10.11.19: replication parameters") {
			t.Errorf("%s: SlaveSetup error %v lacks context", name, err)
		}
	}
}

// hostile values for every string parameter.
func hostileParams() Params {
	return Params{
		MasterHost:   "db'1\\",
		ReplUser:     "re'pl",
		ReplHost:     "10.%'",
		ReplPassword: `p'a\ss"; DROP USER root; -- ` + "\n",
		Fresh:        true,
	}
}

// literalAfter reads the string literal that follows marker in sql.
func literalAfter(t *testing.T, sql, marker string) (value, rest string) {
	t.Helper()
	i := strings.Index(sql, marker)
	if i < 0 {
		t.Fatalf("%q not in %q", marker, sql)
	}
	return readLiteral(t, sql[i+len(marker):], false)
}

func TestHostileValuesAreQuotedAndRedacted(t *testing.T) {
	p := hostileParams()
	for _, s := range []Server{
		mustServer(t, MariaDB, V(10, 11, 19)), mustServer(t, MySQL, V(5, 7, 44)),
		mustServer(t, MySQL, V(8, 0, 21)), mustServer(t, MySQL, V(8, 4, 3)),
	} {
		master, err := s.MasterSetup(p)
		if err != nil {
			t.Fatal(err)
		}
		slave, err := s.SlaveSetup(p)
		if err != nil {
			t.Fatal(err)
		}
		secrets := 0
		for _, st := range append(master, slave...) {
			printed := []string{st.String(), fmt.Sprint(st), fmt.Sprintf("%+v", st), fmt.Sprintf("%#v", st), st.Redacted}
			js, _ := json.Marshal(st)
			printed = append(printed, string(js))
			for _, out := range printed {
				if strings.Contains(out, "ss\"; DROP USER") {
					t.Errorf("%v: password leaks into %q", s, out)
				}
			}
			if st.Secret != strings.Contains(st.SQL, "DROP USER") {
				t.Errorf("%v: Secret=%t for %q", s, st.Secret, st.Redacted)
			}
			if st.Secret {
				secrets++
				if !strings.Contains(st.Redacted, "'<redacted>'") {
					t.Errorf("%v: no placeholder in %q", s, st.Redacted)
				}
			} else if st.SQL != st.Redacted {
				t.Errorf("%v: non-secret statement differs when redacted: %q", s, st.Redacted)
			}
		}
		if secrets != 3 { // CREATE USER, ALTER USER, CHANGE ... TO
			t.Errorf("%v: %d secret statements, want 3", s, secrets)
		}

		// The exact values come back out of the literals, and each literal
		// ends where the statement expects it to.
		create := master[indexOf(t, master, "CREATE USER")].SQL
		if u, rest := literalAfter(t, create, "CREATE USER IF NOT EXISTS "); u != p.ReplUser || !strings.HasPrefix(rest, "@") {
			t.Errorf("%v: user literal %q, rest %q", s, u, rest)
		}
		if h, rest := literalAfter(t, create, "@"); h != p.ReplHost || !strings.HasPrefix(rest, " IDENTIFIED BY ") {
			t.Errorf("%v: account host literal %q, rest %q", s, h, rest)
		}
		if pw, rest := literalAfter(t, create, "IDENTIFIED BY "); pw != p.ReplPassword || rest != "" {
			t.Errorf("%v: password literal %q, rest %q", s, pw, rest)
		}
		var change string
		for _, st := range slave {
			if strings.HasPrefix(st.SQL, "CHANGE ") {
				change = st.SQL
			}
		}
		pre := s.value(SourceOptionPrefix)
		if h, rest := literalAfter(t, change, pre+"HOST = "); h != p.MasterHost || !strings.HasPrefix(rest, ", "+pre+"PORT = 3306, ") {
			t.Errorf("%v: master host literal %q, rest %q", s, h, rest)
		}
		if pw, rest := literalAfter(t, change, pre+"PASSWORD = "); pw != p.ReplPassword || !strings.HasPrefix(rest, ", ") {
			t.Errorf("%v: password literal %q, rest %q", s, pw, rest)
		}
	}
}

func indexOf(t *testing.T, sts []Statement, prefix string) int {
	t.Helper()
	for i, st := range sts {
		if strings.HasPrefix(st.SQL, prefix) {
			return i
		}
	}
	t.Fatalf("no statement starting %q in %v", prefix, sts)
	return -1
}

func TestMasterSetupOrder(t *testing.T) {
	for _, s := range []Server{mustServer(t, MariaDB, V(10, 11, 19)), mustServer(t, MySQL, V(8, 0, 36))} {
		sts, err := s.MasterSetup(testParams())
		if err != nil {
			t.Fatal(err)
		}
		off, create, grant, on := indexOf(t, sts, "SET SESSION sql_log_bin = 0"), indexOf(t, sts, "CREATE USER"),
			indexOf(t, sts, "GRANT "), indexOf(t, sts, "SET SESSION sql_log_bin = 1")
		if !(off < create && create < grant && grant < on) {
			t.Errorf("%v: account not created with binary logging off: %v", s, sts)
		}
		n := s.SemiSync()
		enable := indexOf(t, sts, "SET GLOBAL "+n.MasterEnabled+" = ON")
		if enable != len(sts)-1 || indexOf(t, sts, "SET GLOBAL "+n.MasterWaitPoint+" = 'AFTER_SYNC'") > enable {
			t.Errorf("%v: semi-sync enabled before it is configured: %v", s, sts)
		}
	}
}

func TestSlaveSetupOrderAndFresh(t *testing.T) {
	s := mustServer(t, MariaDB, V(10, 11, 19))
	fresh, err := s.SlaveSetup(testParams())
	if err != nil {
		t.Fatal(err)
	}
	stop, change, enable, start := indexOf(t, fresh, "STOP SLAVE"), indexOf(t, fresh, "CHANGE MASTER TO"),
		indexOf(t, fresh, "SET GLOBAL rpl_semi_sync_slave_enabled = ON"), indexOf(t, fresh, "START SLAVE")
	if !(stop < change && change < enable && enable < start) {
		t.Errorf("slave setup out of order: %v", fresh)
	}
	if last := fresh[len(fresh)-2:]; last[0].SQL != "STOP SLAVE IO_THREAD" || last[1].SQL != "START SLAVE IO_THREAD" {
		t.Errorf("IO thread not restarted last: %v", last)
	}
	indexOf(t, fresh, "RESET MASTER")
	indexOf(t, fresh, "SET GLOBAL gtid_slave_pos = ''")

	p := testParams()
	p.Fresh = false
	kept, err := s.SlaveSetup(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range kept {
		if strings.HasPrefix(st.SQL, "RESET MASTER") || strings.Contains(st.SQL, "gtid_slave_pos") {
			t.Errorf("non-fresh setup wipes GTID state: %q", st.SQL)
		}
	}
	if len(kept) != len(fresh)-2 {
		t.Errorf("non-fresh setup has %d statements, fresh %d", len(kept), len(fresh))
	}
}

func TestPluginStatementsAreGuarded(t *testing.T) {
	s := mustServer(t, MySQL, V(8, 0, 36))
	sts, err := s.SlaveSetup(testParams())
	if err != nil {
		t.Fatal(err)
	}
	inst := sts[indexOf(t, sts, "INSTALL PLUGIN")]
	if inst.SQL != "INSTALL PLUGIN rpl_semi_sync_replica SONAME 'semisync_replica.so'" ||
		!strings.Contains(inst.OnlyIf, "NOT EXISTS") || !strings.Contains(inst.OnlyIf, "'rpl_semi_sync_replica'") {
		t.Errorf("install = %#v", inst)
	}
	td := s.SlaveTeardown()
	if off := td[len(td)-1]; off.SQL != "SET GLOBAL rpl_semi_sync_replica_enabled = OFF" || !strings.Contains(off.OnlyIf, "'ACTIVE'") {
		t.Errorf("teardown disable = %#v", off)
	}
	// Built-in semi-sync: nothing to install, nothing to guard.
	m := mustServer(t, MariaDB, V(10, 11, 19))
	msts, _ := m.MasterSetup(testParams())
	for _, st := range append(msts, m.MasterTeardown()...) {
		if strings.HasPrefix(st.SQL, "INSTALL") || st.OnlyIf != "" {
			t.Errorf("MariaDB statement %#v installs or is guarded", st)
		}
	}
}

func TestWaitQueries(t *testing.T) {
	my, maria := mustServer(t, MySQL, V(8, 0, 36)), mustServer(t, MariaDB, V(10, 11, 19))
	q, err := my.WaitForGTIDQuery("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5,\n4e11fa47-71ca-11e1-9e33-c80aa9429562:1-9", 1200*time.Millisecond)
	if err != nil || q != "SELECT WAIT_FOR_EXECUTED_GTID_SET('3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5,4e11fa47-71ca-11e1-9e33-c80aa9429562:1-9', 2)" {
		t.Errorf("MySQL GTID wait = %q, %v", q, err)
	}
	if q, err := maria.WaitForGTIDQuery("0-1-42", 30*time.Second); err != nil || q != "SELECT MASTER_GTID_WAIT('0-1-42', 30)" {
		t.Errorf("MariaDB GTID wait = %q, %v", q, err)
	}
	if _, err := maria.WaitForGTIDQuery("0-1-42", 0); err == nil {
		t.Error("zero timeout accepted")
	}
	for res, want := range map[string]bool{"0": true, " 0\n": true, "1": false, "-1": false, "NULL": false, "": false} {
		if GTIDWaitReached(res) != want {
			t.Errorf("GTIDWaitReached(%q) != %t", res, want)
		}
	}
}

func TestStatusQueries(t *testing.T) {
	s := mustServer(t, MySQL, V(8, 4, 3))
	for got, want := range map[string]string{
		s.ReplicaStatusQuery():        "SHOW REPLICA STATUS",
		s.BinlogStatusQuery():         "SHOW BINARY LOG STATUS",
		s.MasterGTIDQuery():           "SELECT @@GLOBAL.gtid_executed",
		s.SlaveSemiSyncStatusQuery():  "SHOW GLOBAL STATUS WHERE Variable_name IN ('Rpl_semi_sync_replica_status')",
		s.MasterSemiSyncStatusQuery(): "SHOW GLOBAL STATUS WHERE Variable_name IN ('Rpl_semi_sync_source_status', 'Rpl_semi_sync_source_clients', 'Rpl_semi_sync_source_yes_tx', 'Rpl_semi_sync_source_no_tx')",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestStatementPrintingNeverLeaks(t *testing.T) {
	st := new(stmtBuilder).raw("X ").secretStr("hunter2").done()
	for _, out := range []string{fmt.Sprint(st), fmt.Sprintf("%v %+v %#v %s %q", st, st, st, st, st), fmt.Sprint([]Statement{st})} {
		if strings.Contains(out, "hunter2") {
			t.Errorf("leak: %s", out)
		}
	}
	js, err := json.Marshal(map[string]any{"s": st})
	if err != nil || strings.Contains(string(js), "hunter2") || !strings.Contains(string(js), "redacted") {
		t.Errorf("json %s %v", js, err)
	}
	if st.SQL != "X 'hunter2'" {
		t.Errorf("real SQL %q", st.SQL)
	}
}

// TestSecretsAreNeverLogged (N8): on every server, each statement that
// holds a secret runs after the session's general and slow logs are off
// and before they are put back.
func TestSecretsAreNeverLogged(t *testing.T) {
	p := Params{MasterHost: "10.0.0.1", ReplPassword: "s3cret-pw", Fresh: true}
	for _, s := range []Server{mustServer(t, MariaDB, V(10, 11, 19)), mustServer(t, MySQL, V(5, 7, 44)), mustServer(t, MySQL, V(8, 0, 36)), mustServer(t, MySQL, V(8, 4, 3))} {
		master, err := s.MasterSetup(p)
		if err != nil {
			t.Fatal(err)
		}
		slave, err := s.SlaveSetup(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, plan := range [][]Statement{master, slave} {
			off := false
			secrets := 0
			for _, st := range plan {
				switch st.SQL {
				case "SET SESSION sql_log_off = 1":
					off = true
				case "SET SESSION sql_log_off = @@GLOBAL.sql_log_off":
					off = false
				}
				if st.Secret {
					secrets++
					if !off {
						t.Errorf("%v: %s runs with the general log on", s, st.Redacted)
					}
				}
			}
			if secrets == 0 || off {
				t.Errorf("%v: %d secret statements, log left off at the end: %v", s, secrets, off)
			}
		}
	}
}

// The manuals' limits on the replication password: MySQL's CHANGE MASTER
// TO / CHANGE REPLICATION SOURCE TO take at most 32 characters (error
// 3056), MariaDB's CHANGE MASTER at most 96.
func TestReplPasswordLimit(t *testing.T) {
	for _, c := range []struct {
		s     Server
		n     int
		ok    bool
		words string
	}{
		{Server{Flavor: MariaDB, Version: V(10, 11, 6)}, 96, true, ""},
		{Server{Flavor: MariaDB, Version: V(10, 11, 6)}, 97, false, "97 characters; MariaDB 10.11.6 takes at most 96"},
		{Server{Flavor: MySQL, Version: V(8, 0, 36)}, 32, true, ""},
		{Server{Flavor: MySQL, Version: V(8, 0, 36)}, 33, false, "takes at most 32 (CHANGE REPLICATION SOURCE TO's password)"},
		{Server{Flavor: Percona, Version: V(5, 7, 44)}, 40, false, "takes at most 32 (CHANGE MASTER TO's password)"},
	} {
		err := c.s.CheckReplPassword(strings.Repeat("x", c.n))
		if (err == nil) != c.ok || (err != nil && !strings.Contains(err.Error(), c.words)) {
			t.Errorf("%s, %d characters: %v", c.s, c.n, err)
		}
	}
}
