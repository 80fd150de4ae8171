package lab

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := &State{
		Version:    stateVersion,
		Subnet:     "10.99.0.0/24",
		Bridge:     "olab1234",
		BridgeAddr: "10.99.0.1/24",
		Hosts: []HostState{
			{Name: "master", Role: "master", IP: "10.99.0.11", Netns: "orchlab-1234-master",
				Veth: "ol1234-master", PID: 4242, PIDStart: 987654321},
			{Name: "loadbox", Role: "loadbox", IP: "10.99.0.14"},
		},
		Files: []string{"/x/inventories/lab.yaml", "/x/inventories/lab-password.yaml"},
		Dirs:  []string{"/x/inventories"},
	}
	if err := writeState(dir, want); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, stateFile))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v, want 0600", info.Mode().Perm())
	}
	got, err := readState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	// No temporary files are left next to it.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("state dir holds %d entries, want only %s", len(entries), stateFile)
	}
}

func TestReadStateMissingAndBad(t *testing.T) {
	dir := t.TempDir()
	if _, err := readState(dir); !errors.Is(err, errNoState) {
		t.Fatalf("empty dir: err = %v, want errNoState", err)
	}
	os.WriteFile(filepath.Join(dir, stateFile), []byte(`{"version": 99, "hosts": []}`), 0o600)
	if _, err := readState(dir); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("future version: err = %v", err)
	}
	os.WriteFile(filepath.Join(dir, stateFile), []byte(`{"version": 1,`), 0o600)
	if _, err := readState(dir); err == nil || errors.Is(err, errNoState) {
		t.Errorf("truncated file: err = %v, want a parse error", err)
	}
}

// Hosts record their resources concurrently; every update must survive.
func TestStateStoreConcurrentUpdates(t *testing.T) {
	dir := t.TempDir()
	st := &stateStore{dir: dir, s: State{Version: stateVersion}}
	for _, h := range labHosts {
		st.s.Hosts = append(st.s.Hosts, HostState{Name: h.name, Role: h.role})
	}
	var wg sync.WaitGroup
	for i, h := range labHosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := st.updateHost(h.name, func(r *HostState) { r.PID = 100 + i; r.Veth = "v" + h.name }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, err := readState(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range got.Hosts {
		if h.PID != 100+i || h.Veth != "v"+h.Name {
			t.Errorf("host %s: pid %d veth %q, want %d %q", h.Name, h.PID, h.Veth, 100+i, "v"+h.Name)
		}
	}
}

func TestNamesFitIFNAMSIZ(t *testing.T) {
	for _, dir := range []string{"/var/lib/orch-lab", "/tmp/x", "/a/very/long/state/directory/name/that/goes/on"} {
		n := namesFor(dir)
		if len(n.bridge()) > 15 {
			t.Errorf("bridge %q longer than 15", n.bridge())
		}
		for _, h := range labHosts {
			if v := n.veth(h.name); len(v) > 15 {
				t.Errorf("veth %q longer than 15", v)
			}
		}
	}
	a, b := namesFor("/var/lib/orch-lab"), namesFor("/var/lib/orch-lab/")
	if a != b {
		t.Errorf("trailing slash changes names: %v vs %v", a, b)
	}
	if namesFor("/tmp/a") == namesFor("/tmp/b") {
		t.Errorf("different state dirs share names")
	}
}

func TestParseProcStat(t *testing.T) {
	// A command name with spaces and a parenthesis must not shift fields.
	line := "4242 (odd) name) S 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 1000 10 " +
		"18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"
	st, err := parseProcStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if st.state != 'S' || st.ppid != 17 || st.start != 123456 {
		t.Errorf("got %+v, want state S ppid 17 start 123456", st)
	}
	if _, err := parseProcStat("4242 (x) S 1 2"); err == nil {
		t.Error("short line parsed without error")
	}
	// And the real thing: this process is alive with the start time read.
	self, err := readProcStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !alive(os.Getpid(), self.start) || alive(os.Getpid(), self.start+1) {
		t.Error("alive() does not match on start time")
	}
}

func TestMountPointsUnder(t *testing.T) {
	info := `22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
30 22 0:5 / /run rw shared:2 - tmpfs tmpfs rw
31 30 0:6 / /run/netns rw shared:3 - tmpfs tmpfs rw
32 31 0:4 net:[4026532] /run/netns/orchlab-1-master rw - nsfs nsfs rw
33 22 0:7 / /running rw - tmpfs tmpfs rw
34 30 0:8 / /run/with\040space rw - tmpfs tmpfs rw
`
	got := mountPointsUnder(info, "/run")
	want := []string{"/run/netns/orchlab-1-master", "/run/with space", "/run/netns", "/run"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
