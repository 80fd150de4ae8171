// Package flavor knows how the MySQL-family servers orch supports differ:
// which flavour and version a server is (Detect), what it can do and how its
// statements are spelled (one rule table of flavour x feature x version,
// features.go), its storage engines (engines.go), how it reads option files
// (config.go), and the exact SQL for each replication step (statements.go).
// It never dials a server: Run sends statements over a Session its caller
// opened, so every statement can be pinned by golden files and hand-written
// tests even when no lab can run it.
package flavor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Flavor is a server family. Percona Server follows MySQL's syntax for the
// same version; it is separate because its engines differ.
type Flavor string

const (
	MySQL   Flavor = "mysql"
	Percona Flavor = "percona"
	MariaDB Flavor = "mariadb"
)

// flavors are the supported flavours, in the order messages list them.
var flavors = []Flavor{MySQL, Percona, MariaDB}

// Flavors lists the supported flavours.
func Flavors() []Flavor { return slices.Clone(flavors) }

// IsFlavor reports whether s spells a flavour exactly as inventories do.
func IsFlavor(s string) bool { return slices.Contains(flavors, Flavor(s)) }

// FlavorList spells the flavours for messages: "mysql, percona or mariadb".
func FlavorList() string {
	names := make([]string, len(flavors))
	for i, f := range flavors {
		names[i] = string(f)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ParseFlavor accepts an inventory's flavour hint ("mysql", "percona",
// "mariadb", any case).
func ParseFlavor(s string) (Flavor, error) {
	if f := Flavor(strings.ToLower(strings.TrimSpace(s))); IsFlavor(string(f)) {
		return f, nil
	}
	return "", fmt.Errorf("unknown server flavour %q (want %s)", s, FlavorList())
}

// Name is the product name used in messages.
func (f Flavor) Name() string {
	switch f {
	case MySQL:
		return "MySQL"
	case Percona:
		return "Percona Server"
	case MariaDB:
		return "MariaDB"
	}
	return string(f)
}

// Version is a server's major.minor.patch. It is comparable with == and
// ordered by Compare.
type Version struct {
	Major, Minor, Patch int
}

// V is shorthand for a Version literal.
func V(major, minor, patch int) Version { return Version{major, minor, patch} }

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// IsZero reports whether v is the zero Version (used as "no bound").
func (v Version) IsZero() bool { return v == Version{} }

// Compare returns -1, 0 or +1 as v is older than, equal to or newer than o.
func (v Version) Compare(o Version) int {
	for _, d := range [3]int{v.Major - o.Major, v.Minor - o.Minor, v.Patch - o.Patch} {
		switch {
		case d < 0:
			return -1
		case d > 0:
			return 1
		}
	}
	return 0
}

// AtLeast reports whether v >= o.
func (v Version) AtLeast(o Version) bool { return v.Compare(o) >= 0 }

// ParseVersion reads the leading major.minor.patch of a VERSION() string and
// ignores what follows a '-', '+', '~' or '_' ("-log", "-48", "-MariaDB-0+deb12u1").
func ParseVersion(s string) (Version, error) {
	s = strings.TrimSpace(s)
	var parts [3]int
	rest := s
	for i := range parts {
		n := 0
		for n < len(rest) && n < 7 && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 0 || n == 7 {
			return Version{}, fmt.Errorf("version %q: want major.minor.patch", s)
		}
		parts[i], _ = strconv.Atoi(rest[:n]) // at most 6 digits: cannot fail
		rest = rest[n:]
		if i < 2 {
			if !strings.HasPrefix(rest, ".") {
				return Version{}, fmt.Errorf("version %q: want major.minor.patch", s)
			}
			rest = rest[1:]
		}
	}
	if rest != "" && !strings.ContainsRune("-+~_", rune(rest[0])) {
		return Version{}, fmt.Errorf("version %q: unexpected %q after major.minor.patch", s, rest)
	}
	return Version{parts[0], parts[1], parts[2]}, nil
}

// Server is a detected (or declared) server: everything flavour-specific is
// a method on it, answered from the rule table.
type Server struct {
	Flavor  Flavor
	Version Version
}

// String is "MariaDB 10.11.19", "MySQL 8.0.36", "Percona Server 5.7.44".
func (s Server) String() string { return s.Flavor.Name() + " " + s.Version.String() }

// mariaDBCompatPrefix is what old MariaDB servers put before the real
// version so that MySQL 5.x clients accept them; seen in handshakes, and
// stripped defensively in case a proxy passes it through.
const mariaDBCompatPrefix = "5.5.5-"

// Detect identifies a server from `SELECT VERSION(), @@version_comment`.
// MariaDB is recognised by "MariaDB" in VERSION() (its comment is whatever
// the packager chose, e.g. "Debian 12"); Percona by "Percona" in the
// comment; anything else with a parsable version is MySQL. Versions orch
// does not support are an error.
func Detect(version, versionComment string) (Server, error) {
	f := MySQL
	switch {
	case strings.Contains(strings.ToLower(version), "mariadb"):
		f = MariaDB
	case strings.Contains(strings.ToLower(versionComment), "percona"):
		f = Percona
	}
	raw := strings.TrimSpace(version)
	if f == MariaDB {
		raw = strings.TrimPrefix(raw, mariaDBCompatPrefix)
	}
	v, err := ParseVersion(raw)
	if err != nil {
		return Server{}, fmt.Errorf("detect server (version %q, comment %q): %w", version, versionComment, err)
	}
	return New(f, v)
}

// New returns the Server for a known flavour and version, or an error when
// orch does not support that version.
func New(f Flavor, v Version) (Server, error) {
	if _, err := ParseFlavor(string(f)); err != nil {
		return Server{}, err
	}
	s := Server{Flavor: f, Version: v}
	if _, ok := s.Lookup(Supported); !ok {
		return Server{}, fmt.Errorf("%s is not supported: orch needs %s", s, supportedRange(f))
	}
	return s, nil
}
