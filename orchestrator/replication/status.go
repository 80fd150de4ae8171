package replication

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/server"
)

// Status is what the cluster's servers say about replication, read in one
// pass (GetStatus) or proven with a canary write (Verify).
type Status struct {
	At     time.Time    `json:"at"`
	Master HostStatus   `json:"master"`
	Slaves []HostStatus `json:"slaves"`
	// Canary is the write Verify made and where it arrived (nil in
	// GetStatus, which never writes).
	Canary *Canary `json:"canary,omitempty"`
}

// HostStatus is one server's replication facts.
type HostStatus struct {
	Name    string `json:"name"`
	Address string `json:"address"`
	Role    string `json:"role"`
	// Error is set when the server could not be read; the fields it
	// would have filled are then empty.
	Error string `json:"error,omitempty"`

	Server        string `json:"server,omitempty"`  // detected flavour: "MariaDB 10.11.19"
	Version       string `json:"version,omitempty"` // VERSION()
	ReadOnly      *bool  `json:"read_only,omitempty"`
	DefaultEngine string `json:"default_engine,omitempty"`
	// GTIDPosition is, on the master, what it has written to its binary
	// log; on a slave, what it has applied.
	GTIDPosition string `json:"gtid_position,omitempty"`

	SemiSync *SemiSyncStatus `json:"semi_sync,omitempty"`
	// Replica is the slave's replication state; nil on the master and on a
	// server that replicates from nowhere.
	Replica *ReplicaState `json:"replica,omitempty"`
	Lag     *Lag          `json:"lag,omitempty"`

	// Problems says what is wrong with this host, one short line each.
	Problems []string `json:"problems,omitempty"`

	// srv is the flavour the facts were read with (the Node's, or detected).
	srv flavor.Server
}

// SemiSyncStatus is one side of semi-synchronous replication.
type SemiSyncStatus struct {
	// Enabled is the rpl_semi_sync_*_enabled setting.
	Enabled bool `json:"enabled"`
	// Active is Rpl_semi_sync_*_status: ON while semi-sync works. With a
	// huge timeout it stays ON even when every slave is gone and commits
	// stall; only a frozen YesTx shows that.
	Active bool `json:"active"`
	// Master only.
	Clients *int64 `json:"clients,omitempty"`
	YesTx   *int64 `json:"yes_tx,omitempty"`
	NoTx    *int64 `json:"no_tx,omitempty"`
}

// ReplicaState is the part of SHOW SLAVE/REPLICA STATUS orch reports.
type ReplicaState struct {
	MasterHost   string `json:"master_host"`
	MasterPort   int    `json:"master_port"`
	User         string `json:"user"`
	IORunning    string `json:"io_running"`
	SQLRunning   string `json:"sql_running"`
	IOState      string `json:"io_state,omitempty"`
	LastIOErrno  int    `json:"last_io_errno,omitempty"`
	LastIOError  string `json:"last_io_error,omitempty"`
	LastSQLErrno int    `json:"last_sql_errno,omitempty"`
	LastSQLError string `json:"last_sql_error,omitempty"`
	// GTIDMode is Using_Gtid on MariaDB (Slave_Pos, Current_Pos, No) and
	// AUTO_POSITION or No on MySQL.
	GTIDMode string `json:"gtid_mode"`
}

// Lag is how far a slave is behind its master.
type Lag struct {
	// Seconds is Seconds_Behind_Master (nil when the server says NULL).
	// It reads 0 on a slave whose link is down: trust Transactions.
	Seconds *int64 `json:"seconds"`
	// Transactions is the GTID gap: transactions the master has written
	// that the slave has not applied (nil when a position is unknown).
	Transactions *int64 `json:"transactions"`
}

// Problems lists every problem of every host, each line naming its host.
func (s *Status) Problems() []string {
	var out []string
	for _, h := range s.hosts() {
		label := h.Name + " " + h.Address
		if h.Error != "" {
			out = append(out, label+": "+h.Error)
		}
		for _, p := range h.Problems {
			out = append(out, label+": "+p)
		}
	}
	return out
}

// Err is the problems as one error, or nil when there are none.
func (s *Status) Err() error {
	p := s.Problems()
	if len(p) == 0 {
		return nil
	}
	errs := make([]error, len(p))
	for i, line := range p {
		errs[i] = errors.New(line)
	}
	return orchestrator.Aggregate(errs)
}

func (s *Status) hosts() []*HostStatus {
	out := []*HostStatus{&s.Master}
	for i := range s.Slaves {
		out = append(out, &s.Slaves[i])
	}
	return out
}

// GetStatus reads every server's replication state in parallel, without
// writing anything (for `orch status`). Problems are in the Status; the
// error reports only servers that could not be read.
func GetStatus(ctx context.Context, master *server.Node, slaves []*server.Node) (*Status, error) {
	if master == nil || master.Host == nil {
		return nil, errors.New("replication status: no master")
	}
	nodes := append([]*server.Node{master}, slaves...)
	st := &Status{At: time.Now().UTC(), Slaves: make([]HostStatus, len(slaves))}
	hs := st.hosts()
	notRun := orchestrator.ForEach(ctx, len(nodes), nodes, func(ctx context.Context, i int, n *server.Node) error {
		*hs[i] = probe(ctx, n, roleOf(i))
		return nil
	})
	for i, err := range notRun { // only a cancelled ctx keeps a probe from starting
		if err != nil && nodes[i] != nil && nodes[i].Host != nil {
			hs[i].Name, hs[i].Address, hs[i].Role, hs[i].Error = nodes[i].Host.Name, nodes[i].Host.Address, roleOf(i), err.Error()
		}
	}
	computeLag(st)
	assess(master, st)

	var errs []error
	for _, h := range hs {
		if h.Error != "" {
			errs = append(errs, fmt.Errorf("%s %s: %s", h.Name, h.Address, h.Error))
		}
	}
	return st, orchestrator.Aggregate(errs)
}

// Roles as HostStatus spells them.
const (
	roleMaster = "master"
	roleSlave  = "slave"
)

// roleOf is the role of the i-th node of master-then-slaves.
func roleOf(i int) string {
	if i == 0 {
		return roleMaster
	}
	return roleSlave
}

// computeLag fills each slave's GTID gap to the master. The servers are
// read at slightly different moments, so under load the gap is approximate.
func computeLag(st *Status) {
	for i := range st.Slaves {
		sl := &st.Slaves[i]
		if sl.Replica == nil || sl.Lag == nil || st.Master.Error != "" || sl.Error != "" {
			continue
		}
		if n, err := st.Master.srv.GTIDGap(st.Master.GTIDPosition, sl.GTIDPosition); err == nil {
			sl.Lag.Transactions = &n
		} else {
			sl.Problems = append(sl.Problems, "lag: "+err.Error())
		}
	}
}

// assess fills each host's Problems: the facts that say replication does
// not work, or does not work the way orch sets it up.
func assess(master *server.Node, st *Status) {
	m := &st.Master
	if m.Error == "" && m.SemiSync != nil {
		ss := m.SemiSync
		if !ss.Active {
			m.Problems = append(m.Problems, fmt.Sprintf("semi-sync not active (%s=OFF, enabled=%s)",
				m.srv.SemiSync().MasterStatus, onOff(ss.Enabled)))
		}
		if ss.Clients == nil || *ss.Clients != int64(len(st.Slaves)) {
			m.Problems = append(m.Problems, fmt.Sprintf("semi-sync clients %s, want %d", intText(ss.Clients), len(st.Slaves)))
		}
	}
	wantHost, wantPort := master.Host.Address, mysqlPort(master.Host)
	for i := range st.Slaves {
		h := &st.Slaves[i]
		if h.Error == "" {
			h.Problems = append(h.Problems, slaveProblems(h, wantHost, wantPort)...)
		}
	}
}

// slaveProblems judges a slave; one that replicates from nowhere has that
// one problem (its semi-sync state means nothing then).
func slaveProblems(h *HostStatus, wantHost string, wantPort int) []string {
	srv := h.srv
	r := h.Replica
	if r == nil {
		return []string{"not replicating (" + srv.ReplicaStatusQuery() + " is empty)"}
	}
	var out []string
	if r.MasterHost != wantHost || r.MasterPort != wantPort {
		out = append(out, fmt.Sprintf("replicates from %s:%d, want %s:%d", r.MasterHost, r.MasterPort, wantHost, wantPort))
	}
	out = append(out, threadProblem(srv.ReplicaStatusColumn("Slave_IO_Running"), r.IORunning, r.LastIOErrno, r.LastIOError)...)
	out = append(out, threadProblem(srv.ReplicaStatusColumn("Slave_SQL_Running"), r.SQLRunning, r.LastSQLErrno, r.LastSQLError)...)
	if ss := h.SemiSync; ss != nil && !ss.Active {
		out = append(out, fmt.Sprintf("semi-sync not active (%s=OFF, enabled=%s)", srv.SemiSync().SlaveStatus, onOff(ss.Enabled)))
	}
	return out
}

// threadProblem describes a replication thread that is not running or
// reports an error: "Slave_IO_Running=Connecting: error 2003: ...".
func threadProblem(column, running string, errno int, msg string) []string {
	var parts []string
	if running != "Yes" {
		parts = append(parts, column+"="+running)
	}
	if errno != 0 {
		parts = append(parts, fmt.Sprintf("error %d: %s", errno, strings.TrimSpace(msg)))
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{strings.Join(parts, ": ")}
}

func onOff(b bool) string {
	if b {
		return "ON"
	}
	return "OFF"
}

func intText(p *int64) string {
	if p == nil {
		return "unknown"
	}
	return fmt.Sprint(*p)
}
