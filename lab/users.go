package lab

import (
	"bytes"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
)

// sysFiles are a host's account databases.
type sysFiles struct {
	passwd, shadow, group, gshadow []byte
}

// account is a login the lab adds to every host.
type account struct {
	name       string
	uid, gid   int
	home       string
	shell      string
	hash       string // crypt(3) hash, never the password
	changedDay int64  // days since the epoch of the last password change
}

// readSysFiles reads the root namespace's account databases, which every
// host's copies start from (so system users such as mysql and sshd exist
// with the same IDs the installed files are owned by).
func readSysFiles() (sysFiles, error) {
	var f sysFiles
	for _, p := range []struct {
		path string
		dst  *[]byte
	}{{"/etc/passwd", &f.passwd}, {"/etc/shadow", &f.shadow}, {"/etc/group", &f.group}, {"/etc/gshadow", &f.gshadow}} {
		b, err := os.ReadFile(p.path)
		if err != nil {
			return f, fmt.Errorf("read account database: %w", err)
		}
		*p.dst = b
	}
	return f, nil
}

// withAccount returns copies of the databases in which a is the only entry
// with its name: an existing entry is replaced, so rebuilding is
// idempotent. A shadow change day of 0 would force a password change at
// first login, so changedDay must be set.
func (f sysFiles) withAccount(a account) sysFiles {
	return sysFiles{
		passwd: appendLine(dropEntry(f.passwd, a.name),
			fmt.Sprintf("%s:x:%d:%d::%s:%s", a.name, a.uid, a.gid, a.home, a.shell)),
		shadow: appendLine(dropEntry(f.shadow, a.name),
			fmt.Sprintf("%s:%s:%d:0:99999:7:::", a.name, a.hash, a.changedDay)),
		group:   appendLine(dropEntry(f.group, a.name), fmt.Sprintf("%s:x:%d:", a.name, a.gid)),
		gshadow: appendLine(dropEntry(f.gshadow, a.name), a.name+":!::"),
	}
}

// dropEntry removes the lines of a colon-separated database for name.
func dropEntry(db []byte, name string) []byte {
	var out bytes.Buffer
	for _, line := range strings.SplitAfter(string(db), "\n") {
		if line == "" || strings.HasPrefix(line, name+":") {
			continue
		}
		out.WriteString(line)
	}
	return out.Bytes()
}

func appendLine(db []byte, line string) []byte {
	out := append([]byte(nil), db...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, line+"\n"...)
}

// nextFreeID returns the smallest ID >= min not used in the third field of
// a passwd or group database, ignoring the entry for skip (which is about
// to be replaced).
func nextFreeID(db []byte, min int, skip string) int {
	used := map[int]bool{}
	for _, line := range strings.Split(string(db), "\n") {
		f := strings.Split(line, ":")
		if len(f) < 3 || f[0] == skip {
			continue
		}
		if id, err := strconv.Atoi(f[2]); err == nil {
			used[id] = true
		}
	}
	id := min
	for used[id] {
		id++
	}
	return id
}

// lookupIDs returns a system user's UID and GID in the root namespace.
func lookupIDs(name string) (int, int, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return 0, 0, fmt.Errorf("look up user %s (is mariadb-server installed?): %w", name, err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return 0, 0, fmt.Errorf("user %s: uid %q: %w", name, u.Uid, err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return 0, 0, fmt.Errorf("user %s: gid %q: %w", name, u.Gid, err)
	}
	return uid, gid, nil
}

// lookupGID returns a group's GID, or def when the group does not exist.
func lookupGID(name string, def int) int {
	g, err := user.LookupGroup(name)
	if err != nil {
		return def
	}
	gid, err := strconv.Atoi(g.Gid)
	if err != nil {
		return def
	}
	return gid
}
