package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A database host of a flavour built from source runs the server tree
// from the cache, as a user's host runs a binary tarball installed under
// /usr/local: its own /usr/local/sbin (a per-host overlay) links the
// server's programs, so `mariadbd`, `mysqld_safe` and `my_print_defaults`
// on the host's PATH are the tree's, while the clients stay Debian's.

// usrLocalSbin is the host path the lab overlays on such hosts.
const usrLocalSbin = "/usr/local/sbin"

// treeServerPrograms are the tree's programs linked into /usr/local/sbin.
var treeServerPrograms = []string{"mariadbd", "mysqld", "mysqld_safe", "mariadbd-safe", "mysqld_safe_helper",
	"mariadbd-safe-helper", "my_print_defaults", "mariadb-install-db"}

// jemallocCandidates are where Debian's libjemalloc2 puts the library
// TokuDB needs preloaded (by architecture).
var jemallocCandidates = []string{"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2"}

// findJemalloc returns the library mysqld_safe's malloc-lib preloads.
func findJemalloc() (string, error) {
	for _, p := range jemallocCandidates {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no libjemalloc.so.2 in %s: TokuDB loads only with jemalloc preloaded (apt-get install libjemalloc2)",
		strings.Join(jemallocCandidates, ", "))
}

// treeLabCnf is what the lab's option file adds on such a host: the tree
// as basedir (its plugin dir and messages follow), and jemalloc preloaded
// by mysqld_safe (its malloc-lib), as MariaDB's and Percona's TokuDB
// packages set up: without it the server starts without TokuDB.
func treeLabCnf(tree, jemalloc string) string {
	return fmt.Sprintf(`
# The server is the tree %s (a relocatable build): its
# compiled-in datadir and socket are not Debian's, so both are named.
[mysqld]
basedir = %s
datadir = /var/lib/mysql
socket = /run/mysqld/mysqld.sock

[mysqld_safe]
# TokuDB's plugin loads only with jemalloc preloaded into mariadbd.
malloc-lib = %s
`, tree, tree, jemalloc)
}

// pluginLoadRE matches a plugin-load-add line and captures its library.
var pluginLoadRE = regexp.MustCompile(`^\s*plugin[-_]load[-_]add\s*=\s*(\S+)`)

// fitConfToTree makes the host's copy of Debian's /etc/mysql fit the
// tree's server: a plugin-load-add of a library the tree lacks (Debian's
// rocksdb.cnf) is commented out, since the server would log an error for
// it at every start.
func fitConfToTree(etcMysql, tree string) error {
	files, err := filepath.Glob(filepath.Join(etcMysql, "mariadb.conf.d", "*.cnf"))
	if err != nil {
		return err
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		lines := strings.Split(string(raw), "\n")
		changed := false
		for i, l := range lines {
			m := pluginLoadRE.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			if _, err := os.Stat(filepath.Join(tree, "lib", "plugin", m[1])); err == nil {
				continue
			}
			lines[i] = "# orch lab: not in " + tree + ": " + l
			changed = true
		}
		if changed {
			info, err := os.Stat(f)
			if err != nil {
				return err
			}
			if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")), info.Mode().Perm()); err != nil {
				return err
			}
		}
	}
	return nil
}

// linkTreePrograms fills the host's /usr/local/sbin with links to the
// tree's server programs.
func linkTreePrograms(sbin, tree string) error {
	if err := mkdirOwned(sbin, 0o755, 0, 0); err != nil {
		return err
	}
	for _, name := range treeServerPrograms {
		for _, dir := range []string{"bin", "scripts"} {
			target := filepath.Join(tree, dir, name)
			if _, err := os.Stat(target); err != nil {
				continue
			}
			if err := os.Symlink(target, filepath.Join(sbin, name)); err != nil {
				return err
			}
			break
		}
	}
	return nil
}
