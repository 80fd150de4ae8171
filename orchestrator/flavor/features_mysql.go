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
}

// PrintDefaultsArgs is what my_print_defaults is given to show the options
// s reads at startup.
func (s Server) PrintDefaultsArgs() string { return s.value(PrintDefaultsArgs) }
