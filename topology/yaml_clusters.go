package topology

import (
	"fmt"
	"maps"
	"slices"

	"gopkg.in/yaml.v3"
)

// A file with a clusters list describes several clusters, each a mapping
// like a one-cluster file (name, known_hosts, defaults, replication,
// profile, hosts) plus a required name. Top-level settings are inherited:
// a cluster's defaults apply over the top-level defaults, and its
// replication and profile keys override the top-level ones key by key.

var clusterKeys = []string{"name", "known_hosts", "defaults", "replication", "profile", "benchmark", "hosts"}

func (d *yamlDecoder) clusters(key, n *yaml.Node, top *clusterSpec, o LoadOptions) ([]parsedCluster, error) {
	n = deref(n)
	switch {
	case isNull(n):
		return nil, d.errAt(key, "clusters: no clusters listed")
	case n.Kind != yaml.SequenceNode:
		return nil, d.errAt(n, "clusters: expected a list of clusters, each with a name and hosts; found %s", describe(n, false))
	case len(n.Content) == 0:
		return nil, d.errAt(n, "clusters: no clusters listed")
	}
	out := make([]parsedCluster, 0, len(n.Content))
	names := map[string]*yaml.Node{}
	var errs []error
	for i, item := range n.Content {
		path := fmt.Sprintf("clusters[%d]", i)
		c, nameNode, err := d.cluster(item, path, top, o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev := names[c.inv.Name]; prev != nil {
			errs = append(errs, d.errAt(nameNode, "%s.name: duplicate cluster name %q (first used at line %d)", path, c.inv.Name, prev.Line))
			continue
		}
		names[c.inv.Name] = nameNode
		out = append(out, c)
	}
	if err := joinErrors(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// cluster reads one item of the clusters list over a copy of the
// top-level settings.
func (d *yamlDecoder) cluster(n *yaml.Node, path string, top *clusterSpec, o LoadOptions) (parsedCluster, *yaml.Node, error) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return parsedCluster{}, nil, d.errAt(n, "%s: expected a mapping with name and hosts; found %s", path, describe(n, false))
	}
	inv := *top.inv
	inv.Name = ""
	inv.Profile.Vars = maps.Clone(top.inv.Profile.Vars)
	c := &clusterSpec{inv: &inv, defSSH: slices.Clone(top.defSSH), defMySQL: slices.Clone(top.defMySQL), countNode: top.countNode}
	var (
		hosts    []*yamlHost
		hostsKey *yaml.Node
		nameNode *yaml.Node
	)
	err := d.mapping(n, path, clusterKeys, func(key string, k, v *yaml.Node) (err error) {
		switch key {
		case "hosts":
			hostsKey, inv.hostsPos = k, d.pos(k)
			hosts, err = d.hosts(k, v, path+".hosts")
		case "name":
			nameNode, inv.namePos = v, d.pos(v)
			if inv.Name, err = d.str(v, path+".name"); err == nil {
				if problem := checkClusterName(inv.Name); problem != "" {
					err = d.errAt(v, "%s.name: %s", path, problem)
				}
			}
		default:
			err = d.setting(key, v, c)
		}
		return err
	})
	switch {
	case err != nil:
		return parsedCluster{}, nil, err
	case nameNode == nil:
		return parsedCluster{}, nil, d.errAt(n, "%s: missing required key \"name\" (every cluster of a list is named)", path)
	case hostsKey == nil:
		return parsedCluster{}, nil, d.errAt(n, "%s: missing required key \"hosts\"", path)
	}
	pc, err := d.finish(c, hosts, o)
	return pc, nameNode, inCluster(inv.Name, err)
}

// MaxNameLen bounds host and cluster names: they name run directories,
// orch's state directory and lock files (a file name has at most 255
// bytes), checked before any host rather than failing after connecting.
const MaxNameLen = 64

// checkClusterName: cluster names select clusters on the command line
// (--cluster NAME) and name run directories, so they follow the host name
// rules.
func checkClusterName(name string) string {
	switch {
	case name == "":
		return "empty cluster name"
	case len(name) > MaxNameLen:
		return fmt.Sprintf("cluster name %q is %d characters; at most %d", clip(name), len(name), MaxNameLen)
	case !hostNameRE.MatchString(name):
		return fmt.Sprintf("invalid cluster name %q (letters, digits, '_', '.' and '-', starting with a letter or digit)", clip(name))
	case name == "all":
		return `cluster name "all" is reserved as a cluster selector`
	}
	return ""
}
