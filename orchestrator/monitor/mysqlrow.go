package monitor

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// Counters read from SHOW GLOBAL STATUS, by index: the client's work,
// then the engines' and the binary log's (flavor.IOCounters, one rate
// column each), then semi-sync's and Uptime.
const (
	cQuestions = iota
	cComSelect
	cComInsert
	cComUpdate
	cComDelete
	cComReplace
	cComCommit
	cComRollback
	cHandlerCommit
	nWorkCounters
)

// The indices after the engines' counters, which flavor's table sizes.
var (
	// nRateCols counters, cQuestions to the last engine counter, each
	// have a per-second rate column.
	nRateCols = nWorkCounters + len(flavor.IOCounters())
	// Semi-sync counters, named by flavor: written as rates (yes/no) or
	// folded into the interval's average wait.
	cYesTx    = nRateCols
	cNoTx     = nRateCols + 1
	cWaitTime = nRateCols + 2 // total µs commits waited for acks
	cWaits    = nRateCols + 3 // commits that waited
	cUptime   = nRateCols + 4 // a decrease means the server restarted
	nCounters = nRateCols + 5
)

// counterDef is a counter's CSV column, status variable (empty when the
// flavour decides it) and decimals.
type counterDef struct {
	col, name string
	prec      int
}

var counterDefs = func() []counterDef {
	defs := []counterDef{
		cQuestions:     {"queries_ps", "Questions", 1},
		cComSelect:     {"com_select_ps", "Com_select", 1},
		cComInsert:     {"com_insert_ps", "Com_insert", 1},
		cComUpdate:     {"com_update_ps", "Com_update", 1},
		cComDelete:     {"com_delete_ps", "Com_delete", 1},
		cComReplace:    {"com_replace_ps", "Com_replace", 1},
		cComCommit:     {"com_commit_ps", "Com_commit", 1},
		cComRollback:   {"com_rollback_ps", "Com_rollback", 1},
		cHandlerCommit: {"handler_commit_ps", "Handler_commit", 1},
	}
	for _, c := range flavor.IOCounters() {
		defs = append(defs, counterDef{c.Column, c.Status, c.Prec})
	}
	defs = append(defs, make([]counterDef, nCounters-len(defs))...)
	defs[cUptime] = counterDef{"", "Uptime", 0}
	return defs
}()

// progressCounters move whenever the master does work for a client. A
// stall freezes every one of them, and Com_select (less the monitor's own
// SELECTs, see sqlSource) too; the monitor's SHOW statements count under
// Com_show_*.
var progressCounters = []int{cComInsert, cComUpdate, cComDelete, cComReplace, cComCommit, cYesTx, cNoTx}

// MySQLColumns is the header of timeseries/<host>-mysql.csv (see the
// package documentation for each column).
var MySQLColumns = mysqlColumns()

func mysqlColumns() []string {
	cols := []string{"t", "elapsed_s", "interval_s"}
	for i := 0; i < nRateCols; i++ {
		cols = append(cols, counterDefs[i].col)
	}
	return append(cols, "semisync_yes_tx_ps", "semisync_no_tx_ps", "semisync_avg_wait_us", "gtid_tx_ps",
		"threads_running", "threads_connected", "semisync_status", "semisync_clients",
		"io_running", "sql_running", "lag_s", "lag_tx", "gtid_pos")
}

// serverNames are one server's status and variable names.
type serverNames struct {
	counters                []string // by counter index
	semiStatus, semiClients string   // this role's status variables
	semiEnabled             string   // master: the enabled system variable
	gtidVar                 string   // master: written position; slave: applied
}

func namesFor(srv flavor.Server, role topology.Role) serverNames {
	n := serverNames{counters: make([]string, nCounters)}
	for i, d := range counterDefs {
		n.counters[i] = d.name
	}
	ss := srv.SemiSync()
	if role == topology.RoleMaster {
		n.semiStatus, n.semiClients, n.semiEnabled = ss.MasterStatus, ss.MasterClients, ss.MasterEnabled
		n.gtidVar, _ = srv.Lookup(flavor.GTIDSourcePosVar)
		n.counters[cYesTx], n.counters[cNoTx] = ss.MasterYesTx, ss.MasterNoTx
		n.counters[cWaitTime], n.counters[cWaits] = ss.MasterTxWaitTime, ss.MasterTxWaits
	} else {
		n.semiStatus = ss.SlaveStatus
		n.gtidVar, _ = srv.Lookup(flavor.GTIDReplicaPosVar)
	}
	return n
}

// statusNames lists the SHOW GLOBAL STATUS variables to read.
func (n serverNames) statusNames() []string {
	out := []string{"Threads_running", "Threads_connected"}
	for _, name := range n.counters {
		if name != "" {
			out = append(out, name)
		}
	}
	for _, name := range []string{n.semiStatus, n.semiClients} {
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}

// mysqlRaw is one round of a server's answers, as text.
type mysqlRaw struct {
	Status  map[string]string // SHOW GLOBAL STATUS subset
	Vars    map[string]string // SHOW GLOBAL VARIABLES subset
	Replica map[string]string // SHOW SLAVE STATUS row; nil on the master or without a row
	// OwnSelects counts the SELECTs the source had sent before reading
	// Status: they are in Com_select but are not client work.
	OwnSelects uint64
}

// mysqlSample is a parsed mysqlRaw. It holds no pointers into maps (its
// counter slices are its own), so keeping the previous one costs nothing
// per sample.
type mysqlSample struct {
	at          time.Time
	val         []uint64 // by counter index, each sample its own
	has         []bool
	running     int64
	connected   int64
	hasThreads  bool
	semiStatus  string
	semiEnabled bool
	clients     int64
	hasClients  bool
	gtidPos     string
	gtidN       uint64
	hasGTID     bool
	replica     *flavor.ReplicaStatus
	ownSelects  uint64
}

func parseMySQL(at time.Time, raw mysqlRaw, n *serverNames, srv flavor.Server) (mysqlSample, error) {
	s := mysqlSample{at: at, ownSelects: raw.OwnSelects, val: make([]uint64, nCounters), has: make([]bool, nCounters)}
	for i, name := range n.counters {
		if v, ok := raw.Status[name]; ok && name != "" {
			u, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return s, fmt.Errorf("status %s=%q: not a counter", name, v)
			}
			s.val[i], s.has[i] = u, true
		}
	}
	r, rok := raw.Status["Threads_running"]
	c, cok := raw.Status["Threads_connected"]
	if rok && cok {
		s.running, _ = strconv.ParseInt(r, 10, 64)
		s.connected, _ = strconv.ParseInt(c, 10, 64)
		s.hasThreads = true
	}
	s.semiStatus = strings.ToUpper(raw.Status[n.semiStatus])
	if v, ok := raw.Status[n.semiClients]; ok && n.semiClients != "" {
		s.clients, _ = strconv.ParseInt(v, 10, 64)
		s.hasClients = true
	}
	if n.semiEnabled != "" {
		v := strings.ToUpper(raw.Vars[n.semiEnabled])
		s.semiEnabled = v == "ON" || v == "1"
	}
	if pos, ok := raw.Vars[n.gtidVar]; ok && n.gtidVar != "" {
		count, err := srv.GTIDCount(pos)
		if err != nil {
			return s, fmt.Errorf("%s: %w", n.gtidVar, err)
		}
		s.gtidPos, s.gtidN, s.hasGTID = strings.Join(strings.Fields(pos), ""), count, true
	}
	if raw.Replica != nil {
		rs, err := flavor.ParseReplicaStatus(raw.Replica)
		if err != nil {
			return s, err
		}
		s.replica = &rs
	}
	return s, nil
}

// delta is cur-prev of counter i and whether it is usable: both present
// and not gone backwards. reset reports a counter that went backwards.
func delta(prev, cur *mysqlSample, i int, restarted bool) (d uint64, ok, reset bool) {
	if !prev.has[i] || !cur.has[i] {
		return 0, false, false
	}
	if restarted || cur.val[i] < prev.val[i] {
		return 0, false, true
	}
	return cur.val[i] - prev.val[i], true, false
}

// rate turns a delta into a per-second rate; NaN is an empty cell.
func rate(d uint64, ok bool, dt time.Duration) float64 {
	if !ok || dt <= 0 {
		return math.NaN()
	}
	return float64(d) / dt.Seconds()
}
