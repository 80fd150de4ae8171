package flavor

import "slices"

// Where the packages of the supported servers put things, for probes of a
// host before any server on it can be asked (orch preflight).

// serverBinaries are the server's executable names and paths, tried in
// this order: MariaDB 10.5+ installs mariadbd (mysqld is a symlink to it),
// MySQL and Percona install mysqld; RHEL's packages put it in libexec.
var serverBinaries = []string{"mariadbd", "mysqld", "/usr/sbin/mariadbd", "/usr/sbin/mysqld", "/usr/libexec/mysqld"}

// pluginDirs are the packages' plugin directories (@@plugin_dir): Debian
// and Ubuntu, RHEL and its rebuilds, Debian's libmariadb19, and the
// tarballs' default prefix.
var pluginDirs = []string{"/usr/lib/mysql/plugin", "/usr/lib64/mysql/plugin",
	"/usr/lib/x86_64-linux-gnu/mariadb19/plugin", "/usr/local/mysql/lib/plugin"}

// serviceNames are the packages' service names (systemd units and init
// scripts), tried in this order when the inventory names none: Debian's
// and Percona's mysql, MariaDB's mariadb, RHEL's mysqld.
var serviceNames = []string{"mysql", "mariadb", "mysqld"}

// ServiceNames lists the service names to look for, in order.
func ServiceNames() []string { return slices.Clone(serviceNames) }

// ServerBinaries lists the server executables to look for, in order.
func ServerBinaries() []string { return slices.Clone(serverBinaries) }

// PluginDirs lists the usual plugin directories, in order.
func PluginDirs() []string { return slices.Clone(pluginDirs) }
