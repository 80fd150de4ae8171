package topology

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Set is every cluster that one inventory file with a clusters list, or
// several inventory files (repeated -i), describe. Each cluster is an
// Inventory exactly as Load returns it for a one-cluster file, with a
// name; no host belongs to two clusters.
type Set struct {
	// Name is the top-level name of a file with a clusters list.
	Name     string       `json:"name,omitempty"`
	Sources  []string     `json:"sources"`
	Clusters []*Inventory `json:"clusters"`
	listPos  *Pos         // the clusters key of a one-file set with a list
}

// LoadSet loads every cluster of the given files. A one-cluster file
// without a name is named after its file ("lab" for inventories/lab.yaml).
// Errors are positioned like Load's; across files, the second declaration
// of a shared host or cluster name is the one reported.
func LoadSet(paths []string, opts LoadOptions) (*Set, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("inventory: no inventory file given")
	}
	o, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	out := &Set{}
	for _, path := range paths {
		data, err := readInventory(path)
		if err != nil {
			return nil, err
		}
		s, err := parseSet(path, data, o)
		if err != nil {
			return nil, err
		}
		for _, inv := range s.Clusters {
			if inv.Name == "" {
				inv.Name = fileStem(path)
			}
		}
		out.Sources = append(out.Sources, path)
		out.Clusters = append(out.Clusters, s.Clusters...)
		if len(paths) == 1 {
			out.Name, out.listPos = s.Name, s.listPos
		}
	}
	if err := out.checkDisjoint(); err != nil {
		return nil, err
	}
	return out, nil
}

func fileStem(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// Names lists the clusters' names in inventory order.
func (s *Set) Names() []string {
	names := make([]string, len(s.Clusters))
	for i, c := range s.Clusters {
		names[i] = c.Name
	}
	return names
}

// Select returns the named cluster, or every cluster for "" and "all".
func (s *Set) Select(name string) ([]*Inventory, error) {
	if name == "" || name == "all" {
		return s.Clusters, nil
	}
	for _, c := range s.Clusters {
		if c.Name == name {
			return []*Inventory{c}, nil
		}
	}
	return nil, fmt.Errorf("no cluster %q in %s (clusters: %s)", name, CapList(s.Sources, MaxListedHosts), CapList(s.Names(), MaxListedHosts))
}

// Hosts returns every host of every cluster, cluster by cluster.
func (s *Set) Hosts() []*Host {
	var out []*Host
	for _, c := range s.Clusters {
		out = append(out, c.Hosts...)
	}
	return out
}

// pick is Load's choice: the named cluster, or the only one.
func (s *Set) pick(name string) (*Inventory, error) {
	at := Pos{File: CapList(s.Sources, MaxListedHosts)}
	if s.listPos != nil {
		at = *s.listPos
	}
	if name == "" {
		if len(s.Clusters) == 1 {
			return s.Clusters[0], nil
		}
		return nil, newError(at, fmt.Sprintf("the inventory holds %d clusters (%s) and this command works on one: choose it with --cluster NAME",
			len(s.Clusters), CapList(s.Names(), MaxListedHosts)))
	}
	for _, c := range s.Clusters {
		if c.Name == name || s.listPos == nil && c.Name == "" && fileStem(c.Source) == name {
			return c, nil
		}
	}
	names := s.Names()
	if s.listPos == nil && s.Clusters[0].Name == "" {
		names = []string{fileStem(s.Clusters[0].Source)}
	}
	return nil, newError(at, fmt.Sprintf("no cluster %q (clusters: %s)", name, CapList(names, MaxListedHosts)))
}

// checkDisjoint rejects a host in two clusters (same address and SSH
// port) and two clusters with one name. It reports the later declaration.
// Host names may repeat across clusters (master, slave1, ... in each):
// commands select a cluster first.
func (s *Set) checkDisjoint() error {
	type sshd struct {
		addr string
		port int
	}
	type owner struct {
		cluster string
		host    *Host
	}
	byAddr := map[sshd]owner{}
	clusters := map[string]*Inventory{}
	for _, c := range s.Clusters {
		if prev := clusters[c.Name]; prev != nil && c.Name != "" {
			at := c.namePos
			if at.File == "" {
				at = c.hostsPos
			}
			return newError(at, fmt.Sprintf("cluster name %q is already used by the cluster of %s: cluster names must be unique", c.Name, prev.Source))
		}
		clusters[c.Name] = c
		for _, h := range c.Hosts {
			key := sshd{addrKey(h.Address), sshPortKey(h.SSH.Port)}
			if prev, ok := byAddr[key]; ok && prev.cluster != c.Name {
				return newError(h.Pos, fmt.Sprintf("host %q (%s, SSH port %d) is also in cluster %q as %q (%s): a host belongs to one cluster",
					h.Name, h.Address, key.port, prev.cluster, prev.host.Name, posText(prev.host.Pos)))
			}
			byAddr[key] = owner{c.Name, h}
		}
	}
	return nil
}

// posText is a position for inside a message: "FILE:LINE".
func posText(p Pos) string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// inCluster names the cluster in an error about one cluster of a list.
func inCluster(name string, err error) error {
	if name == "" || err == nil {
		return err
	}
	return eachError(err, func(err error) error {
		var te *Error
		if !errors.As(err, &te) {
			return err
		}
		return newError(te.Pos, fmt.Sprintf("cluster %q: %s", name, te.Msg))
	})
}
