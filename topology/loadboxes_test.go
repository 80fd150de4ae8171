package topology

import (
	"reflect"
	"testing"
)

// A cluster may drive its master from several load boxes: they load in
// file order (the first prepares the dataset), and the cluster is valid.
func TestSeveralLoadBoxes(t *testing.T) {
	inv := mustLoad(t, "testdata/two-loadboxes.yaml", LoadOptions{HomeDir: t.TempDir()})
	var names []string
	for _, h := range inv.LoadBoxes() {
		names = append(names, h.Name)
	}
	if want := []string{"loadbox1", "loadbox2"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("load boxes %v, want %v", names, want)
	}
	if lb := inv.LoadBox(); lb == nil || lb.Name != "loadbox1" {
		t.Errorf("LoadBox() = %v, want the first one", lb)
	}
	if got, err := inv.Select("loadbox"); err != nil || len(got) != 2 {
		t.Errorf("select loadbox: %d hosts, %v", len(got), err)
	}
	if err := inv.ValidateCluster(); err != nil {
		t.Errorf("ValidateCluster: %v", err)
	}
}

// Two load boxes on one machine are two clients there, allowed when their
// SSH endpoints differ (the same address and port is refused, see
// testdata/bad/two-loadboxes-same-address.yaml).
func TestTwoLoadBoxesOnOneMachine(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yaml", `
hosts:
  - {name: m, role: master, address: 10.0.0.1}
  - {name: s1, role: slave, address: 10.0.0.2}
  - {name: s2, role: slave, address: 10.0.0.3}
  - {name: lb1, role: loadbox, address: 10.0.0.9}
  - {name: lb2, role: loadbox, address: 10.0.0.9, ssh: {port: 2222}}
`)
	inv := mustLoad(t, path, LoadOptions{HomeDir: dir})
	if n := len(inv.LoadBoxes()); n != 2 {
		t.Fatalf("%d load boxes, want 2", n)
	}
}
