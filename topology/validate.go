package topology

import (
	"fmt"
	"regexp"
)

// hostDecl is a parsed host with the positions of its fields, so checks
// across hosts can point at the offending value. For ips.txt every position
// is the host's line.
type hostDecl struct {
	host                      *Host
	namePos, rolePos, addrPos Pos
}

var hostNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// checkHostName validates a host name; names double as selectors on the
// command line, so they must not shadow a selector keyword.
func checkHostName(name string, role Role) string {
	switch {
	case name == "":
		return "empty host name"
	case len(name) > MaxNameLen:
		return fmt.Sprintf("host name %q is %d characters; at most %d", clip(name), len(name), MaxNameLen)
	case !hostNameRE.MatchString(name):
		return fmt.Sprintf("invalid host name %q (letters, digits, '_', '.' and '-', starting with a letter or digit)", clip(name))
	case name == "all" || name == "db":
		return fmt.Sprintf("host name %q is reserved as a host selector", name)
	case (name == string(RoleMaster) || name == string(RoleSlave) || name == string(RoleLoadBox)) && Role(name) != role:
		return fmt.Sprintf("host name %q is the name of another role; it would select the %s hosts, not this %s", name, name, role)
	}
	return ""
}

// checkHosts runs the checks that involve more than one host, host by host
// in file order, and reports every host's first problem.
// Lookups are by map: a 1 MiB file can declare tens of thousands of hosts.
func checkHosts(decls []hostDecl, hostsPos Pos) error {
	type sshd struct {
		addr string
		port int
	}
	var (
		master *hostDecl
		names  = make(map[string]*hostDecl, len(decls))
		dbAt   = make(map[string]*hostDecl) // first database host per address
		lbAt   = make(map[string]*hostDecl) // first load box per address
		sshds  = make(map[sshd]*hostDecl, len(decls))
	)
	var errs []error
	for i := range decls {
		d := &decls[i]
		h := d.host
		if prev := names[h.Name]; prev != nil {
			errs = append(errs, newError(d.namePos, fmt.Sprintf("duplicate host name %q (first used at line %d)", h.Name, prev.namePos.Line)))
			continue
		}
		names[h.Name] = d
		switch h.Role {
		case RoleMaster:
			if master != nil {
				errs = append(errs, newError(d.rolePos, fmt.Sprintf("only one master is allowed; %q is already the master (line %d)", master.host.Name, master.rolePos.Line)))
				continue
			}
			master = d
		}
		// Several load boxes are allowed (the benchmark runs on all of
		// them at once); their names are unique and their SSH endpoints
		// distinct like every host's, checked below.
		addr := addrKey(h.Address)
		mine, other := dbAt, lbAt
		if !h.IsDB() {
			mine, other = lbAt, dbAt
		}
		if prev := other[addr]; prev != nil {
			lb, db := h, prev.host
			if h.IsDB() {
				lb, db = prev.host, h
			}
			errs = append(errs, newError(d.addrPos, fmt.Sprintf("load box %q and database host %q have the same address %s (line %d); the load generator must run on a separate machine",
				lb.Name, db.Name, h.Address, prev.addrPos.Line)))
			continue
		}
		if mine[addr] == nil {
			mine[addr] = d
		}
		key := sshd{addr, sshPortKey(h.SSH.Port)}
		if prev := sshds[key]; prev != nil {
			errs = append(errs, newError(d.addrPos, fmt.Sprintf("%q has the same address and SSH port as %q (%s port %d, line %d)",
				h.Name, prev.host.Name, h.Address, key.port, prev.addrPos.Line)))
			continue
		}
		sshds[key] = d
	}
	if master == nil {
		errs = append(errs, newError(hostsPos, "no master: one host must have role master"))
	}
	return joinErrors(errs...)
}

// roleOrder lists the hosts master first, then the slaves in file order,
// then the load boxes in file order (the first one prepares the dataset).
func roleOrder(decls []hostDecl) []*Host {
	out := make([]*Host, 0, len(decls))
	for _, r := range []Role{RoleMaster, RoleSlave, RoleLoadBox} {
		for _, d := range decls {
			if d.host.Role == r {
				out = append(out, d.host)
			}
		}
	}
	return out
}

// ValidateCluster checks that the inventory describes a cluster orch may
// set up: exactly one master and two slaves, not an existing server. Load
// has already checked everything else; this is for cluster commands only.
func (inv *Inventory) ValidateCluster() error {
	at := inv.hostsPos
	if at.File == "" {
		at = Pos{File: inv.Source}
	}
	if at.File == "" {
		at.File = "inventory"
	}
	masters, slaves := inv.ByRole(RoleMaster), inv.Slaves()
	if inv.Existing {
		pos := at
		if len(masters) > 0 && masters[0].Pos.File != "" {
			pos = masters[0].Pos
		}
		return newError(pos, "cluster setup is not allowed on an existing server: this inventory names one server to benchmark as it is (orch run and orch matrix, dynamic knobs only); list master, slave and slave to set up a cluster")
	}
	var errs []error
	if len(masters) != 1 {
		errs = append(errs, newError(posOr(masters, 1, at), fmt.Sprintf("a cluster needs exactly one master; found %d%s", len(masters), hostNames(masters))))
	}
	if len(slaves) != 2 {
		errs = append(errs, newError(posOr(slaves, 2, at), fmt.Sprintf("a cluster needs exactly 2 slaves; found %d%s", len(slaves), hostNames(slaves))))
	}
	if !inv.Replication.SemiSync.Enabled {
		pos := inv.asyncAt
		if pos.File == "" {
			pos = at
		}
		errs = append(errs, newError(pos, "replication.semi_sync.enabled: false is not supported: orch sets up semi-sync replication (asynchronous clusters are not supported yet)"))
	}
	return joinErrors(errs...)
}

// ValidateUse checks that the inventory is one orch can benchmark: an
// existing server (run and matrix only), or a cluster ValidateCluster
// accepts. It is what orch inventory, run and matrix refuse; up and down
// call ValidateCluster, which refuses an existing server too.
func (inv *Inventory) ValidateUse() error {
	if inv.Existing {
		return nil
	}
	return inv.ValidateCluster()
}

// posOr points at hosts[i], the first one too many, or at fallback when
// there are too few.
func posOr(hosts []*Host, i int, fallback Pos) Pos {
	if i < len(hosts) && hosts[i].Pos.File != "" {
		return hosts[i].Pos
	}
	return fallback
}

func hostNames(hosts []*Host) string {
	if len(hosts) == 0 {
		return ""
	}
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = h.Name
	}
	return " (" + CapList(names, MaxListedHosts) + ")"
}

// MaxListedHosts caps the hosts (or clusters, or per-host entries) one
// error names: an inventory of 15,000 slaves gets one readable line, not
// 100 KiB.
const MaxListedHosts = 10
