package topology

import (
	"fmt"
	"strconv"
	"strings"
)

// maxListed is how many offenders an error names before "and N more": an
// inventory of a hundred hosts with bad references must still fail with a
// line that fits a screen.
const maxListed = 3

// secretRef is a secret reference as the file declares it.
type secretRef struct {
	at     Pos
	key    string // replication.password, defaults.ssh.password, ...
	secret Secret
}

// CheckSecrets resolves every secret reference the inventory declares (SSH
// password, passphrase and sudo password, MySQL and replication passwords)
// without keeping a value, so an unset {env: VAR} or a missing or
// unreadable {file: PATH} is bad input found before any host is contacted,
// not halfway through a command. The error is one line: FILE:LINE:COL of
// the first offender and its cause, naming at most a few more.
func (inv *Inventory) CheckSecrets() error {
	var first *Error
	var more []string
	for _, r := range inv.secretRefs {
		if _, err := r.secret.Resolve(); err != nil {
			if first == nil {
				first = newError(r.at, r.key+": "+strings.TrimPrefix(err.Error(), "secret: "))
				continue
			}
			more = append(more, fmt.Sprintf("%s (line %d)", r.key, r.at.Line))
		}
	}
	if first == nil {
		return nil
	}
	if len(more) > 0 {
		first.Msg += "; also unresolvable: " + CapList(more, maxListed)
	}
	return first
}

// CapList joins items with ", ", naming at most n of them and counting the
// rest ("a, b, c and 37 more").
func CapList(items []string, n int) string { return CapJoin(items, n, ", ") }

// CapJoin is CapList with another separator ("a; b; c and 14,990 more"),
// for entries that hold commas themselves.
func CapJoin(items []string, n int, sep string) string {
	n = max(n, 1)
	if len(items) <= n {
		return strings.Join(items, sep)
	}
	return fmt.Sprintf("%s and %s more", strings.Join(items[:n], sep), groupDigits(len(items)-n))
}

// groupDigits writes n with a comma every three digits (14,990).
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
