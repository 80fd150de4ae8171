package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"

	"gopkg.in/yaml.v3"
)

// A lab of several clusters is several four-host labs, each exactly what
// Up builds (own state dir, subnet, bridge, keys and passwords), and one
// inventory with a clusters list naming them all. Lab k (from 1) keeps its
// state in StateDir for k = 1 and StateDir-k after, sits on the k-th
// subnet of the base subnet's size from it (10.99.0.0/24, 10.99.1.0/24,
// ...), and keeps its own one-cluster inventories in its state dir; the
// combined inventories go where Config.InventoryPath says, recorded in
// lab 1's state so Down removes them.

// MaxClusters bounds --clusters: each cluster is four hosts and three
// MariaDB servers on this one machine.
const MaxClusters = 4

// clusterName is the name of lab k in the combined inventory.
func clusterName(k int) string { return "lab" + strconv.Itoa(k) }

// clusterConfig is the Config of lab k (from 1) of a lab of clusters.
func clusterConfig(cfg Config, k int, subnet netip.Prefix) Config {
	c := cfg
	if k > 1 {
		c.StateDir = cfg.StateDir + "-" + strconv.Itoa(k)
	}
	c.InventoryPath = filepath.Join(c.StateDir, "lab.yaml")
	c.Subnet = nthSubnet(subnet, k-1).String()
	return c
}

// nthSubnet is the n-th network of p's size after p.
func nthSubnet(p netip.Prefix, n int) netip.Prefix {
	size := uint32(1) << (32 - p.Bits())
	return netip.PrefixFrom(addOffset(p.Addr(), uint32(n)*size), p.Bits())
}

// UpClusters builds n labs (n = 1 is Up) and writes one inventory, and its
// password variant, with a clusters list naming them lab1 ... labN. Labs
// already up and healthy are kept, as Up keeps one.
func UpClusters(ctx context.Context, cfg Config, n int) error {
	if n < 1 || n > MaxClusters {
		return fmt.Errorf("lab up: --clusters %d: want 1 to %d", n, MaxClusters)
	}
	if n == 1 {
		return Up(ctx, cfg)
	}
	if err := requireRoot(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	base, err := baseSubnet(cfg)
	if err != nil {
		return fmt.Errorf("lab up: %w", err)
	}
	if last := nthSubnet(base, n-1); last.Addr().Less(base.Addr()) {
		return fmt.Errorf("lab up: %d subnets of %s's size do not fit after it", n, base)
	}
	p := newProgress(cfg.Out)
	var parts []clusterPart
	for k := 1; k <= n; k++ {
		c := clusterConfig(cfg, k, base)
		p.printf("lab: cluster %s on %s (state %s)", clusterName(k), c.Subnet, c.StateDir)
		if err := Up(ctx, c); err != nil {
			return fmt.Errorf("cluster %s: %w", clusterName(k), err)
		}
		st, err := readState(c.StateDir)
		if err != nil {
			return fmt.Errorf("cluster %s: %w", clusterName(k), err)
		}
		parts = append(parts, clusterPart{name: clusterName(k), cfg: c, hosts: st.Hosts})
	}
	return writeClusterInventories(cfg, parts, p)
}

// baseSubnet is where lab 1 is or goes: --subnet, the running lab's, or
// the default.
func baseSubnet(cfg Config) (netip.Prefix, error) {
	s := cfg.Subnet
	if s == "" {
		if st, err := readState(cfg.StateDir); err == nil {
			s = st.Subnet
		} else if !errors.Is(err, errNoState) {
			return netip.Prefix{}, err
		}
	}
	if s == "" {
		s = DefaultSubnet
	}
	plan, err := planAddrs(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return plan.subnet, nil
}

// DownClusters removes lab 1 and every further lab of a lab of clusters
// (StateDir-2, StateDir-3, ... while they exist), the last first. On a
// one-cluster lab it is Down.
func DownClusters(ctx context.Context, cfg Config) error {
	if err := requireRoot(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	var errs []error
	for k := MaxClusters; k > 1; k-- {
		c := cfg
		c.StateDir = cfg.StateDir + "-" + strconv.Itoa(k)
		if _, err := os.Stat(c.StateDir); err != nil {
			continue
		}
		c.InventoryPath = filepath.Join(c.StateDir, "lab.yaml")
		if err := Down(ctx, c); err != nil {
			errs = append(errs, fmt.Errorf("cluster %s: %w", clusterName(k), err))
		}
	}
	if err := Down(ctx, cfg); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// StatusClusters is Status of lab 1 and of every further lab of a lab of
// clusters; hosts of lab k > 1 are named "labK/HOST".
func StatusClusters(ctx context.Context, cfg Config) ([]HostStatus, error) {
	hosts, err := Status(ctx, cfg)
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	for k := 2; k <= MaxClusters; k++ {
		c := cfg
		c.StateDir = cfg.StateDir + "-" + strconv.Itoa(k)
		if _, err := os.Stat(c.StateDir); err != nil {
			continue
		}
		more, err := Status(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %w", clusterName(k), err)
		}
		for i := range more {
			more[i].Name = clusterName(k) + "/" + more[i].Name
		}
		hosts = append(hosts, more...)
	}
	return hosts, nil
}

// clusterPart is one lab of a lab of clusters.
type clusterPart struct {
	name  string
	cfg   Config
	hosts []HostState
}

// invSetFile is an inventory with a clusters list; what the clusters share
// (replication account, profile) is said once at the top.
type invSetFile struct {
	Name        string         `yaml:"name"`
	Replication invReplication `yaml:"replication"`
	Profile     invProfile     `yaml:"profile"`
	Clusters    []invCluster   `yaml:"clusters"`
}

type invCluster struct {
	Name       string      `yaml:"name"`
	KnownHosts string      `yaml:"known_hosts"`
	Defaults   invDefaults `yaml:"defaults"`
	Hosts      []invHost   `yaml:"hosts"`
}

// renderClusterInventory is lab.yaml (asRoot) or lab-password.yaml
// (asBench) for several labs: each cluster is the one-cluster inventory of
// its lab (its own known_hosts, key and passwords).
func renderClusterInventory(parts []clusterPart, v inventoryVariant) ([]byte, error) {
	set := invSetFile{Name: "lab"}
	for _, part := range parts {
		body, err := renderInventory(part.hosts, partPaths(part.cfg), v, flavorOf(part.cfg.Flavor))
		if err != nil {
			return nil, err
		}
		var one invFile
		if err := yaml.Unmarshal(body, &one); err != nil {
			return nil, fmt.Errorf("render inventory: %w", err)
		}
		set.Replication, set.Profile = one.Replication, one.Profile
		set.Clusters = append(set.Clusters, invCluster{Name: part.name, KnownHosts: one.KnownHosts, Defaults: one.Defaults, Hosts: one.Hosts})
	}
	var b bytes.Buffer
	b.WriteString("# Lab inventory of several clusters generated by `orch lab up --clusters N`; `orch lab down` removes it.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&set); err != nil {
		return nil, fmt.Errorf("render inventory: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("render inventory: %w", err)
	}
	return b.Bytes(), nil
}

func partPaths(c Config) invPaths {
	return invPaths{
		knownHosts:    c.path(knownHostsName),
		identity:      c.path(clientKeyName),
		mysqlPassword: c.path(mysqlPassName),
		benchPassword: c.path(benchPassName),
	}
}

// writeClusterInventories records the combined inventories in lab 1's
// state (Down removes them with it), then writes them.
func writeClusterInventories(cfg Config, parts []clusterPart, p *progress) error {
	paths := cfg.inventoryPaths()
	dir := filepath.Dir(paths[0])
	var newDirs []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		newDirs = append([]string{d}, newDirs...)
	}
	st, err := readState(parts[0].cfg.StateDir)
	if err != nil {
		return err
	}
	store := &stateStore{dir: parts[0].cfg.StateDir, s: *st}
	if err := store.update(func(s *State) {
		s.Files = appendMissing(s.Files, paths...)
		s.Dirs = appendMissing(s.Dirs, newDirs...)
	}); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("inventory dir: %w", err)
	}
	for i, v := range []inventoryVariant{asRoot, asBench} {
		body, err := renderClusterInventory(parts, v)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(paths[i], body, 0o644); err != nil {
			return fmt.Errorf("write inventory: %w", err)
		}
	}
	p.printf("lab: inventories %s and %s written (%d clusters)", displayPath(paths[0]), displayPath(paths[1]), len(parts))
	return nil
}
