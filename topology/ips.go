package topology

import (
	"fmt"
	"strings"
)

// The legacy ips.txt format: one address per line in role order (master,
// slave, slave, optional load box), each "host" or "host:port" with the SSH
// port, and last the MySQL credentials "user password". The two-line form
// (one address, then credentials) names an existing server to benchmark.
//
// '#' starts a comment at the start of a line or after a space or tab, so a
// password may contain '#' but cannot start with it.
//
// The password must never reach an error message: errors about the
// credentials line, and about any line with two or more fields (it might be
// a misplaced credentials line), never quote the line.

// ipsLine is a line with content: its number and its space-separated fields.
type ipsLine struct {
	n      int
	fields []string
}

// ipsLines returns the non-blank lines with comments removed.
func ipsLines(data []byte) []ipsLine {
	var out []ipsLine
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		for j := 0; j < len(line); j++ {
			if line[j] == '#' && (j == 0 || line[j-1] == ' ' || line[j-1] == '\t') {
				line = line[:j]
				break
			}
		}
		// Only space and tab separate fields: a password may hold any other
		// Unicode space.
		f := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
		if len(f) > 0 {
			out = append(out, ipsLine{n: i + 1, fields: f})
		}
	}
	return out
}

// looksLikeIPs sniffs the format of a file not named .yaml/.yml: ips.txt if
// every line is a lone address-like token, or several fields that do not
// start like YAML (a credentials line, or a mistake best explained in
// ips.txt terms). A YAML inventory always has a "key:" line.
func looksLikeIPs(data []byte) bool {
	for _, l := range ipsLines(data) {
		f := l.fields[0]
		if len(l.fields) == 1 && !addressLike(f) || yamlish(f) {
			return false
		}
	}
	return true
}

func addressLike(tok string) bool {
	for _, r := range tok {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_:[]%", r)
		if !ok {
			return false
		}
	}
	return !strings.HasSuffix(tok, ":")
}

// yamlish reports a first field that only YAML would start a line with: a
// key, a list item, a document marker, flow or quoted text, an anchor, alias,
// tag or directive.
func yamlish(f string) bool {
	return strings.HasSuffix(f, ":") || f == "-" || f == "---" || strings.ContainsAny(f[:1], "{\"'&*!|>%`")
}

// ipsNames are the host names and roles by line, in file order.
var ipsNames = []struct {
	name string
	role Role
}{{"master", RoleMaster}, {"slave1", RoleSlave}, {"slave2", RoleSlave}, {"loadbox", RoleLoadBox}}

func parseIPs(file string, data []byte, o LoadOptions) (*Inventory, []hostDecl, error) {
	at := func(line int, format string, args ...any) error {
		return newError(Pos{File: file, Line: line}, fmt.Sprintf(format, args...))
	}
	if line, _, msg := checkText(data); line > 0 {
		return nil, nil, at(line, "%s", msg)
	}
	lines := ipsLines(data)
	if len(lines) == 0 {
		return nil, nil, at(1, "inventory is empty: expected one address per line, then the MySQL credentials `user password`")
	}
	creds := lines[len(lines)-1]
	switch n := len(creds.fields); {
	case n == 1:
		return nil, nil, at(creds.n, "the last line must be the MySQL credentials `user password`; found a single field (is the credentials line missing?)")
	case n > 2:
		return nil, nil, at(creds.n, "the last line must be the MySQL credentials `user password`; found %d fields (a password with spaces needs a YAML inventory)", n)
	}
	addrs := lines[:len(lines)-1]
	if len(addrs) == 0 {
		return nil, nil, at(creds.n, "no host addresses: list the master, slave and slave (and optionally the load box), or one existing server, before the credentials line")
	}

	inv := newInventory(file, "ips")
	inv.Existing, inv.hostsPos = len(addrs) == 1, Pos{File: file, Line: addrs[0].n}
	var decls []hostDecl
	var errs []error // every bad line, not only the first
	for i, l := range addrs {
		if i == len(ipsNames) {
			errs = append(errs, at(l.n, "too many addresses: ips.txt lists at most 4 (master, slave, slave, load box); found %d", len(addrs)))
			break
		}
		if len(l.fields) != 1 {
			errs = append(errs, at(l.n, "expected one address per line, found %d fields (only the last line holds `user password`)", len(l.fields)))
			continue
		}
		host, port, problem := splitHostPort(l.fields[0])
		if problem != "" {
			errs = append(errs, at(l.n, "bad address %q: %s", clip(l.fields[0]), problem))
			continue
		}
		h := &Host{
			Name:    ipsNames[i].name,
			Role:    ipsNames[i].role,
			Address: host,
			SSH:     cloneSSH(o.SSH),
			MySQL:   o.MySQL,
			Pos:     Pos{File: file, Line: l.n},
		}
		if port != 0 {
			h.SSH.Port = port
		}
		h.MySQL.User = creds.fields[0]
		h.MySQL.Password = InlineSecret(creds.fields[1])
		applyBuiltins(h)
		decls = append(decls, hostDecl{host: h, namePos: h.Pos, rolePos: h.Pos, addrPos: h.Pos})
	}
	if len(addrs) == 2 {
		errs = append(errs, at(addrs[1].n, "found 2 addresses; ips.txt lists one existing server, or master, slave, slave and an optional load box"))
	}
	if err := joinErrors(errs...); err != nil {
		return nil, nil, err
	}
	return inv, decls, nil
}
