package monitor

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// fakeServer answers what a MariaDB 10.11 server would, its counters moved
// by the test. Its status and variable names are MariaDB's own, written
// here from the server's manual (Server Status Variables, Semisynchronous
// Replication, GTID), not taken from the monitor's tables: a name the
// monitor spells wrong finds no counter here.
type fakeServer struct {
	srv      flavor.Server
	role     topology.Role
	counters map[string]uint64
	status   string // semi-sync status
	clients  int
	enabled  bool
	gtidSeq  uint64
	// slave: replica status row (nil: no replication)
	replica map[string]string
}

func newFakeServer(t testing.TB, role topology.Role) *fakeServer {
	srv, err := flavor.New(flavor.MariaDB, flavor.V(10, 11, 19))
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{srv: srv, role: role, counters: map[string]uint64{}, status: "ON", clients: 2, enabled: true}
	for _, n := range mariadbCounters {
		f.counters[n] = 0
	}
	f.counters["Uptime"] = 1000
	if role == topology.RoleSlave {
		f.replica = map[string]string{"Slave_IO_Running": "Yes", "Slave_SQL_Running": "Yes", "Seconds_Behind_Master": "0",
			"Master_Host": "10.0.0.1", "Using_Gtid": "Slave_Pos", "Last_IO_Errno": "0", "Last_IO_Error": ""}
	}
	return f
}

// mariadbCounters are the SHOW GLOBAL STATUS counters of a MariaDB 10.11
// server with InnoDB and the binary log on, semi-sync built in (both sides'
// variables exist on every server).
var mariadbCounters = []string{
	"Uptime", "Questions", "Com_select", "Com_insert", "Com_update", "Com_delete", "Com_replace",
	"Com_commit", "Com_rollback", "Handler_commit",
	"Innodb_rows_inserted", "Innodb_data_written", "Innodb_os_log_written", "Innodb_data_fsyncs",
	"Innodb_buffer_pool_pages_flushed",
	"Binlog_commits", "Binlog_bytes_written", "Binlog_group_commits",
	"Rpl_semi_sync_master_yes_tx", "Rpl_semi_sync_master_no_tx",
	"Rpl_semi_sync_master_tx_wait_time", "Rpl_semi_sync_master_tx_waits",
}

func (f *fakeServer) add(name string, n uint64) { f.counters[name] += n }

// second is one second passing with the monitor's own SHOW statements.
func (f *fakeServer) second() {
	f.add("Uptime", 1)
	f.add("Questions", 3)
}

// commit writes n single-row transactions, acknowledged by a slave while
// semi-sync is ON, each waiting 300 µs for its ack.
func (f *fakeServer) commit(n uint64) {
	for _, c := range []string{"Questions", "Com_insert", "Handler_commit", "Innodb_rows_inserted", "Binlog_commits"} {
		f.add(c, n)
	}
	f.add("Innodb_data_written", 16384*n)
	f.gtidSeq += n
	if f.role != topology.RoleMaster {
		return
	}
	if f.enabled && f.status == "ON" {
		f.add("Rpl_semi_sync_master_yes_tx", n)
		f.add("Rpl_semi_sync_master_tx_wait_time", 300*n)
		f.add("Rpl_semi_sync_master_tx_waits", n)
	} else {
		f.add("Rpl_semi_sync_master_no_tx", n)
	}
}

func (f *fakeServer) raw() mysqlRaw {
	r := mysqlRaw{Status: map[string]string{}, Vars: map[string]string{}}
	for k, v := range f.counters {
		r.Status[k] = strconv.FormatUint(v, 10)
	}
	r.Status["Threads_running"], r.Status["Threads_connected"] = "4", "6"
	onOff := map[bool]string{true: "ON", false: "OFF"}
	// What a server shows of semi-sync and GTIDs by its role: the master
	// side's status and switch on the master, the slave's on a slave; the
	// master's written position, a slave's applied one.
	gtidVar := "gtid_slave_pos"
	if f.role == topology.RoleMaster {
		r.Status["Rpl_semi_sync_master_status"] = f.status
		r.Status["Rpl_semi_sync_master_clients"] = strconv.Itoa(f.clients)
		r.Vars["rpl_semi_sync_master_enabled"] = onOff[f.enabled]
		gtidVar = "gtid_binlog_pos"
	} else {
		r.Status["Rpl_semi_sync_slave_status"] = f.status
		r.Vars["rpl_semi_sync_slave_enabled"] = onOff[f.enabled]
	}
	r.Vars[gtidVar] = ""
	if f.gtidSeq > 0 {
		r.Vars[gtidVar] = fmt.Sprintf("0-1-%d", f.gtidSeq)
	}
	if f.replica != nil {
		r.Replica = map[string]string{}
		for k, v := range f.replica {
			r.Replica[k] = v
		}
	}
	return r
}

// harness is a Monitor without goroutines, fed samples by hand at
// seconds after t0.
type harness struct {
	t      *testing.T
	m      *Monitor
	dir    string
	t0     time.Time
	mu     sync.Mutex
	stalls []Event // the first OnStall calls
	calls  int     // all of them
	fired  chan struct{}
}

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func newHarness(t *testing.T, cfg Config) *harness {
	h := &harness{t: t, dir: t.TempDir(), t0: t0, fired: make(chan struct{}, 16)}
	cfg.Dir = h.dir
	cfg.Now = func() time.Time { return t0 }
	cfg.OnStall = func(e Event) {
		h.mu.Lock()
		h.calls++
		if len(h.stalls) < 16 {
			h.stalls = append(h.stalls, e)
		}
		h.mu.Unlock()
		select {
		case h.fired <- struct{}{}:
		default:
		}
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if h.m, err = newMonitor(cfg, "master"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.m.events.close() })
	return h
}

func (h *harness) at(sec float64) time.Time {
	return h.t0.Add(time.Duration(sec * float64(time.Second)))
}

// hostUnderTest is one host's mysql processor and file.
type hostUnderTest struct {
	h    *harness
	name string
	proc *mysqlProc
	csv  *csvFile
}

func (h *harness) mysqlHost(name string, f *fakeServer) *hostUnderTest {
	c, err := createCSV(h.dir+"/timeseries/"+name+"-mysql.csv", MySQLColumns)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { c.close() })
	return &hostUnderTest{h: h, name: name, proc: newMySQLProc(h.m, name, f.role, f.srv), csv: c}
}

func (u *hostUnderTest) feed(f *fakeServer, sec float64) {
	u.h.t.Helper()
	if err := u.proc.handle(f.raw(), u.h.at(sec), u.csv); err != nil {
		u.h.t.Fatalf("%s at %vs: %v", u.name, sec, err)
	}
}

func (u *hostUnderTest) rows() []map[string]string {
	return csvRows(u.h.t, u.h.dir+"/timeseries/"+u.name+"-mysql.csv", MySQLColumns)
}

func (h *harness) events() []eventLine { return readEvents(h.t, h.dir) }
