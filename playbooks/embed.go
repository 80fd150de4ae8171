// Package playbooks holds the server configuration profiles `orch up` lays
// down, embedded in the binary so a cluster can be configured with nothing
// but orch and an inventory.
//
// Each profile is a text/template (profiles/NAME.cnf) that renders to MySQL
// option-file text; orchestrator/server parses the result, applies the
// inventory's profile.vars and the --knob overrides, and writes one
// orch-owned file per host. Engine profiles (innodb.cnf, tokudb.cnf,
// rocksdb.cnf) start with {{template "base.cnf" .}}, the settings every
// replicated server needs. A user's profile directory (--profile-dir,
// inventory profile.dir) may replace any of these files by name or add
// templates of its own; files it does not have come from here.
//
// Templates see orchestrator/server.ProfileData: .Host, .Address, .Role,
// .ServerID, .Flavor, .Server, .Version, .Engine, .EngineName, .Datadir,
// .Vars, .GTID, .SemiSync and .PositionTables (see that type for what each
// holds). Where servers differ, a profile ranges over values the flavour
// table gives (.GTID, .SemiSync, .PositionTables) rather than testing
// .Flavor: orchestrator/flavor's leak test fails on an if on .Flavor.
package playbooks

import "embed"

// Profiles holds profiles/*.cnf.
//
//go:embed profiles/*.cnf
var Profiles embed.FS

// ProfileDir is the directory of the profiles inside Profiles.
const ProfileDir = "profiles"
