package replication

import (
	"fmt"
	"regexp"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// The fake servers' vocabulary, one literal table per server version.
//
// Every name here is written from the server's own manual: for MariaDB
// 10.11 the knowledge base (Semisynchronous Replication and its status
// variables, Global Transaction ID, MASTER_GTID_WAIT, CHANGE MASTER TO,
// START/STOP/RESET SLAVE and SHOW SLAVE STATUS with their 10.5.1 REPLICA
// synonyms); for MySQL 8.0 the reference manual (Semisynchronous
// Replication with the 8.0.26 source/replica plugins, gtid_executed,
// WAIT_FOR_EXECUTED_GTID_SET, CHANGE REPLICATION SOURCE TO and its 8.0.23
// aliases, SHOW REPLICA STATUS). None of it comes from orchestrator/flavor,
// on purpose: a fake that takes its names from the flavour table agrees
// with every name the table spells, the wrong ones too, so the tests could
// never catch a misspelling. Here a wrong name meets the server's error.
type fakeDialect struct {
	product        string // in syntax errors: "... for your MariaDB server version"
	versionSuffix  string // VERSION() is the version and this
	versionComment string // @@version_comment
	globals        map[string]string
	// replicaWords are the words START/STOP/RESET take for the replica
	// threads; statusColumns are SHOW <word> STATUS's columns by word.
	replicaWords  []string
	statusColumns map[string][]fakeCol
	ioConnectErr  string // Last_IO_Error when the master is unreachable: user, host, port, retry
	// changeStmts are the statements that point a replica at its master;
	// changeOptions what each option name they take sets.
	changeStmts   []string
	changeOptions map[string]changeOpt
	privileges    []string // GRANT's replication privileges
	// semiSync lists the semi-sync sides: built in (no plugin) or plugins.
	semiSync []fakeSemiSync
	// pluginBlockedBy is the read-only switch that refuses INSTALL PLUGIN.
	pluginBlockedBy string
	// GTIDs: the variables and how to read them; gtidSettable is the one
	// SET GLOBAL takes (the others are read-only).
	mariadbGTID  bool // domain-server-seq positions, else uuid:interval sets
	gtidVars     map[string]func(*fakeServer) string
	gtidSettable string
	gtidSyntax   *regexp.Regexp
	badGTID      fakeErr // a position in another syntax: %s is the position
	// waitFunc waits until waitOn covers a position; it returns 0, or
	// waitTimedOut when the time is up.
	waitFunc, waitOn, waitTimedOut string
}

// fakeSemiSync is one side of semi-sync: the variables it brings (with
// their defaults) and its status variables.
type fakeSemiSync struct {
	plugin, library string // "" where built in
	master          bool
	enabled         string // the variable that turns it on
	vars            map[string]string
	status          map[string]semiStat
}

type semiStat int

const (
	statMasterOn semiStat = iota // the master side works (enabled, not fallen back)
	statClients
	statYesTx
	statNoTx
	statSlaveOn // the slave acknowledges: enabled when its IO thread connected
)

type changeOpt int

const (
	optHost changeOpt = iota + 1
	optPort
	optUser
	optPassword
	optRetry
	optUseGTID      // MariaDB: slave_pos, current_pos or no
	optAutoPosition // MySQL: 0 or 1
	optPublicKey    // MySQL 8: fetch the source's RSA key
)

// fakeCol is one replica status column: its name and what it shows.
type fakeCol struct {
	name string
	what colKind
}

type colKind int

const (
	colIOState colKind = iota
	colHost
	colUser
	colPort
	colRetry
	colIORunning
	colSQLRunning
	colBehind
	colIOErrno
	colIOError
	colSQLErrno
	colSQLError
	colUsingGTID
	colGTIDIOPos
	colExecuted
	colAutoPosition
)

type fakeErr struct {
	num   uint16
	state string
	msg   string
}

// slaveMasterColumns are SHOW SLAVE STATUS's names (MariaDB's for both
// SLAVE and REPLICA; MySQL 8.0's for SLAVE).
var slaveMasterColumns = []fakeCol{{"Slave_IO_State", colIOState}, {"Master_Host", colHost}, {"Master_User", colUser},
	{"Master_Port", colPort}, {"Connect_Retry", colRetry}, {"Slave_IO_Running", colIORunning}, {"Slave_SQL_Running", colSQLRunning},
	{"Seconds_Behind_Master", colBehind}, {"Last_IO_Errno", colIOErrno}, {"Last_IO_Error", colIOError},
	{"Last_SQL_Errno", colSQLErrno}, {"Last_SQL_Error", colSQLError}}

var fakeMariaDB1011 = &fakeDialect{
	product: "MariaDB", versionSuffix: "-MariaDB-fake", versionComment: "MariaDB Server",
	// No super_read_only on MariaDB (read_only stops clients without
	// READ_ONLY ADMIN).
	globals:      map[string]string{"read_only": "0", "default_storage_engine": "InnoDB", "log_slave_updates": "OFF"},
	replicaWords: []string{"SLAVE", "REPLICA"},
	statusColumns: map[string][]fakeCol{
		"SLAVE":   append(slaveMasterColumns[:12:12], fakeCol{"Using_Gtid", colUsingGTID}, fakeCol{"Gtid_IO_Pos", colGTIDIOPos}),
		"REPLICA": append(slaveMasterColumns[:12:12], fakeCol{"Using_Gtid", colUsingGTID}, fakeCol{"Gtid_IO_Pos", colGTIDIOPos}),
	},
	ioConnectErr: "error connecting to master '%[1]s@%[2]s:%[3]d' - message: Can't connect",
	// MariaDB has no CHANGE REPLICATION SOURCE TO and no SOURCE_ options.
	changeStmts: []string{"CHANGE MASTER TO"},
	changeOptions: map[string]changeOpt{"MASTER_HOST": optHost, "MASTER_PORT": optPort, "MASTER_USER": optUser,
		"MASTER_PASSWORD": optPassword, "MASTER_CONNECT_RETRY": optRetry, "MASTER_USE_GTID": optUseGTID},
	privileges: []string{"REPLICATION SLAVE", "REPLICATION REPLICA", "REPLICATION CLIENT", "BINLOG MONITOR", "SLAVE MONITOR", "REPLICA MONITOR"},
	// Built in since 10.3.3: both sides' variables exist from the start.
	// There is no wait-for-count variable: a commit waits for one ack.
	semiSync: []fakeSemiSync{
		{master: true, enabled: "rpl_semi_sync_master_enabled",
			vars: map[string]string{"rpl_semi_sync_master_enabled": "OFF", "rpl_semi_sync_master_timeout": "10000",
				"rpl_semi_sync_master_wait_point": "AFTER_COMMIT", "rpl_semi_sync_master_wait_no_slave": "ON"},
			status: map[string]semiStat{"Rpl_semi_sync_master_status": statMasterOn, "Rpl_semi_sync_master_clients": statClients,
				"Rpl_semi_sync_master_yes_tx": statYesTx, "Rpl_semi_sync_master_no_tx": statNoTx}},
		{enabled: "rpl_semi_sync_slave_enabled",
			vars:   map[string]string{"rpl_semi_sync_slave_enabled": "OFF", "rpl_semi_sync_slave_delay_master": "OFF"},
			status: map[string]semiStat{"Rpl_semi_sync_slave_status": statSlaveOn}},
	},
	mariadbGTID: true,
	gtidVars: map[string]func(*fakeServer) string{
		"gtid_slave_pos": (*fakeServer).slavePos, "gtid_binlog_pos": (*fakeServer).binlogPos, "gtid_current_pos": (*fakeServer).currentPos},
	gtidSettable: "gtid_slave_pos",
	gtidSyntax:   regexp.MustCompile(`^(\d+-\d+-\d+(,\d+-\d+-\d+)*)?$`),
	badGTID:      fakeErr{1941, "HY000", "Could not parse GTID list"},
	// MASTER_GTID_WAIT waits for gtid_slave_pos; -1 on timeout.
	waitFunc: "MASTER_GTID_WAIT", waitOn: "gtid_slave_pos", waitTimedOut: "-1",
}

var fakeMySQL80 = &fakeDialect{
	product: "MySQL", versionSuffix: "-fake", versionComment: "MySQL Community Server - GPL",
	globals:      map[string]string{"read_only": "0", "super_read_only": "0", "default_storage_engine": "InnoDB", "log_replica_updates": "ON"},
	replicaWords: []string{"SLAVE", "REPLICA"},
	// 8.0.22 added SHOW REPLICA STATUS with the new names; SHOW SLAVE
	// STATUS keeps the old ones.
	statusColumns: map[string][]fakeCol{
		"SLAVE": append(slaveMasterColumns[:12:12], fakeCol{"Executed_Gtid_Set", colExecuted}, fakeCol{"Auto_Position", colAutoPosition}),
		"REPLICA": {{"Replica_IO_State", colIOState}, {"Source_Host", colHost}, {"Source_User", colUser}, {"Source_Port", colPort},
			{"Connect_Retry", colRetry}, {"Replica_IO_Running", colIORunning}, {"Replica_SQL_Running", colSQLRunning},
			{"Seconds_Behind_Source", colBehind}, {"Last_IO_Errno", colIOErrno}, {"Last_IO_Error", colIOError},
			{"Last_SQL_Errno", colSQLErrno}, {"Last_SQL_Error", colSQLError}, {"Executed_Gtid_Set", colExecuted},
			{"Auto_Position", colAutoPosition}},
	},
	ioConnectErr: "error connecting to source '%[1]s@%[2]s:%[3]d' - retry-time: %[4]d retries: 1 message: Can't connect to MySQL server on '%[2]s:%[3]d' (111)",
	// 8.0.23 added CHANGE REPLICATION SOURCE TO; both statements take both
	// the MASTER_ and the SOURCE_ option names. MASTER_USE_GTID is MariaDB's.
	changeStmts: []string{"CHANGE MASTER TO", "CHANGE REPLICATION SOURCE TO"},
	changeOptions: map[string]changeOpt{"MASTER_HOST": optHost, "SOURCE_HOST": optHost, "MASTER_PORT": optPort, "SOURCE_PORT": optPort,
		"MASTER_USER": optUser, "SOURCE_USER": optUser, "MASTER_PASSWORD": optPassword, "SOURCE_PASSWORD": optPassword,
		"MASTER_CONNECT_RETRY": optRetry, "SOURCE_CONNECT_RETRY": optRetry,
		"MASTER_AUTO_POSITION": optAutoPosition, "SOURCE_AUTO_POSITION": optAutoPosition,
		"GET_MASTER_PUBLIC_KEY": optPublicKey, "GET_SOURCE_PUBLIC_KEY": optPublicKey},
	privileges: []string{"REPLICATION SLAVE", "REPLICATION CLIENT"},
	// Plugins. 8.0.26 added rpl_semi_sync_source/_replica with the new
	// names; the old plugins remain, with the old names. Only the loaded
	// plugin's names exist, and a side's old and new plugin cannot both load.
	semiSync: []fakeSemiSync{
		{plugin: "rpl_semi_sync_source", library: "semisync_source.so", master: true, enabled: "rpl_semi_sync_source_enabled",
			vars: map[string]string{"rpl_semi_sync_source_enabled": "OFF", "rpl_semi_sync_source_timeout": "10000",
				"rpl_semi_sync_source_wait_point": "AFTER_SYNC", "rpl_semi_sync_source_wait_for_replica_count": "1",
				"rpl_semi_sync_source_wait_no_replica": "ON"},
			status: map[string]semiStat{"Rpl_semi_sync_source_status": statMasterOn, "Rpl_semi_sync_source_clients": statClients,
				"Rpl_semi_sync_source_yes_tx": statYesTx, "Rpl_semi_sync_source_no_tx": statNoTx}},
		{plugin: "rpl_semi_sync_replica", library: "semisync_replica.so", enabled: "rpl_semi_sync_replica_enabled",
			vars:   map[string]string{"rpl_semi_sync_replica_enabled": "OFF"},
			status: map[string]semiStat{"Rpl_semi_sync_replica_status": statSlaveOn}},
		{plugin: "rpl_semi_sync_master", library: "semisync_master.so", master: true, enabled: "rpl_semi_sync_master_enabled",
			vars: map[string]string{"rpl_semi_sync_master_enabled": "OFF", "rpl_semi_sync_master_timeout": "10000",
				"rpl_semi_sync_master_wait_point": "AFTER_SYNC", "rpl_semi_sync_master_wait_for_slave_count": "1",
				"rpl_semi_sync_master_wait_no_slave": "ON"},
			status: map[string]semiStat{"Rpl_semi_sync_master_status": statMasterOn, "Rpl_semi_sync_master_clients": statClients,
				"Rpl_semi_sync_master_yes_tx": statYesTx, "Rpl_semi_sync_master_no_tx": statNoTx}},
		{plugin: "rpl_semi_sync_slave", library: "semisync_slave.so", enabled: "rpl_semi_sync_slave_enabled",
			vars:   map[string]string{"rpl_semi_sync_slave_enabled": "OFF"},
			status: map[string]semiStat{"Rpl_semi_sync_slave_status": statSlaveOn}},
	},
	// INSTALL PLUGIN writes mysql.plugin, which super_read_only refuses.
	pluginBlockedBy: "super_read_only",
	gtidVars:        map[string]func(*fakeServer) string{"gtid_executed": (*fakeServer).executed},
	gtidSyntax:      regexp.MustCompile(`^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(:\d+(-\d+)?)+(,|$))*$`),
	badGTID:         fakeErr{1772, "HY000", "Malformed GTID set specification '%s'."},
	// WAIT_FOR_EXECUTED_GTID_SET waits for gtid_executed; 1 on timeout.
	waitFunc: "WAIT_FOR_EXECUTED_GTID_SET", waitOn: "gtid_executed", waitTimedOut: "1",
}

// dialectFor picks the table for the server the fake is told it is.
func dialectFor(srv flavor.Server) *fakeDialect {
	v := srv.Version
	switch {
	case srv.Flavor == flavor.MariaDB && v.Major == 10 && v.Minor == 11:
		return fakeMariaDB1011
	case srv.Flavor == flavor.MySQL && v.Major == 8 && v.Minor == 0 && v.Patch >= 26:
		return fakeMySQL80
	}
	panic(fmt.Sprintf("fake server: no dialect for %s %s", srv.Flavor, v))
}

// GTID positions. A MariaDB server binlogs only its own writes
// (log_slave_updates OFF), gtid_slave_pos is what replication applied,
// gtid_current_pos the newer of the two. MySQL's gtid_executed holds
// everything applied, replicated or not (one source UUID here).

func (s *fakeServer) binlogPos() string { return mariaPos(s.id, s.ownSeq) }

func (s *fakeServer) slavePos() string { return mariaPos(s.slaveFrom, s.slaveSeq) }

func (s *fakeServer) currentPos() string {
	if s.ownSeq > 0 && s.ownSeq >= s.slaveSeq {
		return s.binlogPos()
	}
	return s.slavePos()
}

func (s *fakeServer) executed() string {
	if s.seq == 0 {
		return ""
	}
	return fmt.Sprintf("%s:1-%d", fakeUUID, s.seq)
}

func mariaPos(serverID int, seq int64) string {
	if seq == 0 {
		return ""
	}
	return fmt.Sprintf("0-%d-%d", serverID, seq)
}
