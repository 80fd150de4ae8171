package flavor

import (
	"strings"
)

// SemiSyncNames are the semi-sync plugin, system variable and status
// variable names of one server. Fields are "" where the server has no such
// thing (plugins on MariaDB, the wait count on MariaDB).
type SemiSyncNames struct {
	MasterPlugin, MasterLibrary string
	SlavePlugin, SlaveLibrary   string

	MasterEnabled, MasterTimeout, MasterWaitPoint, MasterWaitCount string
	SlaveEnabled                                                   string

	// Status variables (SHOW GLOBAL STATUS). MasterTxWaitTime is the
	// total time (µs) commits waited for an ACK, MasterTxWaits how many
	// waited: both servers name them like yes_tx.
	MasterStatus, MasterClients, MasterYesTx, MasterNoTx string
	MasterTxWaitTime, MasterTxWaits                      string
	SlaveStatus                                          string
}

// SemiSync returns s's semi-sync names.
func (s Server) SemiSync() SemiSyncNames {
	m, sl := s.value(SemiSyncMasterPrefix), s.value(SemiSyncSlavePrefix)
	return SemiSyncNames{
		MasterPlugin:     s.value(SemiSyncMasterPlugin),
		MasterLibrary:    s.value(SemiSyncMasterLibrary),
		SlavePlugin:      s.value(SemiSyncSlavePlugin),
		SlaveLibrary:     s.value(SemiSyncSlaveLibrary),
		MasterEnabled:    m + "_enabled",
		MasterTimeout:    m + "_timeout",
		MasterWaitPoint:  m + "_wait_point",
		MasterWaitCount:  s.value(SemiSyncWaitCountVar),
		SlaveEnabled:     sl + "_enabled",
		MasterStatus:     statusVar(m, "status"),
		MasterClients:    statusVar(m, "clients"),
		MasterYesTx:      statusVar(m, "yes_tx"),
		MasterNoTx:       statusVar(m, "no_tx"),
		MasterTxWaitTime: statusVar(m, "tx_wait_time"),
		MasterTxWaits:    statusVar(m, "tx_waits"),
		SlaveStatus:      statusVar(sl, "status"),
	}
}

// statusVar turns a system variable prefix (rpl_semi_sync_master) into a
// status variable name (Rpl_semi_sync_master_status).
func statusVar(prefix, suffix string) string {
	if prefix == "" {
		return ""
	}
	return strings.ToUpper(prefix[:1]) + prefix[1:] + "_" + suffix
}

// AbsentVariable reports whether name is another flavour's variable that s
// does not have, with why and where to ask it instead (binlog_order_commits
// on MariaDB).
func (s Server) AbsentVariable(name string) (why string, absent bool) {
	return s.Lookup(AbsentVar(VariableName(name)))
}

// OptionOnly reports whether name is a startup option of s that SHOW
// VARIABLES never lists (plugin_load, user...).
func (s Server) OptionOnly(name string) bool {
	_, ok := s.Lookup(OptionOnly(VariableName(name)))
	return ok
}

// RestartOnly reports why s's dynamic variable name is still changed by a
// restart, if it is (gtid_mode on MySQL).
func (s Server) RestartOnly(name string) (reason string, ok bool) {
	return s.Lookup(RestartOnly(VariableName(name)))
}

// StartupDerived returns the variable s derives from name's value at
// startup, and how, if there is one (innodb_log_file_buffering from
// innodb_flush_log_at_trx_commit on MariaDB 10.8.4 and later).
func (s Server) StartupDerived(name string) (derived, how string, ok bool) {
	v, ok := s.Lookup(StartupDerived(VariableName(name)))
	if !ok {
		return "", "", false
	}
	derived, how, _ = strings.Cut(v, ": ")
	return derived, how, true
}

// GTIDSettings are the settings GTID replication needs on every node. They
// belong in the config file: MySQL cannot switch gtid_mode straight from
// OFF to ON at run time, and MariaDB's SET GLOBAL does not persist.
func (s Server) GTIDSettings() []Setting { return parseSettings(s.value(GTIDSettings)) }

// ReadOnlySettings make a slave read-only for every client but
// replication (and, where there is no super_read_only, orch's admin).
func (s Server) ReadOnlySettings() []Setting { return parseSettings(s.value(ReadOnlySettings)) }

// GTIDReset forgets the GTID history of a server whose binary logs are
// gone and which replicates from nothing.
func (s Server) GTIDReset() Statement { return plain(s.value(GTIDResetStmt)) }

// UsesMariaDBGTID reports whether s uses MariaDB's GTID (domain-server-seq,
// MASTER_USE_GTID) rather than MySQL's (uuid:n, AUTO_POSITION).
func (s Server) UsesMariaDBGTID() bool { return s.value(GTIDStyle) == "slave-pos" }

// ReplicaStatusColumn spells a replica status column, given in its classic
// form (Slave_IO_Running, Exec_Master_Log_Pos), the way s names it
// (Replica_IO_Running, Exec_Source_Log_Pos on MySQL 8.0.22+).
func (s Server) ReplicaStatusColumn(classic string) string {
	if s.value(StatusColumns) != "Replica/Source" {
		return classic
	}
	parts := strings.Split(classic, "_")
	for i, p := range parts {
		switch p {
		case "Slave":
			parts[i] = "Replica"
		case "Master":
			parts[i] = "Source"
		}
	}
	return strings.Join(parts, "_")
}
