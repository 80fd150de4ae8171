package runner

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/orch-bench/orch/topology"
)

// TestBenchLockName: the benchmark lock is the cluster's own (its
// inventory name, or an unnamed one's master address and port), within
// the 64 characters MySQL allows a user lock's name; a long name is cut
// the same way every time and two long names that share their start still
// get two locks.
func TestBenchLockName(t *testing.T) {
	inv := func(name, addr string) *topology.Inventory {
		m := &topology.Host{Name: "db1", Role: topology.RoleMaster, Address: addr}
		m.MySQL.Port = 3306
		return &topology.Inventory{Name: name, Hosts: []*topology.Host{m}}
	}
	if got := benchLockName(inv("east", "192.0.2.1")); got != "orch.benchmark.east" {
		t.Errorf("named cluster: %q", got)
	}
	if got := benchLockName(inv("", "192.0.2.1")); got != "orch.benchmark.192.0.2.1:3306" {
		t.Errorf("unnamed cluster: %q", got)
	}
	if got := benchLockName(inv("", "2001:db8::1")); got != "orch.benchmark.[2001:db8::1]:3306" {
		t.Errorf("unnamed cluster on IPv6: %q", got)
	}
	long := strings.Repeat("c", topology.MaxNameLen-1)
	a, b := benchLockName(inv(long+"a", "192.0.2.1")), benchLockName(inv(long+"b", "192.0.2.1"))
	if len(a) > 64 || len(b) > 64 || !strings.HasPrefix(a, "orch.benchmark.ccc") {
		t.Errorf("long names: %q (%d), %q (%d): want at most 64 characters", a, len(a), b, len(b))
	}
	if a == b {
		t.Errorf("two long names share one lock: %q", a)
	}
	if again := benchLockName(inv(long+"a", "192.0.2.1")); again != a {
		t.Errorf("one cluster, two names: %q then %q", a, again)
	}
	if got := benchLockName(inv("", strings.Repeat("é", 40))); len(got) > 64 || !utf8.ValidString(got) {
		t.Errorf("a long non-ASCII address: %q (%d bytes)", got, len(got))
	}
}
