package dataset

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/internal/sqlfake"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// applier is a MariaDB server as its manual describes it for replication:
// @@gtid_binlog_pos is the last GTID it wrote (domain-server-seq), a
// replica's @@gtid_slave_pos the last one its SQL thread applied, and
// MASTER_GTID_WAIT(pos, timeout) returns 0 once that is reached, -1 on a
// timeout. This one lies in the wait's answer (0 at once) and applies its
// relay log in its own time: one event every perEvent from `from`, up to
// `upTo`. What the wait says must not be what the catch-up trusts.
type applier struct {
	mu       sync.Mutex
	upTo     int64 // the master's last sequence number
	from     int64 // what the replica had applied when it started applying
	start    time.Time
	perEvent time.Duration
	sqlOn    bool
	answers  []string // @@gtid_slave_pos as answered, in order
	reached  time.Time
}

var selectVar = regexp.MustCompile(`^SELECT @@GLOBAL\.(\w+)$`)

func (a *applier) applied(now time.Time) int64 {
	if !a.sqlOn || a.perEvent == 0 {
		return a.from
	}
	return min(a.upTo, a.from+int64(now.Sub(a.start)/a.perEvent))
}

func (a *applier) Handle(_ context.Context, q string) (sqlfake.Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	if m := selectVar.FindStringSubmatch(q); m != nil {
		switch m[1] {
		case "gtid_binlog_pos": // asked of the master
			pos := ""
			if a.upTo > 0 {
				pos = fmt.Sprintf("0-1-%d", a.upTo)
			}
			return sqlfake.Result{Cols: []string{q[7:]}, Rows: [][]any{{pos}}}, nil
		case "gtid_slave_pos":
			n := a.applied(now)
			pos := fmt.Sprintf("0-1-%d", n)
			a.answers = append(a.answers, pos)
			if n == a.upTo && a.reached.IsZero() {
				a.reached = now
			}
			return sqlfake.Result{Cols: []string{q[7:]}, Rows: [][]any{{pos}}}, nil
		}
	}
	if strings.HasPrefix(q, "SELECT MASTER_GTID_WAIT(") {
		return sqlfake.Result{Cols: []string{"w"}, Rows: [][]any{{"0"}}}, nil
	}
	if q == "SHOW SLAVE STATUS" {
		sql := "No"
		if a.sqlOn {
			sql = "Yes"
		}
		return sqlfake.Result{Cols: []string{"Slave_IO_Running", "Slave_SQL_Running", "Last_SQL_Errno", "Last_SQL_Error"},
			Rows: [][]any{{"Yes", sql, "0", ""}}}, nil
	}
	return sqlfake.Result{}, fmt.Errorf("applier: statement not simulated: %s", q)
}

func node(t *testing.T, name string, role topology.Role, s sqlfake.Session) *server.Node {
	db := sqlfake.Open(func(context.Context) (sqlfake.Session, error) { return s, nil })
	t.Cleanup(func() { db.Close() })
	return &server.Node{Host: &topology.Host{Name: name, Role: role}, DB: db,
		Server: flavor.Server{Flavor: flavor.MariaDB, Version: flavor.V(10, 11, 6)}}
}

// The load ended 300 ms before the wait; the slave is 40 events behind
// and applies one every 5 ms. Its catch-up counts from the load's end and
// lasts until its own position (not the wait function's answer) reaches
// the master's.
func TestCatchUpTimedFromLoadEnd(t *testing.T) {
	master := &applier{upTo: 500}
	slave := &applier{upTo: 500, from: 460, start: time.Now(), perEvent: 5 * time.Millisecond, sqlOn: true}
	loadEnd := time.Now().Add(-300 * time.Millisecond)
	cu, err := WaitCaughtUpSince(context.Background(), node(t, "master", topology.RoleMaster, master),
		[]*server.Node{node(t, "slave1", topology.RoleSlave, slave)}, loadEnd, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	s := cu.Slaves[0]
	if cu.MasterGTID != "0-1-500" || cu.LoadEnd == nil || !cu.LoadEnd.Equal(loadEnd) || !s.CaughtUp {
		t.Fatalf("catch-up %+v", cu)
	}
	slave.mu.Lock()
	first, last, reached := slave.answers[0], slave.answers[len(slave.answers)-1], slave.reached
	slave.mu.Unlock()
	if last != "0-1-500" || reached.IsZero() {
		t.Fatalf("the wait ended before the slave's position reached the master's: last answer %s", last)
	}
	var seq int64
	fmt.Sscanf(first, "0-1-%d", &seq)
	if s.BehindAtWaitTx == nil || *s.BehindAtWaitTx != 500-seq || *s.BehindAtWaitTx == 0 {
		t.Errorf("behind at wait %v, want %d (first read %s)", s.BehindAtWaitTx, 500-seq, first)
	}
	if s.CatchUpNs == nil || *s.CatchUpNs < reached.Sub(loadEnd) {
		t.Fatalf("catch-up %v, want at least %v (load end to the position reached)", s.CatchUpNs, reached.Sub(loadEnd))
	}
	if *s.CatchUpNs < s.Waited {
		t.Errorf("catch-up %v shorter than the wait %v that began after the load's end", *s.CatchUpNs, s.Waited)
	}
}

// A slave already there at the first read still counts from the load's
// end; a master that wrote nothing has nothing to wait for.
func TestCatchUpAlreadyThere(t *testing.T) {
	for _, upTo := range []int64{0, 77} {
		master := &applier{upTo: upTo}
		slave := &applier{upTo: upTo, from: upTo, sqlOn: true}
		loadEnd := time.Now().Add(-2 * time.Second)
		cu, err := WaitCaughtUpSince(context.Background(), node(t, "master", topology.RoleMaster, master),
			[]*server.Node{node(t, "slave1", topology.RoleSlave, slave)}, loadEnd, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		s := cu.Slaves[0]
		if !s.CaughtUp || s.BehindAtWaitTx == nil || *s.BehindAtWaitTx != 0 || s.CatchUpNs == nil || *s.CatchUpNs < 2*time.Second {
			t.Errorf("master at %d: %+v", upTo, s)
		}
	}
}

// A slave whose SQL thread is stopped never applies: the wait fails at the
// next replication check, however positive the wait function is, and no
// catch-up time is claimed.
func TestCatchUpStoppedApplier(t *testing.T) {
	master := &applier{upTo: 500}
	slave := &applier{upTo: 500, from: 100, sqlOn: false}
	cu, err := WaitCaughtUpSince(context.Background(), node(t, "master", topology.RoleMaster, master),
		[]*server.Node{node(t, "slave1", topology.RoleSlave, slave)}, time.Now(), time.Minute)
	if err == nil || !strings.Contains(err.Error(), "Slave_SQL_Running=No") {
		t.Fatalf("error %v", err)
	}
	if s := cu.Slaves[0]; s.CaughtUp || s.CatchUpNs != nil || s.BehindAtWaitTx != nil {
		t.Errorf("%+v", s)
	}
}
