package lab

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A lab flavour is the server the lab's database hosts run. Everything that
// differs between flavours is a row of labFlavors: Up, Down, status, fault,
// tree and the inventories read the row and never test a flavour's name.
// Adding a flavour is a row here plus, for a server that is neither a
// Debian package of this machine nor a Debian suite's tree, one recipe file
// (tokudb_server.go is the one for a source build).

// Lab flavours (Config.Flavor, State.Flavor).
const (
	FlavorMariaDB = "mariadb"
	FlavorMySQL   = "mysql"
	FlavorTokuDB  = "tokudb"
)

// serverSource is where a flavour's server comes from.
type serverSource int

const (
	// fromDebianPackage: the control machine's own Debian packages
	// (lab-deps.sh installs them); the namespace lab's hosts run them.
	fromDebianPackage serverSource = iota
	// fromSuiteTree: a Debian suite's tree made with debootstrap and
	// booted by systemd-nspawn (dbTree).
	fromSuiteTree
	// fromSourceBuild: a relocatable server tree under the cache, from an
	// archive the user names, an earlier build, or a build from a Debian
	// source package (build).
	fromSourceBuild
)

// labFlavor is one row of the flavour table.
type labFlavor struct {
	name    string   // --flavor
	aliases []string // other spellings --flavor accepts
	// state is what State.Flavor records: "" for MariaDB, as every lab
	// before the flavour table wrote it.
	state string
	// display names the lab in messages ("MySQL (systemd)").
	display string
	// server and version say what the database hosts run, for help and
	// the inventory's header.
	server, version string
	source          serverSource
	// systemd: the lab is always a systemd lab (the package's own unit on
	// a booted tree), whatever --systemd says.
	systemd bool
	// dbTree is what a systemd lab's database hosts boot (nil: the Debian
	// 12 tree, as the load box).
	dbTree *treeSpec
	// build is the recipe of a fromSourceBuild server.
	build *serverBuild
	// engines are the storage engines the lab's servers offer.
	engines []string
	// client is what the load box drives the servers with.
	client string
	// process is the server's process name (comm) on a database host;
	// serverName names it in messages.
	process, serverName string
	// invFlavor is the inventory's mysql.flavor.
	invFlavor string
	// clusters says why --clusters > 1 is refused ("" when it is not).
	clusters string
	// memory are the profile vars of the lab's inventories: the engines'
	// caches, small (three servers share one small machine) and equal
	// (a comparison gives every engine the same cache budget).
	memory map[string]string
}

// labFlavors is the one table of lab flavours, the default first.
var labFlavors = []labFlavor{
	{
		name: FlavorMariaDB, display: "MariaDB", server: "MariaDB", version: "10.11 (Debian 12)",
		source: fromDebianPackage, engines: []string{"innodb", "rocksdb"},
		client: "sysbench 1.0.20 and mariadb-client 10.11 (Debian 12)", process: "mariadbd", serverName: "mariadb",
		invFlavor: "mariadb",
		memory:    map[string]string{"innodb_buffer_pool_size": "128M", "rocksdb_block_cache_size": "128M"},
	},
	{
		name: FlavorMySQL, state: FlavorMySQL, display: "MySQL (systemd)", server: "Oracle MySQL", version: "9.7 (Debian sid)",
		source: fromSuiteTree, systemd: true, dbTree: &mysqlTree, engines: []string{"innodb"},
		client: "sysbench 1.0.20 and mariadb-client 10.11 (Debian 12)", process: "mysqld", serverName: "mysql",
		invFlavor: "mysql",
		// MySQL has no MyRocks: only InnoDB's cache is sized.
		memory:   map[string]string{"innodb_buffer_pool_size": "128M"},
		clusters: "a clusters inventory names an orch-made admin account per cluster, and the MySQL lab's stock servers have none (build one cluster)",
	},
	{
		name: FlavorTokuDB, aliases: []string{"mariadb-10.5", "mariadb-tokudb"}, state: FlavorTokuDB,
		display: "MariaDB 10.5 + TokuDB", server: "MariaDB", version: tokudbServer.version + " with TokuDB " + tokudbServer.engineVersion,
		source: fromSourceBuild, build: &tokudbServer, engines: []string{"innodb", "tokudb"},
		client: "sysbench 1.0.20 and mariadb-client 10.11 (Debian 12)", process: "mariadbd", serverName: "mariadb",
		// The version too: a flavour without one is taken as the newest
		// orch knows, which has no TokuDB.
		invFlavor: "mariadb:" + tokudbServer.version,
		clusters:  "the TokuDB lab runs one cluster: three more TokuDB servers do not fit beside it on a machine of this size, and its comparison needs one cluster's noise only",
		memory:    map[string]string{"innodb_buffer_pool_size": "128M", "tokudb_cache_size": "128M"},
	},
}

// flavorNamed returns the row --flavor name (or State.Flavor) selects;
// "" is the default flavour.
func flavorNamed(name string) (labFlavor, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return labFlavors[0], true
	}
	for _, f := range labFlavors {
		if f.name == name || slices.Contains(f.aliases, name) {
			return f, true
		}
	}
	return labFlavor{}, false
}

// flavorOf is the row of a known flavour name, the default for anything
// else (a state file written before the table, or a flavour already
// refused by CheckFlavor).
func flavorOf(name string) labFlavor {
	f, _ := flavorNamed(name)
	if f.name == "" {
		return labFlavors[0]
	}
	return f
}

// FlavorNames lists the --flavor values, for help and errors.
func FlavorNames() []string {
	var out []string
	for _, f := range labFlavors {
		out = append(out, f.name)
	}
	return out
}

// FlavorHelp is one line per flavour for `orch lab up --help`.
func FlavorHelp() string {
	var b strings.Builder
	for _, f := range labFlavors {
		fmt.Fprintf(&b, "  %-8s %s %s: %s; load box: %s\n", f.name, f.server, f.version, strings.Join(f.engines, ", "), f.client)
	}
	return b.String()
}

// labMemory is the flavour's profile vars for the inventory, a copy.
func (f labFlavor) labMemory() map[string]string { return maps.Clone(f.memory) }

// dbUnit is the database service a systemd lab's database hosts run.
func (f labFlavor) dbUnit() string {
	if f.dbTree != nil {
		return f.dbTree.dbUnit
	}
	return bookwormTree.dbUnit
}

// treeFor is the tree a host of a systemd lab of this flavour boots.
func (f labFlavor) treeFor(role string) treeSpec {
	if f.dbTree != nil && role != "loadbox" {
		return *f.dbTree
	}
	return bookwormTree
}

// flavor is the row of the lab this state describes.
func (s State) flavor() labFlavor { return flavorOf(s.Flavor) }

// dbUnit is the database service a lab's database hosts run.
func (s *State) dbUnit() string { return s.flavor().dbUnit() }

// dbProcess is the server's process name (comm) on the database hosts.
func (s *State) dbProcess() string { return s.flavor().process }

// serverName names the lab's server in messages.
func (s *State) serverName() string { return s.flavor().serverName }

// flavorState is what State.Flavor records for a --flavor value.
func flavorState(name string) string { return flavorOf(name).state }

// labName names a lab kind and flavour in messages.
func labName(kind, flavor string) string {
	if f := flavorOf(flavor); f.state != "" {
		return f.display
	}
	return kindName(kind)
}
