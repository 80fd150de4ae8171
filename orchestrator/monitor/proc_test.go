package monitor

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The lab's output, captured with procScript's commands: the datadir is on
// vda (254:0), the device the disk columns follow.
func TestParseProcLab(t *testing.T) {
	s, err := parseProc(readTestdata(t, "proc-lab-debian12.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := [nCPU]uint64{201545, 0, 71621, 435039, 3740, 0, 2634, 2513}; s.cpu != want {
		t.Errorf("cpu %v, want %v", s.cpu, want)
	}
	if s.load != [3]float64{2.42, 1.39, 1.65} || s.running != 5 {
		t.Errorf("load %v running %d", s.load, s.running)
	}
	if len(s.disks) != 10 || !s.hasDev || s.dev != 65024 {
		t.Fatalf("%d disks, dev %d (%v)", len(s.disks), s.dev, s.hasDev)
	}
	label, names := pickDisks(&s)
	if label != "vda" || !slices.Equal(names, []string{"vda"}) {
		t.Errorf("picked %q %v, want vda", label, names)
	}
	tot := sumDisks(&s, names)
	if tot.sectorsWritten != 12915832 || tot.writes != 554181 || tot.reads != 265723 || tot.ioTicks != 96436 || tot.n != 1 {
		t.Errorf("vda totals %+v", tot)
	}
}

func TestPickDisksWithoutDatadirDevice(t *testing.T) {
	s, err := parseProc(readTestdata(t, "proc-handmade-multidisk.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// No @dev (or an overlay/tmpfs datadir): every whole real disk, no
	// partitions, loops, device-mapper or optical drives.
	label, names := pickDisks(&s)
	if label != "all" || !slices.Equal(names, []string{"sda", "nvme0n1"}) {
		t.Errorf("picked %q %v", label, names)
	}
	if tot := sumDisks(&s, names); tot.sectorsWritten != 24000 || tot.n != 2 {
		t.Errorf("totals %+v", tot)
	}
	// A datadir on a partition follows the partition: 8:1 is sda1.
	s.dev, s.hasDev = 8<<8|1, true
	if label, _ := pickDisks(&s); label != "sda1" {
		t.Errorf("datadir on 8:1 picked %q", label)
	}
}

func TestDevNumbers(t *testing.T) {
	for _, tc := range []struct{ dev, major, minor uint64 }{
		{65024, 254, 0},
		{2049, 8, 1},
		// Large numbers use the high bits (glibc's makedev).
		{(259&0xfff)<<8 | (259&^uint64(0xfff))<<32 | (70000 & 0xff) | (70000&^uint64(0xff))<<12, 259, 70000},
	} {
		if ma, mi := devNumbers(tc.dev); ma != tc.major || mi != tc.minor {
			t.Errorf("devNumbers(%d) = %d:%d, want %d:%d", tc.dev, ma, mi, tc.major, tc.minor)
		}
	}
}

func TestParseProcRejectsGarbage(t *testing.T) {
	for _, out := range []string{
		"",
		"@stat\ncpu 1 2 3 4\n@load\n0.1 0.2 0.3 1/2 3\n", // too few cpu fields
		"@stat\nintr 1 2 3 4 5\n@load\n0.1 0.2 0.3 1/2 3\n",
		"@stat\ncpu 1 2 3 4 5 6\n@load\nx y z 1/2 3\n",
		"@stat\ncpu 1 2 3 4 5 6\n",
		"@stat\ncpu 1 2 3 4 5 6\n@load\n0.1 0.2 0.3 1/2 3\n@disk\n8 0 sda 1 2\n",
	} {
		if _, err := parseProc(out); err == nil {
			t.Errorf("parseProc(%q) accepted", out)
		}
	}
}

func TestProcLoopQuotesDatadir(t *testing.T) {
	s := procLoop("/srv/my data/$(reboot)")
	if !strings.Contains(s, `stat -L -c %d '/srv/my data/$(reboot)'`) {
		t.Errorf("datadir not quoted:\n%s", s)
	}
	if strings.Contains(procLoop(""), "stat -L") {
		t.Error("loop without datadir still asks for its device")
	}
}
