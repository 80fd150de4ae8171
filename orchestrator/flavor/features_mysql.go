package flavor

// Rows learned from Oracle MySQL on a real server (the MySQL lab, `orch lab
// up --flavor mysql`: MySQL 9.7.4), each checked against the MySQL manual;
// kept in their own file so the main table's layout is untouched.

const (
	// PrintDefaultsArgs are the arguments my_print_defaults takes to print
	// the options the server reads at startup.
	PrintDefaultsArgs Feature = "print-defaults-args"
	// PluginInstallBlockedBy is the read-only switch that refuses INSTALL
	// PLUGIN, which writes mysql.plugin; "" where none does.
	PluginInstallBlockedBy Feature = "plugin-install-blocked-by"
	// BinlogBytesQuery reads the bytes the server has written to its
	// binary log (one row, one number) where SHOW GLOBAL STATUS has no
	// Binlog_bytes_written (MariaDB's): "" where the status variable
	// serves.
	BinlogBytesQuery Feature = "binlog-bytes-query"
)

func init() { rules = append(rules, mysqlRules...) }

var mysqlRules = []rule{
	// --mysqld is MariaDB's (every group mariadbd reads, versioned ones
	// too); MySQL's my_print_defaults takes group names and refuses
	// --mysqld ("unknown option"): mysqld reads [mysqld] and [server].
	{PrintDefaultsArgs, onMariaDB, none, none, "--mysqld"},
	{PrintDefaultsArgs, mysqlFamily, none, none, "mysqld server"},
	// super_read_only (5.7.8+) refuses INSTALL PLUGIN even to SUPER
	// (ERROR 1290 "running with the --super-read-only option"), and orch's
	// slaves start with it ON; read_only alone does not refuse it.
	{PluginInstallBlockedBy, mysqlFamily, V(5, 7, 8), none, "super_read_only"},
	// MySQL and Percona count no binary log bytes in SHOW STATUS; the
	// Performance Schema's file I/O summary does, under the binary log
	// files' instrument (wait/io/file/sql/binlog, enabled by default).
	{BinlogBytesQuery, mysqlFamily, V(5, 7, 0), none,
		"SELECT SUM_NUMBER_OF_BYTES_WRITE FROM performance_schema.file_summary_by_event_name WHERE EVENT_NAME = 'wait/io/file/sql/binlog'"},
}

// BinlogBytesQuery is the query for the bytes s has written to its binary
// log, "" when SHOW GLOBAL STATUS has them (Binlog_bytes_written).
func (s Server) BinlogBytesQuery() string { return s.value(BinlogBytesQuery) }

// PrintDefaultsArgs is what my_print_defaults is given to show the options
// s reads at startup.
func (s Server) PrintDefaultsArgs() string { return s.value(PrintDefaultsArgs) }
