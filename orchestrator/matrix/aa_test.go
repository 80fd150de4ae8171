package matrix

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNewAAInterleavesArms(t *testing.T) {
	m, err := NewAA("pure-random-writes", "innodb", []Axis{{Name: "sync_binlog", Values: []string{"0"}}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range m.Cells {
		got = append(got, c.ID)
	}
	want := []string{
		"01-innodb-sync_binlog=0-a-r1", "02-innodb-sync_binlog=0-b-r1",
		"03-innodb-sync_binlog=0-b-r2", "04-innodb-sync_binlog=0-a-r2",
		"05-innodb-sync_binlog=0-a-r3", "06-innodb-sync_binlog=0-b-r3",
	}
	if !slices.Equal(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
	if m.Baseline != "innodb sync_binlog=0 (a)" || !m.AA {
		t.Errorf("baseline %q aa %v", m.Baseline, m.AA)
	}
	if l := m.Labels(); !slices.Equal(l, []string{"innodb sync_binlog=0 (a)", "innodb sync_binlog=0 (b)"}) {
		t.Errorf("labels %v", l)
	}
	for _, c := range m.Cells {
		if c.Engine != "innodb" || len(c.Knobs) != 1 || c.Knobs[0].Value != "0" {
			t.Errorf("cell %s: not the one configuration: %+v", c.ID, c)
		}
	}
	if n := EngineSwitches(m.Cells); n != 0 {
		t.Errorf("%d engine switches", n)
	}
}

func TestNewAARefusesSweeps(t *testing.T) {
	for _, tc := range []struct {
		engines []string
		axes    []Axis
		want    string
	}{
		{[]string{"innodb", "rocksdb"}, nil, "--engines names 2 (innodb,rocksdb)"},
		{[]string{"innodb"}, []Axis{{Name: "binlog_order_commits", Values: []string{"ON", "OFF"}}}, "--knobs binlog_order_commits has 2 values"},
	} {
		err := CheckAA(tc.engines, tc.axes)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v %v: %v, want one line with %q", tc.engines, tc.axes, err, tc.want)
		}
	}
}

func TestAARoundTripAndBlocked(t *testing.T) {
	m, err := NewAA("w", "innodb", nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dir, err := Create(root, m, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	back, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !back.AA || back.Cells[1].Arm != "b" {
		t.Errorf("loaded aa %v cells %+v", back.AA, back.Cells)
	}

	bm, d, err := NewBlockedAA("w", "innodb", nil, 2, []string{"c1", "c2"}, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range d.Blocks {
		arms := map[string]int{}
		for _, id := range b.Cells {
			c, _ := bm.Cell(id)
			arms[c.Arm]++
		}
		if arms["a"] != 2 || arms["b"] != 2 {
			t.Errorf("cluster %s: arms %v, want 2 of each", b.Cluster, arms)
		}
	}
	// A failed cluster's rounds move as arms, not as the plain configuration.
	if err := d.Fail(bm, "c1", "gone"); err != nil {
		t.Fatal(err)
	}
	for _, c := range bm.Cells {
		if c.Arm == "" {
			t.Errorf("cell %s has no arm after the move", c.ID)
		}
	}
}

func TestFindAndSetNoiseFloor(t *testing.T) {
	root := t.TempDir()
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	aa, _ := NewAA("w", "innodb", nil, 1)
	aaDir, err := Create(root, aa, at)
	if err != nil {
		t.Fatal(err)
	}
	if got := FindNoiseFloor(root, "w"); got != "" {
		t.Errorf("an unfinished A/A was found: %s", got)
	}
	for _, c := range aa.Cells {
		if err := aa.Start(c.ID, at); err != nil {
			t.Fatal(err)
		}
		if err := aa.Finish(c.ID, OK, nil, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := aa.Save(); err != nil {
		t.Fatal(err)
	}
	// A newer plain matrix is no noise floor.
	plain, _ := New("w", []string{"innodb"}, nil, 1)
	if _, err := Create(root, plain, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := FindNoiseFloor(root, "w"); got != aaDir {
		t.Errorf("FindNoiseFloor = %q, want %q", got, aaDir)
	}
	if got := FindNoiseFloor(root, "other"); got != "" {
		t.Errorf("another workload's A/A: %q", got)
	}
	if _, err := CheckNoiseFloor(plain.Dir()); err == nil || !strings.Contains(err.Error(), "not an A/A matrix") {
		t.Errorf("CheckNoiseFloor(plain) = %v", err)
	}
	if err := plain.SetNoiseFloor(aaDir, root); err != nil || plain.NoiseFloor != filepath.Base(aaDir) {
		t.Errorf("SetNoiseFloor under root: %q %v", plain.NoiseFloor, err)
	}
	if err := plain.SetNoiseFloor(aaDir, t.TempDir()); err != nil || !filepath.IsAbs(plain.NoiseFloor) {
		t.Errorf("SetNoiseFloor elsewhere: %q %v", plain.NoiseFloor, err)
	}
}
