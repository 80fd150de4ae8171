package flavor

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// ReplicaStatusQuery is SHOW SLAVE STATUS or SHOW REPLICA STATUS; parse its
// row with ParseReplicaStatus.
func (s Server) ReplicaStatusQuery() string { return "SHOW " + s.value(ReplicaKeyword) + " STATUS" }

// BinlogStatusQuery is SHOW MASTER STATUS or SHOW BINARY LOG STATUS.
func (s Server) BinlogStatusQuery() string { return s.value(BinlogStatusStmt) }

// VariablesQuery returns the (Variable_name, Value) rows of the named
// settings' global values. SHOW VARIABLES prints booleans as ON/OFF on
// every flavour, so values compare directly with config values.
func VariablesQuery(settings []Setting) string {
	return "SHOW GLOBAL VARIABLES" + whereNameIn(settingNames(settings))
}

func settingNames(settings []Setting) []string {
	names := make([]string, len(settings))
	for i, st := range settings {
		names[i] = st.Name
	}
	return names
}

func whereNameIn(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = QuoteString(n)
	}
	return " WHERE Variable_name IN (" + strings.Join(q, ", ") + ")"
}

// MasterSemiSyncStatusQuery returns the master's semi-sync status
// variables: status (ON while semi-sync is working), clients, yes_tx,
// no_tx. A stall with every slave gone shows only as yes_tx freezing.
func (s Server) MasterSemiSyncStatusQuery() string {
	n := s.SemiSync()
	return "SHOW GLOBAL STATUS" + whereNameIn([]string{n.MasterStatus, n.MasterClients, n.MasterYesTx, n.MasterNoTx})
}

// SlaveSemiSyncStatusQuery returns a slave's semi-sync status variable.
func (s Server) SlaveSemiSyncStatusQuery() string {
	return "SHOW GLOBAL STATUS" + whereNameIn([]string{s.SemiSync().SlaveStatus})
}

// MasterGTIDQuery returns what the master has written to its binlog, the
// position slaves are waited for.
func (s Server) MasterGTIDQuery() string { return "SELECT @@GLOBAL." + s.value(GTIDSourcePosVar) }

// SlaveGTIDQuery returns what a slave has applied. Compare positions, not
// Seconds_Behind_Master, which read 0 on a slave whose link was down.
func (s Server) SlaveGTIDQuery() string { return "SELECT @@GLOBAL." + s.value(GTIDReplicaPosVar) }

// waitSeconds converts a wait timeout to whole seconds, rounding up. Zero
// is refused: it means "wait forever" to MySQL's WAIT_FOR_EXECUTED_GTID_SET
// but "do not wait" to MariaDB's MASTER_GTID_WAIT.
func waitSeconds(timeout time.Duration) (int64, error) {
	if timeout <= 0 {
		return 0, fmt.Errorf("wait timeout %v: want a positive duration", timeout)
	}
	return int64(math.Ceil(timeout.Seconds())), nil
}

// WaitForGTIDQuery waits on a slave until it has applied pos (the master's
// MasterGTIDQuery result) or timeout passes. Its single value is "0" when
// the position was reached (see GTIDWaitReached).
func (s Server) WaitForGTIDQuery(pos string, timeout time.Duration) (string, error) {
	secs, err := waitSeconds(timeout)
	if err != nil {
		return "", err
	}
	if err := checkText("GTID position", pos); err != nil {
		return "", err
	}
	// MySQL prints multi-UUID sets with newlines after the commas.
	pos = strings.Join(strings.Fields(pos), "")
	return fmt.Sprintf("SELECT %s(%s, %d)", s.value(GTIDWaitFunc), QuoteString(pos), secs), nil
}

// GTIDWaitReached interprets a WaitForGTIDQuery result: 0 means reached on
// both flavours (MySQL returns 1 on timeout, MariaDB -1; NULL is an error).
func GTIDWaitReached(result string) bool { return strings.TrimSpace(result) == "0" }
