package server

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/orch-bench/orch/topology"
)

// Settings that would open the cluster to anyone on the network, cut the
// replicas off, or put orch's passwords in the clear are refused before any
// host is contacted, whether they come from --knob, a matrix axis or the
// inventory's profile.vars; --allow-unsafe-knob NAME lets one through with a
// warning. A profile template may not set them at all (Render refuses): a
// deliberate choice belongs on the command line, where it is seen.
//
// The list is written from the manuals, not from what orch happens to use:
//
//   - skip_grant_tables. MySQL 8.4 Reference Manual, 7.1.7 "Server Command
//     Options", --skip-grant-tables: "causes the server to start without
//     using the privilege system at all, which gives anyone with access to
//     the server unrestricted access to all databases". MariaDB KB,
//     "mariadbd Options": "Start without grant tables. This gives all users
//     FULL ACCESS to all tables." (the review saw the lab's three servers
//     accept any password, and later up/down fail with error 1290).
//   - skip_networking, on a cluster with replicas. MySQL 8.4 manual, 7.1.8
//     "Server System Variables", skip_networking: "the server permits only
//     local (non-TCP/IP) connections"; replicas connect to their source over
//     TCP/IP (19.1 "Replication"), so the master would cut them off.
//   - secure_file_priv emptied or "/". MySQL 8.4 manual, secure_file_priv:
//     "If empty, the variable has no effect. This is not a secure setting."
//     (LOAD DATA, SELECT ... INTO OUTFILE and LOAD_FILE() may then read and
//     write any file the server can); "/" is the same, spelt differently.
//   - plugin_load / plugin_load_add naming a test authentication plugin.
//     MySQL 8.4 manual, 8.4.1.14 "Test Pluggable Authentication": the test
//     plugin "is intended for testing and development purposes, and is not
//     for use in production environments or on servers that are exposed to
//     public networks". The libraries are the ones the server trees ship
//     (MariaDB 10.5's lib/plugin: auth_test_plugin.so, qa_auth_server.so,
//     qa_auth_interface.so, auth_0x0100.so, dialog_examples.so; MySQL's
//     test suite: the same auth_test_plugin and qa_auth_* names).
//   - log_raw. MySQL 8.4 manual, 7.1.8, log_raw: passwords in statements
//     written to the general query log "are not rewritten" with it; "for
//     security reasons [it] is not recommended for production use". orch
//     sends passwords in CREATE USER and CHANGE MASTER/REPLICATION SOURCE.
//   - secure_auth=OFF and old_passwords=1. MariaDB KB, "Server System
//     Variables": secure_auth "Connections will be blocked if they use the
//     mysql_old_password authentication plugin" (OFF lets them in);
//     old_passwords=1 makes new passwords use the pre-4.1 hash, which the
//     KB calls "insecure". MySQL 5.7 manual, old_passwords, likewise.

// unsafeKnob is one refused setting: opens says whether value (normalised
// by normValue) would open the cluster, given whether it has replicas.
type unsafeKnob struct {
	why   string
	opens func(value string, replicas bool) bool
}

// testAuthPlugins are test authentication libraries that accept logins
// they should not (see the comment above for where the names come from).
var testAuthPlugins = []string{"auth_test_plugin", "qa_auth_server", "qa_auth_interface", "qa_auth_client",
	"auth_0x0100", "dialog_examples"}

func enabled(v string, _ bool) bool { return v != "off" }

func loadsTestAuth(v string, _ bool) bool {
	for _, item := range strings.Split(v, ";") {
		lib := item
		if _, l, ok := strings.Cut(item, "="); ok {
			lib = l // name=library.so
		}
		lib = strings.TrimSuffix(path.Base(strings.TrimSpace(lib)), ".so")
		if slices.Contains(testAuthPlugins, lib) {
			return true
		}
	}
	return false
}

var unsafeKnobs = map[string]unsafeKnob{
	"skip_grant_tables": {"lets anyone who can reach the server log in with any password, with every privilege", enabled},
	"skip_networking": {"refuses TCP connections, so the master's replicas (and orch) can no longer connect",
		func(v string, replicas bool) bool { return replicas && v != "off" }},
	"secure_file_priv": {"lets SQL read and write any file the server can (empty or / means no limit)",
		func(v string, _ bool) bool { return v == "" || v == "/" }},
	"plugin_load":     {"loads a test authentication plugin, which accepts logins it should refuse", loadsTestAuth},
	"plugin_load_add": {"loads a test authentication plugin, which accepts logins it should refuse", loadsTestAuth},
	"log_raw":         {"writes passwords (orch's too) in the clear to the general query log", enabled},
	"secure_auth": {"lets accounts with pre-4.1 password hashes log in",
		func(v string, _ bool) bool { return v == "off" }},
	"old_passwords": {"hashes new passwords (orch's too) with the insecure pre-4.1 hash",
		func(v string, _ bool) bool { return v != "off" && v != "" }},
}

// UnsafeNames lists the settings orch refuses without --allow-unsafe-knob.
func UnsafeNames() []string {
	var out []string
	for n := range unsafeKnobs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// unsafeSetting says why name=value would open or cut the cluster ("" when
// it would not).
func unsafeSetting(name, value string, replicas bool) string {
	name, _ = canonName(name)
	u, ok := unsafeKnobs[name]
	if !ok || !u.opens(normValue(value), replicas) {
		return ""
	}
	return u.why
}

// CheckUnsafe refuses, before any host, a knob or profile.vars setting that
// would open the cluster (the list above) unless its name is in allow;
// each one allowed comes back as a warning to print. allow names that are
// not on the list are an error too: a misspelt override must not pass
// silently.
func CheckUnsafe(inv *topology.Inventory, knobs []KV, allow []string) (warnings []string, err error) {
	allowed := map[string]bool{}
	for _, a := range allow {
		n, _ := canonName(a)
		if _, ok := unsafeKnobs[n]; !ok {
			return nil, fmt.Errorf("--allow-unsafe-knob %s: not a setting orch refuses (those are %s)", a, strings.Join(UnsafeNames(), ", "))
		}
		allowed[n] = true
	}
	replicas := len(inv.DBHosts()) > 1
	check := func(from, name, value string) error {
		why := unsafeSetting(name, value, replicas)
		if why == "" {
			return nil
		}
		n, _ := canonName(name)
		if allowed[n] {
			warnings = append(warnings, fmt.Sprintf("warning: %s %s=%s %s (allowed by --allow-unsafe-knob %s)", from, n, value, why, n))
			return nil
		}
		return fmt.Errorf("%s %s=%s refused: it %s; pass --allow-unsafe-knob %s to set it anyway", from, n, value, why, n)
	}
	for _, k := range slices.Sorted(maps.Keys(inv.Profile.Vars)) {
		if err := check(inv.Source+": profile.vars", k, inv.Profile.Vars[k]); err != nil {
			return nil, err
		}
	}
	for _, k := range knobs {
		if err := check("--knob", k.Name, k.Value); err != nil {
			return nil, err
		}
	}
	return warnings, nil
}

// checkProfileSafe refuses an unsafe setting written by a profile template
// (origin "profile"): only the command line may ask for one. host and
// profile name it in the error.
func checkProfileSafe(f *cnfFile, host, profile string, replicas bool) error {
	for _, l := range f.lines {
		if l.kind != lineOption || l.origin != "profile" || !isServerSection(l.section) {
			continue
		}
		value := l.value
		if l.bare {
			value = "ON"
		}
		if why := unsafeSetting(l.name, value, replicas); why != "" {
			return fmt.Errorf("%s: profile %s sets %s, which %s; a profile may not: pass it as --knob with --allow-unsafe-knob %s", host, profile, l.name, why, l.name)
		}
	}
	return nil
}
