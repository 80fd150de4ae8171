// Package server lays down and removes orch's configuration on one
// database host: the engine profile (playbooks), the inventory's
// profile.vars and the user's --knob overrides, rendered to ONE orch-owned
// option file, checked against the running server before anything
// restarts, applied with SET GLOBAL or a restart, and verified.
//
// A Node is THE database-host session of a command: executor, MySQL pool,
// detected server and facts. Commands get theirs from cluster.Open, which
// opens each host once; replication, dataset and monitor take Nodes.
//
// # Use
//
//	n, err := server.Open(ctx, host, ex, nil) // connect, detect flavour, probe the host
//	t, err := n.Target(ctx, inv)
//	cfg, err := server.Render(t, server.Desired{Engine: "innodb", Knobs: knobs})
//	plan, err := n.Check(ctx, cfg)          // unknown names fail here; nothing written
//	res, err := n.Apply(ctx, cfg, plan, progress)
//	...
//	res, err := n.Restore(ctx, progress)    // orch down
//
// A dry run renders without connecting: OfflineTarget(host, inv, hint) takes
// the server from --flavor or the inventory's mysql.flavor ("mariadb",
// "percona:5.7.44"; a flavour alone assumes a version, said in the header).
//
// # The file
//
// One file, FileName (99-orch.cnf), in the include directory the server's
// option files read last (mysql.config_dir, else found by following the
// !includedir lines of /etc/my.cnf and /etc/mysql/my.cnf: Debian's MariaDB
// reads conf.d before mariadb.conf.d, so a file in conf.d silently loses).
// Its header says orch owns it and what produced it; rendering is
// deterministic, so an unchanged config is an unchanged file. Each write
// keeps the replaced version as .bak; a file orch did not write is kept as
// .orig the first time, and Restore puts it back (or removes orch's file
// when there was none). Options a plugin provides (semi-sync on MySQL,
// rocksdb_*, tokudb_*) are written loose-, so the server starts before the
// plugin is installed. These rules (read order, option groups, loose-,
// which plugin owns a variable) are the flavour table's: flavor/config.go
// and flavor/engines.go.
//
// Another flavour's variable (binlog_order_commits on MariaDB, from the
// flavour table) is refused wherever it is named, with where it can be
// asked instead: a cell setting it would measure noise only.
//
// # Checks before anything restarts
//
// Every profile variable and knob must be a server variable (SHOW GLOBAL
// VARIABLES), an option-only name (plugin_load_add), or belong to a plugin
// that will be loaded (semi-sync plugins, which the replication step
// installs; an engine plugin whose library is in @@plugin_dir). Otherwise
// the error names host, variable and server, with suggestions for typos and
// for reordered words (binlog_sync -> sync_binlog).
//
// Whether a change needs a restart comes from the server: on MariaDB
// information_schema.SYSTEM_VARIABLES.READ_ONLY; MySQL has no such column, so
// each changed variable is set to its own value (SET GLOBAL x = @@GLOBAL.x),
// which fails with error 1238 exactly when it is read-only. gtid_mode is
// always changed by restart (MySQL moves it one step at a time). Values are
// compared normalised: 128M = 134217728, ON = 1 = TRUE, case-insensitive,
// relay-bin = /var/lib/mysql/relay-bin.
//
// # Apply
//
// Engine plugin installed if needed (TokuDB: INSTALL PLUGIN for the engine
// and its information_schema tables, with transparent huge pages off
// first), file written, then `my_print_defaults --mysqld` must show orch's
// value winning for every option (last occurrence wins). With only dynamic
// changes, SET GLOBAL applies them; any static change, or a variable the old
// file set and the new one drops, restarts the server through its service
// (the inventory's commands, else the systemd unit when PID 1 is systemd,
// else the init script). Finally SHOW GLOBAL VARIABLES must show every
// intended value. A failure at any step restores the previous file and
// running values (restarting on them if the server had restarted); a server
// that does not start is reported with the [ERROR] lines its error log got
// since the attempt.
package server
