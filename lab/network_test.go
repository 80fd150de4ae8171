package lab

import (
	"net/netip"
	"strings"
	"testing"
)

func TestPlanAddrs(t *testing.T) {
	tests := []struct {
		subnet       string
		bridge       string
		hosts        []string
		prefixedHost string
	}{
		{"10.99.0.0/24", "10.99.0.1", []string{"10.99.0.11", "10.99.0.12", "10.99.0.13", "10.99.0.14"}, "10.99.0.11/24"},
		{"192.168.7.16/28", "192.168.7.17", []string{"192.168.7.27", "192.168.7.28", "192.168.7.29", "192.168.7.30"}, "192.168.7.27/28"},
		// Offsets carry across octets.
		{"10.1.255.240/28", "10.1.255.241", []string{"10.1.255.251", "10.1.255.252", "10.1.255.253", "10.1.255.254"}, "10.1.255.251/28"},
		{"172.20.0.0/16", "172.20.0.1", []string{"172.20.0.11", "172.20.0.12", "172.20.0.13", "172.20.0.14"}, "172.20.0.11/16"},
	}
	for _, tc := range tests {
		p, err := planAddrs(tc.subnet)
		if err != nil {
			t.Errorf("%s: %v", tc.subnet, err)
			continue
		}
		if p.bridge.String() != tc.bridge {
			t.Errorf("%s: bridge %s, want %s", tc.subnet, p.bridge, tc.bridge)
		}
		for i, h := range p.hosts {
			if h.String() != tc.hosts[i] {
				t.Errorf("%s: %s = %s, want %s", tc.subnet, labHosts[i].name, h, tc.hosts[i])
			}
		}
		if got := p.prefixed(p.hosts[0]); got != tc.prefixedHost {
			t.Errorf("%s: prefixed %s, want %s", tc.subnet, got, tc.prefixedHost)
		}
	}
}

func TestPlanAddrsRejects(t *testing.T) {
	tests := map[string]string{
		"10.99.0.0":      "want an IPv4 network",
		"nonsense":       "want an IPv4 network",
		"fd00::/64":      "only IPv4",
		"10.99.0.5/24":   "did you mean 10.99.0.0/24",
		"10.99.0.0/29":   "too small",
		"10.99.0.16/32":  "too small",
		"10.99.0.0/24 x": "want an IPv4 network",
	}
	for in, want := range tests {
		_, err := planAddrs(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("planAddrs(%q) = %v, want error containing %q", in, err, want)
		}
	}
}

// Output shaped like `ip -j -4 addr show` and `ip -j -4 route show table all`.
const (
	addrJSON = `[{"ifindex":1,"ifname":"lo","addr_info":[{"family":"inet","local":"127.0.0.1","prefixlen":8}]},
{"ifindex":4,"ifname":"eth0","addr_info":[{"family":"inet","local":"192.0.2.2","prefixlen":24}]},
{"ifindex":5,"ifname":"wg0","addr_info":[{"family":"inet","local":"10.50.3.7","prefixlen":16}]}]`
	routeJSON = `[{"dst":"default","gateway":"192.0.2.1","dev":"eth0"},
{"dst":"192.0.2.0/24","dev":"eth0"},
{"dst":"172.16.0.0/12","dev":"vpn0"},
{"type":"local","dst":"127.0.0.1","dev":"lo","table":"local"},
{"type":"broadcast","dst":"192.0.2.255","dev":"eth0","table":"local"}]`
)

func TestSubnetConflict(t *testing.T) {
	tests := []struct {
		subnet string
		want   string // "" for no conflict
	}{
		{"10.99.0.0/24", ""},
		{"192.0.2.0/28", "eth0 has address 192.0.2.2/24"},
		{"10.50.200.0/24", "wg0 has address 10.50.3.7/16"}, // inside wg0's /16
		{"10.0.0.0/8", "wg0 has address 10.50.3.7/16"},     // contains it
		{"172.20.0.0/24", "route to 172.16.0.0/12 on vpn0"},
		{"127.0.0.0/24", "lo has address 127.0.0.1/8"},
	}
	for _, tc := range tests {
		err := subnetConflict(netip.MustParsePrefix(tc.subnet), []byte(addrJSON), []byte(routeJSON))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: unexpected conflict: %v", tc.subnet, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want it to mention %q", tc.subnet, err, tc.want)
		case tc.want != "" && !strings.Contains(err.Error(), "--subnet"):
			t.Errorf("%s: error does not say how to fix it: %v", tc.subnet, err)
		}
	}
	if err := subnetConflict(netip.MustParsePrefix("10.99.0.0/24"), []byte("not json"), []byte("[]")); err == nil {
		t.Error("garbage ip output accepted")
	}
}

func TestLookTool(t *testing.T) {
	p, err := lookTool("sh")
	if err != nil || !strings.HasSuffix(p, "/sh") {
		t.Errorf("lookTool(sh) = %q, %v", p, err)
	}
	if _, err := lookTool("orch-lab-no-such-tool"); err == nil || !strings.Contains(err.Error(), "/usr/sbin") {
		t.Errorf("missing tool: err = %v, want it to name the searched path", err)
	}
	// The lab's environment reaches the same directories.
	if env := cleanEnv(); !strings.Contains(env[0], "/usr/sbin") {
		t.Errorf("clean PATH = %q", env[0])
	}
}

// --loadboxes N adds loadbox2 ... at the addresses after the first load
// box, in the same lab; one load box is exactly the four-host lab.
func TestPlanLabLoadBoxes(t *testing.T) {
	one, err := planLab("10.95.0.0/24", 1)
	if err != nil || len(one.specs) != len(labHosts) {
		t.Fatalf("one load box: %d hosts, %v", len(one.specs), err)
	}
	p, err := planLab("10.95.0.0/24", 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, h := range p.specs {
		got = append(got, h.name+"="+h.role+"@"+p.hosts[i].String())
	}
	want := []string{"master=master@10.95.0.11", "slave1=slave@10.95.0.12", "slave2=slave@10.95.0.13",
		"loadbox=loadbox@10.95.0.14", "loadbox2=loadbox@10.95.0.15", "loadbox3=loadbox@10.95.0.16"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("hosts %v, want %v", got, want)
	}
	for _, n := range []int{0, MaxLoadBoxes + 1} {
		if _, err := planLab("10.95.0.0/24", n); err == nil || !strings.Contains(err.Error(), "--loadboxes") {
			t.Errorf("--loadboxes %d: %v", n, err)
		}
	}
	// The longest host name still gives a veth name that fits IFNAMSIZ.
	if p, _ := planLab("10.95.0.0/24", MaxLoadBoxes); len(namesFor("/var/lib/x").veth(p.specs[len(p.specs)-1].name)) > 15 {
		t.Errorf("veth name of %s is too long", p.specs[len(p.specs)-1].name)
	}
	if _, err := planLab("10.95.0.0/28", 3); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("a /28 with .16: %v", err)
	}
}
