package rundir

import (
	"strings"
	"testing"
)

const testRunID = "20261201T100000Z-pure-random-writes-innodb"

var testWorkdir = "/home/bench/" + WorkdirName(testRunID) + ".aB3dE6gH9k"

func testSources() Sources {
	return Sources{RunID: testRunID,
		DB:    map[string]LogSource{"master": {ErrorLog: "/var/log/mysql/error.log"}, "slave1": {Datadir: "/var/lib/mysql"}},
		Bench: map[string]bool{"loadbox": true, "master": true}}
}

// A manifest as the runner writes it.
func testManifest() *Manifest {
	return &Manifest{Status: StatusOK,
		Remote: &Remote{Host: "loadbox", Dir: testWorkdir, PID: 42, Marker: "0123456789abcdef0123456789abcdef"},
		Expected: []ExpectedFile{
			{Host: "loadbox", Remote: testWorkdir + "/run.out", Local: BenchmarkRun, Kind: KindFile},
			{Host: "master", Remote: "/var/log/mysql/error.log", Local: HostFile("master", HostErrorLog), Kind: KindLogSlice, Offset: 10, Sudo: true},
			{Host: "slave1", Remote: "/var/lib/mysql/slave1.err", Local: HostFile("slave1", HostErrorLog), Kind: KindLogSlice, Sudo: true},
		}}
}

func TestSourcesAcceptOrchsOwnFiles(t *testing.T) {
	if err := testSources().Check(testManifest()); err != nil {
		t.Fatalf("a manifest as orch writes it was refused: %v", err)
	}
}

// An edited manifest cannot make collect read another file, as root or as
// the SSH user, on a host or on this machine.
func TestSourcesRefuseEditedManifests(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(m *Manifest)
		want string
	}{
		{"shadow as a log slice", func(m *Manifest) { m.Expected[1].Remote = "/etc/shadow" }, "not the inventory's mysql.error_log"},
		{"shadow from a host without error_log", func(m *Manifest) { m.Expected[2].Remote = "/etc/shadow" }, "ends in .err or .log"},
		{"a .log outside the datadir", func(m *Manifest) { m.Expected[2].Remote = "/home/bench/.secret.log" }, "in the datadir"},
		{"dot-dot", func(m *Manifest) { m.Expected[2].Remote = "/var/lib/mysql/../../../etc/x.log" }, "not a clean path"},
		{"local hostname", func(m *Manifest) {
			m.Expected = append(m.Expected, ExpectedFile{Host: LocalHost, Remote: "/etc/hostname", Local: BenchmarkPrepare, Kind: KindFile})
		}, "not loadbox:"},
		{"local benchmark host", func(m *Manifest) { m.Remote.Host = LocalHost }, "not one of the inventory's"},
		{"shared legacy directory", func(m *Manifest) {
			m.Remote.Dir = "/var/tmp/orch/" + testRunID
			m.Expected[0].Remote = m.Remote.Dir + "/run.out"
		}, "is not this run's"},
		{"another run's directory", func(m *Manifest) {
			m.Remote.Dir = "/home/bench/" + WorkdirName("other-run") + ".aB3dE6gH9k"
			m.Expected[0].Remote = m.Remote.Dir + "/run.out"
		}, "is not this run's"},
		{"a file beside the output", func(m *Manifest) { m.Expected[0].Remote = testWorkdir + "/../.ssh/id_ed25519" }, "the run's own output"},
		{"benchmark output as root", func(m *Manifest) { m.Expected[0].Sudo = true }, "the run's own output"},
		{"unknown local name", func(m *Manifest) { m.Expected[0].Local = "notes.txt" }, "not a benchmark output"},
		{"a marker that is shell text", func(m *Manifest) { m.Remote.Marker = "x'; rm -rf ~; '" }, "not one orch makes"},
		{"a short marker", func(m *Manifest) { m.Remote.Marker = "0123" }, "not one orch makes"},
		{"slice from the load box", func(m *Manifest) { m.Expected[1].Host = "loadbox" }, "not a database host"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := testManifest()
			c.edit(m)
			err := testSources().Check(m)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Check = %v, want an error with %q", err, c.want)
			}
		})
	}
}

func TestValidWorkdir(t *testing.T) {
	if err := ValidWorkdir(testWorkdir, testRunID); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"relative/" + WorkdirName(testRunID) + ".aB3dE6gH9k", testWorkdir + "/", testWorkdir + "x", "/home/bench/" + WorkdirName(testRunID) + ".aB3-E6gH9k"} {
		if ValidWorkdir(d, testRunID) == nil {
			t.Errorf("%q accepted", d)
		}
	}
}

// A run from two load boxes: each client's output comes from its own
// working directory, and no client may name another's or a foreign one.
func TestSourcesSeveralLoadBoxes(t *testing.T) {
	other := "/home/bench/" + WorkdirName(testRunID) + ".Zy8xW7vU6t"
	two := func() *Manifest {
		m := testManifest()
		m.Expected[0].Local = ClientRun("loadbox")
		m.ClientRemotes = []*Remote{{Host: "loadbox2", Dir: other, PID: 43}}
		m.Expected = append(m.Expected, ExpectedFile{Host: "loadbox2", Remote: other + "/run.out", Local: ClientRun("loadbox2"), Kind: KindFile})
		return m
	}
	s := testSources()
	s.Bench["loadbox2"] = true
	if err := s.Check(two()); err != nil {
		t.Fatalf("a two-client manifest as orch writes it was refused: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(m *Manifest)
		want string
	}{
		{"client output from the first client's directory", func(m *Manifest) { m.Expected[3].Remote = testWorkdir + "/run.out" }, "not loadbox2:"},
		{"another host's client file name", func(m *Manifest) { m.Expected[3].Local = ClientRun("loadbox") }, "not a benchmark output"},
		{"client not in the inventory", func(m *Manifest) { m.ClientRemotes[0].Host = "elsewhere" }, "not one of the inventory's"},
		{"client directory of another run", func(m *Manifest) {
			m.ClientRemotes[0].Dir = "/home/bench/" + WorkdirName("other-run") + ".aB3dE6gH9k"
		}, "is not this run's"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := two()
			c.edit(m)
			if err := s.Check(m); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Check = %v, want an error with %q", err, c.want)
			}
		})
	}
}
