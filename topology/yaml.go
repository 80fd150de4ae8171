package topology

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// The YAML cluster file is walked as a yaml.Node tree rather than decoded
// into structs: every error can then point at the offending key or value,
// unknown and duplicate keys are caught, and a key that is present can be
// told apart from a zero value, which field-by-field overrides need
// (`sudo: false` on a host beats `sudo: true` in defaults).
//
// Sections decode into patches, applied in order over the load options:
// options, then defaults, then the host. Parsing never depends on defaults
// having been seen, so errors are reported in document order.

type (
	sshPatch   func(*SSHConfig)
	mysqlPatch func(*MySQLConfig)
)

type yamlDecoder struct {
	file  string
	paths pathResolver
	// What the Inventory keeps for later checks (CheckSecrets, ValidateCluster).
	secretRefs []secretRef
	asyncAt    Pos
}

type yamlHost struct {
	decl  hostDecl
	ssh   []sshPatch
	mysql []mysqlPatch
	// server: role "server", an existing server to benchmark (held as
	// the master of an inventory marked Existing).
	server bool
}

var (
	topKeys  = []string{"name", "known_hosts", "defaults", "replication", "profile", "benchmark", "hosts", "clusters"}
	defKeys  = []string{"ssh", "mysql"}
	hostKeys = []string{"name", "role", "address", "ssh", "mysql"}
)

// parsedCluster is one cluster of a file before the checks across its
// hosts: its inventory (settings, no hosts yet) and its host declarations.
type parsedCluster struct {
	inv   *Inventory
	decls []hostDecl
}

// parsedFile is what one inventory file declares.
type parsedFile struct {
	clusters []parsedCluster
	// list is set for a file with a clusters list: the top-level name and
	// where the list is, for errors about the file's clusters as a whole.
	list *clusterList
}

type clusterList struct {
	name string
	pos  Pos
}

// parseYAML reads a cluster file: one cluster (top-level hosts) or several
// (a clusters list, yaml_clusters.go).
func parseYAML(file string, data []byte, o LoadOptions) (parsedFile, error) {
	root, err := yamlDocument(file, data)
	if err != nil {
		return parsedFile{}, err
	}
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return parsedFile{}, newError(Pos{File: file}, err.Error())
	}
	d := &yamlDecoder{file: file, paths: o.paths(dir)}
	if root.Kind != yaml.MappingNode {
		if isNull(root) {
			return parsedFile{}, d.errAt(root, "inventory is empty: expected a mapping with hosts")
		}
		return parsedFile{}, d.errAt(root, "expected a mapping with keys %s; found %s", strings.Join(topKeys, ", "), describe(root, false))
	}

	top := &clusterSpec{inv: newInventory(file, "yaml")}
	var (
		hosts                 []*yamlHost
		hostsKey, clustersKey *yaml.Node
		clustersNode          *yaml.Node
	)
	err = d.mapping(root, "", topKeys, func(key string, k, v *yaml.Node) (err error) {
		switch key {
		case "hosts":
			hostsKey, top.inv.hostsPos = k, d.pos(k)
			hosts, err = d.hosts(k, v, "hosts")
		case "clusters":
			clustersKey, clustersNode = k, v
		default:
			err = d.setting(key, v, top)
		}
		return err
	})
	switch {
	case err != nil:
		return parsedFile{}, err
	case hostsKey != nil && clustersKey != nil:
		later := laterOf(hostsKey, clustersKey)
		return parsedFile{}, d.errAt(later, "%s: an inventory lists either hosts (one cluster) or clusters, not both", later.Value)
	case clustersKey != nil:
		clusters, err := d.clusters(clustersKey, clustersNode, top, o)
		return parsedFile{clusters: clusters, list: &clusterList{name: top.inv.Name, pos: d.pos(clustersKey)}}, err
	case hostsKey == nil:
		return parsedFile{}, d.errAt(root, `missing required key "hosts"`)
	}
	c, err := d.finish(top, hosts, o)
	if err != nil {
		return parsedFile{}, err
	}
	return parsedFile{clusters: []parsedCluster{c}}, nil
}

// clusterSpec is what a cluster inherits and sets: the inventory holding
// its settings so far and its defaults patches.
type clusterSpec struct {
	inv       *Inventory
	defSSH    []sshPatch
	defMySQL  []mysqlPatch
	countNode *yaml.Node // replication.semi_sync.wait_for_slave_count, when set
}

// setting decodes one of the keys a cluster file and a cluster of a list
// share (name, known_hosts, defaults, replication, profile, benchmark) into c.
// Defaults add to inherited ones; the others override key by key.
func (d *yamlDecoder) setting(key string, v *yaml.Node, c *clusterSpec) (err error) {
	switch key {
	case "name":
		if c.inv.Name, err = d.str(v, key); err == nil {
			if problem := checkClusterName(c.inv.Name); problem != "" {
				err = d.errAt(v, "name: %s", problem)
			}
		}
	case "known_hosts":
		c.inv.KnownHostsFile, err = d.localPath(v, key)
	case "defaults":
		var ssh []sshPatch
		var my []mysqlPatch
		ssh, my, err = d.defaults(v)
		c.defSSH, c.defMySQL = append(c.defSSH, ssh...), append(c.defMySQL, my...)
	case "replication":
		var count *yaml.Node
		if count, err = d.replication(v, &c.inv.Replication); count != nil {
			c.countNode = count
		}
	case "profile":
		err = d.profile(v, &c.inv.Profile)
	case "benchmark":
		c.inv.Benchmark, err = d.benchmark(v)
	}
	return err
}

// finish applies options, defaults and host settings, in that order, to
// the cluster's hosts.
func (d *yamlDecoder) finish(c *clusterSpec, hosts []*yamlHost, o LoadOptions) (parsedCluster, error) {
	if c.countNode != nil {
		if err := d.checkWaitCount(c.countNode, c.inv.Replication.SemiSync.WaitForSlaveCount, hosts); err != nil {
			return parsedCluster{}, err
		}
	}
	if err := d.existing(c.inv, hosts); err != nil {
		return parsedCluster{}, err
	}
	decls := make([]hostDecl, len(hosts))
	for i, yh := range hosts {
		h := yh.decl.host
		h.SSH = cloneSSH(o.SSH)
		h.MySQL = o.MySQL
		for _, patches := range [][]sshPatch{c.defSSH, yh.ssh} {
			for _, p := range patches {
				p(&h.SSH)
			}
		}
		for _, patches := range [][]mysqlPatch{c.defMySQL, yh.mysql} {
			for _, p := range patches {
				p(&h.MySQL)
			}
		}
		applyBuiltins(h)
		decls[i] = yh.decl
	}
	c.inv.secretRefs, c.inv.asyncAt = d.secretRefs, d.asyncAt
	return parsedCluster{inv: c.inv, decls: decls}, nil
}

// yamlDocument parses data into its one document's root node, turning
// yaml.v3 errors into positioned ones.
func yamlDocument(file string, data []byte) (*yaml.Node, error) {
	if line, col, msg := checkText(data); line > 0 {
		return nil, newError(Pos{File: file, Line: line, Col: col}, msg)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		// yaml.v3 trips over a tab in an otherwise blank file.
		return nil, newError(Pos{File: file, Line: 1, Col: 1}, "inventory is empty: expected a mapping with hosts")
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, newError(Pos{File: file, Line: 1, Col: 1}, "inventory is empty: expected a mapping with hosts")
		}
		return nil, syntaxError(file, data, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, newError(Pos{File: file, Line: max(extra.Line, 1), Col: max(extra.Column, 1)},
			"a second YAML document; an inventory is a single document")
	case !errors.Is(err, io.EOF):
		return nil, syntaxError(file, data, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, newError(Pos{File: file, Line: 1, Col: 1}, "inventory is empty: expected a mapping with hosts")
	}
	return doc.Content[0], nil
}

var (
	yamlErrRE = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)
	anchorRE  = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)
	// parserProblems are the yaml.v3 problems raised by its parser rather
	// than its scanner: for those it reports the 0-based line of the
	// construct (off by one), for scanner errors the 1-based line.
	parserProblems = map[string]bool{
		"did not find expected ',' or ']'":       true,
		"did not find expected ',' or '}'":       true,
		"did not find expected '-' indicator":    true,
		"did not find expected <document start>": true,
		"did not find expected <stream-start>":   true,
		"did not find expected key":              true,
		"did not find expected node content":     true,
		"found duplicate %TAG directive":         true,
		"found duplicate %YAML directive":        true,
		"found incompatible YAML document":       true,
		"found undefined tag handle":             true,
	}
)

// syntaxError turns "yaml: line N: problem" into FILE:LINE:COL form. yaml.v3
// gives no column, so the column is 1 unless the problem names something
// that can be found in the text.
func syntaxError(file string, data []byte, err error) error {
	pos := Pos{File: file, Line: 1, Col: 1}
	m := yamlErrRE.FindStringSubmatch(err.Error())
	if m == nil {
		return newError(pos, "YAML syntax error: "+err.Error())
	}
	msg := m[2]
	if m[1] != "" {
		pos.Line, _ = strconv.Atoi(m[1])
		if parserProblems[msg] {
			pos.Line++
		}
	}
	switch a := anchorRE.FindStringSubmatch(msg); {
	case a != nil:
		if i := bytes.Index(data, []byte("*"+a[1])); i >= 0 {
			pos.Line, pos.Col = lineCol(data, i)
		}
	case strings.Contains(msg, "tab character"):
		// yaml.v3 names the line where the enclosing value starts; the
		// culprit is the first tab in indentation from there on.
		pos.Line, pos.Col = indentTab(data, pos.Line)
	}
	// Errors at end of input can name the line after the last one.
	pos.Line = min(max(pos.Line, 1), bytes.Count(data, []byte("\n"))+1)
	return newError(pos, "YAML syntax error: "+msg)
}

// indentTab finds the first tab in the indentation of a line at or after
// from, or returns from and column 1.
func indentTab(data []byte, from int) (int, int) {
	for i, line := range bytes.Split(data, []byte("\n")) {
		if i+1 < from {
			continue
		}
		indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
		if col := bytes.IndexByte(indent, '\t'); col >= 0 {
			return i + 1, col + 1
		}
	}
	return from, 1
}

// lineCol converts a byte offset into a 1-based line and character column.
func lineCol(data []byte, off int) (int, int) {
	before := data[:off]
	nl := bytes.LastIndexByte(before, '\n')
	return bytes.Count(before, []byte("\n")) + 1, len([]rune(string(before[nl+1:]))) + 1
}

func (d *yamlDecoder) defaults(n *yaml.Node) (ssh []sshPatch, my []mysqlPatch, err error) {
	err = d.mapping(n, "defaults", defKeys, func(key string, _, v *yaml.Node) (err error) {
		switch key {
		case "ssh":
			ssh, err = d.ssh(v, "defaults.ssh")
		case "mysql":
			my, err = d.mysql(v, "defaults.mysql")
		}
		return err
	})
	return ssh, my, err
}

func (d *yamlDecoder) hosts(key, n *yaml.Node, path string) ([]*yamlHost, error) {
	n = deref(n)
	switch {
	case isNull(n):
		return nil, d.errAt(key, "%s: no hosts listed", path)
	case n.Kind != yaml.SequenceNode:
		return nil, d.errAt(n, "%s: expected a list of hosts; found %s", path, describe(n, false))
	case len(n.Content) == 0:
		return nil, d.errAt(n, "%s: no hosts listed", path)
	}
	out := make([]*yamlHost, 0, len(n.Content))
	var errs []error
	for i, item := range n.Content {
		h, err := d.host(item, fmt.Sprintf("%s[%d]", path, i))
		errs = append(errs, err)
		out = append(out, h)
	}
	if err := joinErrors(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func (d *yamlDecoder) host(n *yaml.Node, path string) (*yamlHost, error) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return nil, d.errAt(n, "%s: expected a mapping with name, role and address; found %s", path, describe(n, false))
	}
	h := &Host{Pos: d.pos(n)}
	yh := &yamlHost{decl: hostDecl{host: h}}
	var nameNode *yaml.Node
	seen := map[string]bool{}
	err := d.mapping(n, path, hostKeys, func(key string, _, v *yaml.Node) (err error) {
		p := path + "." + key
		seen[key] = true
		switch key {
		case "name":
			nameNode, yh.decl.namePos = v, d.pos(v)
			h.Name, err = d.str(v, p)
		case "role":
			yh.decl.rolePos = d.pos(v)
			var s string
			if s, err = d.str(v, p); err == nil {
				h.Role = Role(s)
				if s == roleServer {
					h.Role, yh.server = RoleMaster, true
				}
				if h.Role != RoleMaster && h.Role != RoleSlave && h.Role != RoleLoadBox {
					err = d.errAt(v, "%s: unknown role %q (want master, slave or loadbox; or server for one existing server)", p, clip(s))
				}
			}
		case "address":
			yh.decl.addrPos = d.pos(v)
			if h.Address, err = d.str(v, p); err == nil && h.Address == "" {
				err = d.errAt(v, "%s: must not be empty", p)
			} else if problem := checkHost(h.Address); err == nil && problem != "" {
				err = d.errAt(v, "%s: %q: %s", p, clip(h.Address), problem)
			}
		case "ssh":
			yh.ssh, err = d.ssh(v, p)
		case "mysql":
			yh.mysql, err = d.mysql(v, p)
		}
		return err
	})
	if err != nil {
		// Said once: a missing key is often a misspelt one.
		return nil, err
	}
	for _, req := range []string{"name", "role", "address"} {
		if !seen[req] {
			return nil, d.errAt(n, "%s: missing required key %q", path, req)
		}
	}
	if problem := checkHostName(h.Name, h.Role); problem != "" {
		return nil, d.errAt(nameNode, "%s.name: %s", path, problem)
	}
	return yh, nil
}

// roleServer is the role of an existing server: orch benchmarks it as it
// is (dynamic knobs only) and sets nothing up.
const roleServer = "server"

// existing marks an inventory with a server host as the existing-server
// form, which allows that one database host and an optional load box.
func (d *yamlDecoder) existing(inv *Inventory, hosts []*yamlHost) error {
	var server *yamlHost
	for _, yh := range hosts {
		if yh.server {
			server = yh
		}
	}
	if server == nil {
		return nil
	}
	for _, yh := range hosts {
		if yh != server && yh.decl.host.IsDB() {
			return newError(yh.decl.rolePos, fmt.Sprintf("a server host is an existing server benchmarked alone; %q cannot be a %s next to it (use master and slaves for a cluster)", yh.decl.host.Name, yh.decl.host.Role))
		}
	}
	inv.Existing = true
	return nil
}
