package lab

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// hostSpec is one host of the lab's fixed shape; offset is its address
// within the subnet.
type hostSpec struct {
	name, role string
	offset     uint32
}

// labHosts is the lab: one master, two slaves and a load box.
var labHosts = []hostSpec{
	{"master", "master", 11},
	{"slave1", "slave", 12},
	{"slave2", "slave", 13},
	{"loadbox", "loadbox", 14},
}

// MaxLoadBoxes bounds --loadboxes: loadbox9 is the longest name whose veth
// ("ol" + tag + "-" + host) fits IFNAMSIZ.
const MaxLoadBoxes = 9

// hostsFor is the lab with n load boxes: labHosts, then loadbox2 ... at the
// next addresses (.15, ...), in the same cluster.
func hostsFor(n int) []hostSpec {
	out := append([]hostSpec(nil), labHosts...)
	last := labHosts[len(labHosts)-1].offset
	for k := 2; k <= n; k++ {
		out = append(out, hostSpec{"loadbox" + strconv.Itoa(k), "loadbox", last + uint32(k) - 1})
	}
	return out
}

// bridgeOffset is the bridge's (the control machine's) address in the subnet.
const bridgeOffset = 1

// addrPlan is the lab's addressing for one subnet.
type addrPlan struct {
	subnet netip.Prefix
	bridge netip.Addr
	specs  []hostSpec   // the lab's hosts: labHosts, then any further load boxes
	hosts  []netip.Addr // in specs order
}

// prefixed renders an address with the subnet's length, as ip(8) wants it.
func (p addrPlan) prefixed(a netip.Addr) string {
	return netip.PrefixFrom(a, p.subnet.Bits()).String()
}

// planAddrs checks that subnet is an IPv4 network address large enough for
// the lab and computes the bridge's and hosts' addresses.
func planAddrs(subnet string) (addrPlan, error) { return planLab(subnet, 1) }

// planLab is planAddrs for a lab with loadboxes load boxes.
func planLab(subnet string, loadboxes int) (addrPlan, error) {
	if loadboxes < 1 || loadboxes > MaxLoadBoxes {
		return addrPlan{}, fmt.Errorf("--loadboxes %d: want 1 to %d", loadboxes, MaxLoadBoxes)
	}
	specs := hostsFor(loadboxes)
	p, err := netip.ParsePrefix(subnet)
	if err != nil {
		return addrPlan{}, fmt.Errorf("subnet %q: want an IPv4 network like 10.99.0.0/24", subnet)
	}
	if !p.Addr().Is4() {
		return addrPlan{}, fmt.Errorf("subnet %s: only IPv4 is supported", p)
	}
	if p.Masked() != p {
		return addrPlan{}, fmt.Errorf("subnet %s has host bits set; did you mean %s?", p, p.Masked())
	}
	maxOffset := specs[len(specs)-1].offset
	if size := uint64(1) << (32 - p.Bits()); uint64(maxOffset) >= size-1 {
		return addrPlan{}, fmt.Errorf("subnet %s is too small: the lab uses .%d to .%d (use /28 or larger)",
			p, bridgeOffset, maxOffset)
	}
	plan := addrPlan{subnet: p, bridge: addOffset(p.Addr(), bridgeOffset), specs: specs}
	for _, h := range specs {
		plan.hosts = append(plan.hosts, addOffset(p.Addr(), h.offset))
	}
	return plan, nil
}

func addOffset(a netip.Addr, off uint32) netip.Addr {
	b := a.As4()
	binary.BigEndian.PutUint32(b[:], binary.BigEndian.Uint32(b[:])+off)
	return netip.AddrFrom4(b)
}

// ipAddrs is the part of `ip -j addr show` the conflict check reads.
type ipAddrs []struct {
	Ifname   string `json:"ifname"`
	AddrInfo []struct {
		Local     string `json:"local"`
		Prefixlen int    `json:"prefixlen"`
	} `json:"addr_info"`
}

// ipRoutes is the part of `ip -j route show table all` the check reads.
type ipRoutes []struct {
	Dst string `json:"dst"`
	Dev string `json:"dev"`
}

// subnetConflict reports the first address or route in the root namespace
// (as `ip -j` prints them) that overlaps subnet: using it would shadow or
// hijack traffic that is not the lab's.
func subnetConflict(subnet netip.Prefix, addrJSON, routeJSON []byte) error {
	var addrs ipAddrs
	if err := json.Unmarshal(addrJSON, &addrs); err != nil {
		return fmt.Errorf("parse ip addr output: %w", err)
	}
	for _, ifc := range addrs {
		for _, ai := range ifc.AddrInfo {
			a, err := netip.ParseAddr(ai.Local)
			if err != nil {
				continue
			}
			if p := netip.PrefixFrom(a, ai.Prefixlen); p.IsValid() && p.Overlaps(subnet) {
				return fmt.Errorf("subnet %s is already in use: %s has address %s; choose another with --subnet",
					subnet, ifc.Ifname, p)
			}
		}
	}
	var routes ipRoutes
	if err := json.Unmarshal(routeJSON, &routes); err != nil {
		return fmt.Errorf("parse ip route output: %w", err)
	}
	for _, r := range routes {
		if r.Dst == "default" || r.Dst == "" {
			continue
		}
		p, err := netip.ParsePrefix(r.Dst)
		if err != nil {
			a, aerr := netip.ParseAddr(r.Dst)
			if aerr != nil {
				continue
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if p.Overlaps(subnet) {
			return fmt.Errorf("subnet %s is already in use: route to %s on %s; choose another with --subnet",
				subnet, p, r.Dev)
		}
	}
	return nil
}

// checkSubnetFree asks the kernel for the root namespace's addresses and
// routes and fails if any overlaps the subnet.
func checkSubnetFree(ctx context.Context, subnet netip.Prefix) error {
	addrs, err := output(ctx, nil, "ip", "-j", "-4", "addr", "show")
	if err != nil {
		return err
	}
	routes, err := output(ctx, nil, "ip", "-j", "-4", "route", "show", "table", "all")
	if err != nil {
		return err
	}
	return subnetConflict(subnet, addrs, routes)
}

// checkNamesFree fails when a kernel object the lab is about to create
// already exists: it is not ours to reuse or delete.
func checkNamesFree(n labNames, specs []hostSpec) error {
	if linkExists(n.bridge()) {
		return fmt.Errorf("network interface %s already exists (from a lab whose state is lost?); remove it with: ip link del %s",
			n.bridge(), n.bridge())
	}
	for _, h := range specs {
		if v := n.veth(h.name); linkExists(v) {
			return fmt.Errorf("network interface %s already exists; remove it with: ip link del %s", v, v)
		}
		if ns := n.netns(h.name); netnsExists(ns) {
			return fmt.Errorf("network namespace %s already exists; remove it with: ip netns del %s", ns, ns)
		}
	}
	return nil
}

// linkExists reports whether a network interface exists in the root namespace.
func linkExists(name string) bool {
	_, err := os.Lstat(filepath.Join("/sys/class/net", name))
	return err == nil
}

// netnsExists reports whether a named network namespace exists.
func netnsExists(name string) bool {
	_, err := os.Lstat(filepath.Join("/run/netns", name))
	return err == nil
}

// createBridge makes the lab's bridge with the control machine's address
// and an alias naming its owner (see bridgeAlias). Forwarding is switched off on it so nothing from the hosts is routed
// beyond the subnet even if the machine forwards elsewhere.
func createBridge(ctx context.Context, name, addr, alias string) error {
	if err := run(ctx, "ip", "link", "add", "name", name, "type", "bridge"); err != nil {
		return err
	}
	if err := run(ctx, "ip", "link", "set", "dev", name, "alias", alias); err != nil {
		return err
	}
	if err := writeSysctl("net/ipv4/conf/"+name+"/forwarding", "0"); err != nil {
		return err
	}
	// No IPv6 on the bridge: the lab is IPv4 only and link-local chatter
	// would only add noise.
	if err := writeSysctl("net/ipv6/conf/"+name+"/disable_ipv6", "1"); err != nil &&
		!errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := run(ctx, "ip", "addr", "add", addr, "dev", name); err != nil {
		return err
	}
	return run(ctx, "ip", "link", "set", "dev", name, "up")
}

// createNetns makes a host's network namespace.
func createNetns(ctx context.Context, ns string) error {
	return run(ctx, "ip", "netns", "add", ns)
}

// createVeth joins a namespace to the bridge: veth is the root-side end,
// eth0 (with the host's address) the end inside the namespace. No default
// route is added inside, so the host reaches only the subnet.
func createVeth(ctx context.Context, veth, ns, bridge, addr string) error {
	steps := [][]string{
		{"ip", "link", "add", "name", veth, "type", "veth", "peer", "name", "eth0", "netns", ns},
		{"ip", "link", "set", "dev", veth, "master", bridge, "up"},
		{"ip", "-n", ns, "addr", "add", addr, "dev", "eth0"},
		{"ip", "-n", ns, "link", "set", "dev", "eth0", "up"},
	}
	for _, s := range steps {
		if err := run(ctx, s[0], s[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// deleteLink removes an interface if it exists (a veth takes its peer).
func deleteLink(ctx context.Context, name string) error {
	if name == "" || !linkExists(name) {
		return nil
	}
	return run(ctx, "ip", "link", "del", "dev", name)
}

// deleteNetns removes a network namespace if it exists.
func deleteNetns(ctx context.Context, name string) error {
	if name == "" || !netnsExists(name) {
		return nil
	}
	return run(ctx, "ip", "netns", "del", name)
}

// setLink sets an interface up or down.
func setLink(ctx context.Context, name string, up bool) error {
	state := "down"
	if up {
		state = "up"
	}
	return run(ctx, "ip", "link", "set", "dev", name, state)
}

func writeSysctl(key, value string) error {
	if err := os.WriteFile(filepath.Join("/proc/sys", key), []byte(value), 0o644); err != nil {
		return fmt.Errorf("sysctl %s=%s: %w", strings.ReplaceAll(key, "/", "."), value, err)
	}
	return nil
}
