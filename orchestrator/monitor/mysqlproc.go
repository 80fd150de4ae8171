package monitor

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// mysqlProc turns one server's samples into CSV rows, events and summary
// figures. It is used by one stream goroutine at a time.
type mysqlProc struct {
	m       *Monitor
	host    string
	role    topology.Role
	srv     flavor.Server
	names   serverNames
	prev    mysqlSample
	hasPrev bool

	resets    int
	replicaOK *bool // last replica state seen, for transition events
	maxLagS   int64
	hasLagS   bool
	maxLagTx  int64
	hasLagTx  bool
}

func newMySQLProc(m *Monitor, host string, role topology.Role, srv flavor.Server) *mysqlProc {
	return &mysqlProc{m: m, host: host, role: role, srv: srv, names: namesFor(srv, role)}
}

// masterPosition is the master's latest GTID position, for slaves' lag:
// where it was at, and its commit rate over the interval before (txPS,
// NaN when unknown), so that a slave sampled at another instant is
// compared with the master's position carried to that instant, not with
// a sample up to an interval old.
type masterPosition struct {
	pos  string
	srv  flavor.Server
	at   time.Time
	txPS float64
}

// lagAt is a slave's lag in transactions at its sample's instant at: its
// gap to the master's latest position, plus (or, for a master sample taken
// after it, less) the master's commits between the two instants at its
// last rate. Never below 0. Live and approximate under a changing rate;
// the report recomputes it from both sides' positions afterwards.
func (mp *masterPosition) lagAt(slavePos string, at time.Time) (int64, error) {
	n, err := mp.srv.GTIDGap(mp.pos, slavePos)
	if err != nil || math.IsNaN(mp.txPS) {
		return n, err
	}
	lag := float64(n) + mp.txPS*at.Sub(mp.at).Seconds()
	return int64(math.Round(math.Max(0, lag))), nil
}

// handle parses one round of answers and writes its row.
func (p *mysqlProc) handle(raw mysqlRaw, at time.Time, c *csvFile) error {
	cur, err := parseMySQL(at, raw, &p.names, p.srv)
	if err != nil {
		return err
	}
	prev, first := &p.prev, !p.hasPrev
	var dt time.Duration
	if !first {
		dt = cur.at.Sub(prev.at)
	}
	restarted := !first && prev.has[cUptime] && cur.has[cUptime] && cur.val[cUptime] < prev.val[cUptime]
	var resets []string
	d := func(i int) (uint64, bool) {
		if first {
			return 0, false
		}
		v, ok, reset := delta(prev, &cur, i, restarted)
		if reset {
			resets = append(resets, p.names.counters[i])
		}
		return v, ok
	}

	c.start(at, at.Sub(p.m.start), dt)
	var clientSelects uint64
	for i := 0; i < nRateCols; i++ {
		v, ok := d(i)
		if i == cComSelect && ok {
			// Leave out the monitor's own SELECTs.
			v -= min(v, cur.ownSelects-prev.ownSelects)
			clientSelects = v
		}
		c.float(rate(v, ok, dt), counterDefs[i].prec)
	}
	yes, yesOK := d(cYesTx)
	no, noOK := d(cNoTx)
	wait, waitOK := d(cWaitTime)
	waits, waitsOK := d(cWaits)
	c.float(rate(yes, yesOK, dt), 1)
	c.float(rate(no, noOK, dt), 1)
	avgWait := math.NaN()
	if waitOK && waitsOK && waits > 0 {
		avgWait = float64(wait) / float64(waits)
	}
	c.float(avgWait, 0)
	var gtidTx uint64
	gtidOK := !first && prev.hasGTID && cur.hasGTID && !restarted && cur.gtidN >= prev.gtidN
	if gtidOK {
		gtidTx = cur.gtidN - prev.gtidN
	} else if !first && prev.hasGTID && cur.hasGTID {
		resets = append(resets, p.names.gtidVar)
	}
	c.float(rate(gtidTx, gtidOK, dt), 1)
	c.int(cur.running, cur.hasThreads)
	c.int(cur.connected, cur.hasThreads)
	c.text(cur.semiStatus)
	c.int(cur.clients, cur.hasClients)
	p.writeReplica(&cur, c)
	c.text(cur.gtidPos)
	c.end()

	if restarted {
		p.event(at, KindCounterReset, fmt.Sprintf("server restarted (Uptime %d -> %d): rates left empty for this row",
			prev.val[cUptime], cur.val[cUptime]))
	} else if len(resets) > 0 {
		p.event(at, KindCounterReset, "went backwards (FLUSH STATUS, RESET MASTER?): "+strings.Join(resets, ", ")+"; their rates left empty for this row")
	}
	if restarted || len(resets) > 0 {
		p.resets++
	}
	if p.role == topology.RoleMaster {
		if cur.hasGTID {
			txPS := math.NaN()
			if gtidOK && dt > 0 {
				txPS = float64(gtidTx) / dt.Seconds()
			}
			p.m.masterPos.Store(&masterPosition{pos: cur.gtidPos, srv: p.srv, at: cur.at, txPS: txPS})
		}
		p.m.det.masterSample(masterView{
			at: at, dt: dt, first: first, progress: !first && (restarted || clientSelects > 0 || progressed(prev, &cur)),
			enabled: cur.semiEnabled, status: cur.semiStatus, clients: cur.clients, hasClients: cur.hasClients,
			yes: yes, no: no, wait: wait, waits: waits, acksOK: yesOK && noOK, waitOK: waitOK && waitsOK,
		})
	}
	p.prev, p.hasPrev = cur, true
	return nil
}

// progressed reports whether the master did client work other than
// SELECTs (counted apart, without the monitor's own), wrote to its binlog
// or got an ack between two samples.
func progressed(prev, cur *mysqlSample) bool {
	for _, i := range progressCounters {
		if prev.has[i] && cur.has[i] && prev.val[i] != cur.val[i] {
			return true
		}
	}
	return prev.hasGTID && cur.hasGTID && prev.gtidN != cur.gtidN
}

// writeReplica writes io_running, sql_running, lag_s and lag_tx (empty on
// the master) and reports replication state changes.
func (p *mysqlProc) writeReplica(cur *mysqlSample, c *csvFile) {
	if p.role == topology.RoleMaster {
		c.empty()
		c.empty()
		c.empty()
		c.empty()
		return
	}
	rs := cur.replica
	var lagS int64
	hasS := rs != nil && rs.SecondsBehind != nil
	if rs != nil {
		c.text(rs.IORunning)
		c.text(rs.SQLRunning)
	} else {
		c.empty()
		c.empty()
	}
	if hasS {
		lagS = *rs.SecondsBehind
	}
	c.int(lagS, hasS)
	var lagTx int64
	hasTx := false
	if mp := p.m.masterPos.Load(); mp != nil && cur.hasGTID {
		n, err := mp.lagAt(cur.gtidPos, cur.at)
		lagTx, hasTx = n, err == nil
	}
	c.int(lagTx, hasTx)

	if hasS && (!p.hasLagS || lagS > p.maxLagS) {
		p.maxLagS, p.hasLagS = lagS, true
	}
	if hasTx && (!p.hasLagTx || lagTx > p.maxLagTx) {
		p.maxLagTx, p.hasLagTx = lagTx, true
	}
	running := rs != nil && rs.Running()
	if p.replicaOK != nil && *p.replicaOK == running {
		return
	}
	switch {
	case rs == nil:
		p.event(cur.at, KindReplicaStopped, "no replica status: replication is not configured")
	case !running:
		detail := fmt.Sprintf("io=%s sql=%s", rs.IORunning, rs.SQLRunning)
		if err := rs.Err(); err != nil {
			detail += ": " + err.Error()
		}
		p.event(cur.at, KindReplicaStopped, detail)
	case p.replicaOK != nil:
		p.event(cur.at, KindReplicaRunning, "io=Yes sql=Yes")
	}
	p.replicaOK = &running
}

func (p *mysqlProc) event(at time.Time, kind, detail string) {
	p.m.events.write(Event{T: at, Host: p.host, Kind: kind, Detail: "mysql: " + detail})
}
