package topology

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func loadCluster(t *testing.T, path, name string) *Inventory {
	t.Helper()
	inv, err := Load(path, LoadOptions{HomeDir: "/home/tester", Cluster: name})
	if err != nil {
		t.Fatalf("Load(%s, cluster %q): %v", path, name, err)
	}
	return inv
}

// Each cluster of a list inherits the top-level settings and overrides
// them key by key: defaults under its own, then the host's.
func TestClustersInheritAndOverride(t *testing.T) {
	const file = "testdata/clusters/two.yaml"
	dir, _ := filepath.Abs("testdata/clusters")
	east, west := loadCluster(t, file, "east"), loadCluster(t, file, "west")
	for _, c := range []struct{ what, got, want string }{
		{"east name", east.Name, "east"},
		{"east hosts", hostNames(east.Hosts), " (east-m, east-s1, east-s2, east-load)"},
		{"east ssh", east.Master().SSH.User + ":" + itoa(east.Master().SSH.Port), "bench:2200"},
		{"east engine", east.Profile.Engine, "innodb"},
		{"east semi-sync", boolText(east.Replication.SemiSync.Enabled) + " " + east.Replication.SemiSync.WaitPoint, "true AFTER_COMMIT"},
		{"east known_hosts", east.KnownHostsFile, filepath.Join(dir, "known_hosts")},
		{"west name", west.Name, "west"},
		{"west master ssh", west.Master().SSH.User + ":" + itoa(west.Master().SSH.Port), "root:22"},
		{"west slave ssh", west.Slaves()[0].SSH.User + ":" + itoa(west.Slaves()[0].SSH.Port), "root:2200"},
		{"west engine", west.Profile.Engine, "rocksdb"},
		{"west vars", west.Profile.Vars["innodb_buffer_pool_size"], "1G"},
		{"west semi-sync", boolText(west.Replication.SemiSync.Enabled) + " " + west.Replication.SemiSync.WaitPoint + " " + itoa(int(west.Replication.SemiSync.TimeoutMs)), "true AFTER_COMMIT 5000"},
		{"west known_hosts", west.KnownHostsFile, filepath.Join(dir, "west_known_hosts")},
		{"west repl password", west.Replication.Password.Env, "ORCH_TEST_MYSQL_PW"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if err := west.ValidateCluster(); err != nil {
		t.Errorf("west (no load box) as a cluster: %v", err)
	}
	west.Profile.Vars["innodb_buffer_pool_size"] = "2G"
	if east.Profile.Vars["innodb_buffer_pool_size"] != "1G" {
		t.Error("clusters share the profile vars map")
	}
}

func TestLoadSet(t *testing.T) {
	opts := LoadOptions{HomeDir: "/home/tester"}
	set, err := LoadSet([]string{"testdata/clusters/two.yaml"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(set.Names(), ","); got != "east,west" || set.Name != "fleet" || len(set.Hosts()) != 7 {
		t.Errorf("set %q: clusters %s, %d hosts", set.Name, got, len(set.Hosts()))
	}
	if sel, err := set.Select("west"); err != nil || len(sel) != 1 || sel[0].Name != "west" {
		t.Errorf("Select(west) = %v, %v", sel, err)
	}
	if sel, _ := set.Select(""); len(sel) != 2 {
		t.Errorf("Select(\"\") = %d clusters, want 2", len(sel))
	}
	if _, err := set.Select("north"); err == nil || !strings.Contains(err.Error(), `no cluster "north" in testdata/clusters/two.yaml (clusters: east, west)`) {
		t.Errorf("Select(north): %v", err)
	}

	// Repeated -i: one cluster per file, named after the file when the
	// file has no name.
	set, err = LoadSet([]string{"testdata/clusters/east.yaml", "testdata/clusters/north.yaml"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(set.Names(), ","); got != "east,north" {
		t.Errorf("clusters %s, want east,north", got)
	}
}

// A host shared by two files' clusters is refused at its second
// declaration, naming the first; so is a cluster name used twice.
func TestLoadSetDisjoint(t *testing.T) {
	opts := LoadOptions{HomeDir: "/home/tester"}
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{"testdata/clusters/east.yaml", "testdata/clusters/shares-east-host.yaml"},
			`testdata/clusters/shares-east-host.yaml:3:5: host "s21" (10.1.0.2, SSH port 22) is also in cluster "east" as "east-s1" (testdata/clusters/east.yaml:4): a host belongs to one cluster`},
		{[]string{"testdata/clusters/east.yaml", "testdata/clusters/two.yaml"},
			`testdata/clusters/two.yaml:19:11: cluster name "east" is already used by the cluster of testdata/clusters/east.yaml: cluster names must be unique`},
	} {
		_, err := LoadSet(c.files, opts)
		var te *Error
		if err == nil || err.Error() != c.want || !errors.As(err, &te) {
			t.Errorf("LoadSet(%v):\n got %v\nwant %s", c.files, err, c.want)
		}
	}
	if _, err := LoadSet(nil, opts); err == nil {
		t.Error("LoadSet of no files succeeded")
	}
}

// Host names may repeat across clusters; addresses may not.
func TestClustersSameHostNames(t *testing.T) {
	data := []byte(`clusters:
  - name: a
    hosts:
      - {name: master, role: master, address: 10.1.0.1}
  - name: b
    hosts:
      - {name: master, role: master, address: 10.1.0.1, ssh: {port: 2222}}
`)
	set, err := parseSet("x.yaml", data, LoadOptions{HomeDir: "/h"})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Clusters) != 2 || set.Clusters[1].Master().SSH.Port != 2222 {
		t.Errorf("clusters: %+v", set.Clusters)
	}
}

// Choosing a cluster of a one-cluster file works by its name, or its
// file's name when it has none; anything else is refused.
func TestLoadClusterOfOneClusterFile(t *testing.T) {
	if inv := loadCluster(t, "testdata/clusters/east.yaml", "east"); inv.Name != "east" {
		t.Errorf("name %q", inv.Name)
	}
	if inv := loadCluster(t, "testdata/clusters/north.yaml", "north"); inv.Name != "" {
		t.Errorf("a one-cluster file keeps its (empty) name; got %q", inv.Name)
	}
	_, err := Load("testdata/clusters/east.yaml", LoadOptions{HomeDir: "/h", Cluster: "west"})
	if err == nil || err.Error() != `testdata/clusters/east.yaml: no cluster "west" (clusters: east)` {
		t.Errorf("got %v", err)
	}
}

func boolText(b bool) string { return strconv.FormatBool(b) }

// TestSetErrorsCapTheirClusterList (N11): a set of thousands of clusters
// names a few in a selection error and counts the rest.
func TestSetErrorsCapTheirClusterList(t *testing.T) {
	set := &Set{Sources: []string{"fleet.yaml"}}
	for i := range 5000 {
		set.Clusters = append(set.Clusters, &Inventory{Name: "c" + strconv.Itoa(i+1)})
	}
	_, err := set.Select("north")
	if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), "c1, c2, ") || !strings.HasSuffix(err.Error(), "c10 and 4,990 more)") {
		t.Errorf("Select(north) among 5,000 clusters: %.400v", err)
	}
	for _, name := range []string{"", "north"} {
		_, err := set.pick(name)
		if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), " and 4,990 more") {
			t.Errorf("pick(%q) among 5,000 clusters: %.400v", name, err)
		}
	}
}

func TestCapJoin(t *testing.T) {
	items := make([]string, 1234567)
	for i := range items {
		items[i] = "x"
	}
	if got := CapJoin(items, 2, "; "); got != "x; x and 1,234,565 more" {
		t.Errorf("CapJoin: %q", got)
	}
	if got := CapList([]string{"a", "b"}, 3); got != "a, b" {
		t.Errorf("CapList under the cap: %q", got)
	}
	for n, want := range map[int]string{1: "1", 999: "999", 1000: "1,000", 14990: "14,990", 100000: "100,000"} {
		if got := groupDigits(n); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}
