package rundir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// logText is a log-like text, compressible but not trivially so.
func logText(lines int, seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	var b bytes.Buffer
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&b, "2024-05-01 12:%02d:%02d 0 [Note] InnoDB: event %d value %x\n", i/60%60, i%60, i, r.Uint64())
	}
	return b.Bytes()
}

// collectSetup makes a run directory whose manifest expects files from a
// "remote" directory on this machine, read through the local executor.
func collectSetup(t *testing.T, files ...ExpectedFile) (*Dir, string) {
	t.Helper()
	d, err := Create(t.TempDir(), "collect", start)
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Start: start, Status: StatusInterrupted}
	for _, f := range files {
		if err := m.Expect(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.SaveManifest(m); err != nil {
		t.Fatal(err)
	}
	return d, remoteDir(t)
}

func readRel(t *testing.T, d *Dir, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(d.Path(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCollectFetchesAndIsIdempotent(t *testing.T) {
	remote := remoteDir(t)
	raw := logText(3000, 1)
	errLog := logText(2000, 2)
	offset := int64(len(errLog) / 3)
	// A path a shell would split or expand unless quoted.
	rawPath := filepath.Join(remote, "run out's $(x).txt")
	os.WriteFile(rawPath, raw, 0o644)
	os.WriteFile(filepath.Join(remote, "error.log"), errLog, 0o644)

	d, _ := collectSetup(t,
		ExpectedFile{Host: "loadbox", Remote: rawPath, Local: BenchmarkRun, Kind: KindFile},
		ExpectedFile{Host: "master", Remote: filepath.Join(remote, "error.log"), Local: HostFile("master", HostErrorLog), Kind: KindLogSlice, Offset: offset, Sudo: true},
		ExpectedFile{Host: "slave1", Remote: filepath.Join(remote, "error.log"), Local: HostFile("slave1", HostErrorLog), Kind: KindLogSlice, Offset: 100, End: 250},
		ExpectedFile{Host: "master", Remote: filepath.Join(remote, "slow.log"), Local: HostFile("master", HostSlowLog), Kind: KindLogSlice},
		// Nothing logged during the run.
		ExpectedFile{Host: "slave2", Remote: "/var/log/mysql/error.log", Local: HostFile("slave2", HostErrorLog), Kind: KindLogSlice, Offset: 70, End: 70},
	)
	hosts := map[string]executor.Executor{
		"loadbox": executor.NewLocal("loadbox"),
		"master":  executor.NewLocal("master"),
		"slave1":  executor.NewLocal("slave1"),
		"slave2":  executor.NewLocal("slave2"),
	}
	rep, err := Collect(context.Background(), d, hosts)
	if err != nil {
		t.Fatalf("missing slow log must not fail the collection: %v", err)
	}
	if got := readRel(t, d, BenchmarkRun); !bytes.Equal(got, raw) {
		t.Fatalf("raw output: %d bytes, want %d", len(got), len(raw))
	}
	if got := readRel(t, d, HostFile("master", HostErrorLog)); !bytes.Equal(got, errLog[offset:]) {
		t.Fatalf("log slice from %d: %d bytes, want %d", offset, len(got), len(errLog)-int(offset))
	}
	if got := readRel(t, d, HostFile("slave1", HostErrorLog)); !bytes.Equal(got, errLog[100:250]) {
		t.Fatalf("bounded slice: %q", got)
	}
	outcomes := map[string]FileOutcome{}
	for _, f := range rep.Files {
		outcomes[f.Local] = f.Outcome
	}
	want := map[string]FileOutcome{BenchmarkRun: Fetched, "hosts/master/error.log": Fetched, "hosts/slave1/error.log": Fetched,
		"hosts/master/slow.log": Missing, "hosts/slave2/error.log": Fetched}
	if got := readRel(t, d, HostFile("slave2", HostErrorLog)); len(got) != 0 {
		t.Fatalf("empty slice: %q", got)
	}
	if fmt.Sprint(outcomes) != fmt.Sprint(want) {
		t.Fatalf("outcomes %v, want %v", outcomes, want)
	}
	// gzip on the wire: the log text crosses in well under half its size.
	run := rep.Files[0]
	if run.Written != int64(len(raw)) || run.WireBytes <= 0 || run.WireBytes*2 > run.Written {
		t.Fatalf("raw output: wire %d bytes, written %d (file %d): want compressed", run.WireBytes, run.Written, len(raw))
	}
	if len(rep.Fetched()) != 4 {
		t.Fatalf("Fetched() = %d files", len(rep.Fetched()))
	}
	m, err := d.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if miss := m.Missing(); len(miss) != 1 || miss[0].Local != "hosts/master/slow.log" {
		t.Fatalf("manifest still expects %+v", miss)
	}

	// Second run: nothing crosses the wire, even without executors for
	// the hosts whose files are complete.
	rep, err = Collect(context.Background(), d, map[string]executor.Executor{"master": executor.NewLocal("master")})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Files {
		if f.WireBytes != 0 || f.Written != 0 || (f.Outcome != Present && f.Outcome != Missing) {
			t.Fatalf("second collect touched %+v", f)
		}
	}
	// A complete file deleted here is fetched again, not "present".
	if err := os.Remove(filepath.Join(d.Path(), BenchmarkRun)); err != nil {
		t.Fatal(err)
	}
	rep, err = Collect(context.Background(), d, hosts)
	if err != nil || !bytes.Equal(readRel(t, d, BenchmarkRun), raw) {
		t.Fatalf("deleted %s not fetched again: %v", BenchmarkRun, err)
	}
	for _, f := range rep.Files {
		if (f.Local == BenchmarkRun) != (f.Outcome == Fetched) {
			t.Errorf("third collect: %s %s", f.Local, f.Outcome)
		}
	}
	// No .part files remain.
	filepath.WalkDir(d.Path(), func(p string, _ os.DirEntry, _ error) error {
		if strings.HasSuffix(p, PartSuffix) {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

func TestCollectResumesPartialFile(t *testing.T) {
	remote := remoteDir(t)
	errLog := logText(4000, 3)
	os.WriteFile(filepath.Join(remote, "error.log"), errLog, 0o644)
	offset := int64(1000)
	d, _ := collectSetup(t, ExpectedFile{Host: "master", Remote: filepath.Join(remote, "error.log"), Local: HostFile("master", HostErrorLog), Kind: KindLogSlice, Offset: offset})
	// A previous collect got this far.
	have := 12345
	part := filepath.Join(d.Path(), "hosts", "master", "error.log"+PartSuffix)
	os.MkdirAll(filepath.Dir(part), 0o755)
	os.WriteFile(part, errLog[offset:offset+int64(have)], 0o644)

	rep, err := Collect(context.Background(), d, map[string]executor.Executor{"master": executor.NewLocal("master")})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Files[0]
	if f.Outcome != Fetched || f.ResumedAt != int64(have) || f.Written != int64(len(errLog))-offset-int64(have) {
		t.Fatalf("resume: %+v", f)
	}
	if got := readRel(t, d, HostFile("master", HostErrorLog)); !bytes.Equal(got, errLog[offset:]) {
		t.Fatal("resumed file differs from the remote slice")
	}
}

// cutExecutor passes through the first limit bytes of a command's output
// and then loses the connection, as a dropped SSH session would.
type cutExecutor struct {
	*executor.Local
	limit int
}

type cutWriter struct {
	w    io.Writer
	left int
}

func (c *cutWriter) Write(p []byte) (int, error) {
	n := min(len(p), c.left)
	if n > 0 {
		c.w.Write(p[:n])
		c.left -= n
	}
	return len(p), nil
}

func (c *cutExecutor) Run(ctx context.Context, cmd executor.Command) (executor.Result, error) {
	cmd.Stdout = &cutWriter{w: cmd.Stdout, left: c.limit}
	res, err := c.Local.Run(ctx, cmd)
	if err == nil {
		err = errors.New("master 10.0.0.1: connection lost")
	}
	return res, err
}

func TestCollectInterruptedTransferResumes(t *testing.T) {
	remote := remoteDir(t)
	raw := logText(20000, 4)
	os.WriteFile(filepath.Join(remote, "run.txt"), raw, 0o644)
	d, _ := collectSetup(t, ExpectedFile{Host: "loadbox", Remote: filepath.Join(remote, "run.txt"), Local: BenchmarkRun, Kind: KindFile})

	rep, err := Collect(context.Background(), d, map[string]executor.Executor{"loadbox": &cutExecutor{Local: executor.NewLocal("loadbox"), limit: 100 << 10}})
	if err == nil || !strings.Contains(err.Error(), "connection lost") {
		t.Fatalf("cut transfer: %v", err)
	}
	if f := rep.Files[0]; f.Outcome != Failed || f.WireBytes != 100<<10 {
		t.Fatalf("cut transfer report: %+v", f)
	}
	part, err := os.ReadFile(filepath.Join(d.Path(), BenchmarkRun+PartSuffix))
	if err != nil {
		t.Fatal(err)
	}
	if len(part) == 0 || !bytes.HasPrefix(raw, part) {
		t.Fatalf("part file (%d bytes) is not a prefix of the remote file", len(part))
	}
	if _, err := os.Stat(filepath.Join(d.Path(), BenchmarkRun)); err == nil {
		t.Fatal("an incomplete file was published under its final name")
	}

	rep, err = Collect(context.Background(), d, map[string]executor.Executor{"loadbox": executor.NewLocal("loadbox")})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Files[0]; f.Outcome != Fetched || f.ResumedAt != int64(len(part)) || f.Written != int64(len(raw)-len(part)) {
		t.Fatalf("resumed: %+v (part had %d)", f, len(part))
	}
	if got := readRel(t, d, BenchmarkRun); !bytes.Equal(got, raw) {
		t.Fatal("file after resume differs from the remote one")
	}
}

func TestCollectFailures(t *testing.T) {
	remote := remoteDir(t)
	os.WriteFile(filepath.Join(remote, "error.log"), []byte("short\n"), 0o644)
	os.WriteFile(filepath.Join(remote, "ok.txt"), []byte("fine\n"), 0o644)
	d, _ := collectSetup(t,
		ExpectedFile{Host: "master", Remote: filepath.Join(remote, "error.log"), Local: "hosts/master/error.log", Kind: KindLogSlice, Offset: 5000},
		ExpectedFile{Host: "slave9", Remote: "/var/log/mysql/error.log", Local: "hosts/slave9/error.log", Kind: KindFile},
		ExpectedFile{Host: "master", Remote: filepath.Join(remote, "ok.txt"), Local: "ok.txt", Kind: KindFile},
		// Starts inside the file but ends past it: the run's bytes are gone.
		ExpectedFile{Host: "master", Remote: filepath.Join(remote, "error.log"), Local: "hosts/master/slow.log", Kind: KindLogSlice, Offset: 2, End: 100},
	)
	rep, err := Collect(context.Background(), d, map[string]executor.Executor{"master": executor.NewLocal("master")})
	if err == nil {
		t.Fatal("a rotated log and an unreachable host were not errors")
	}
	for _, want := range []string{"master localhost:" + filepath.Join(remote, "error.log"), "rotated or truncated", "slave9:/var/log/mysql/error.log: no connection"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	// The failures do not stop the other files.
	if rep.Files[2].Outcome != Fetched || string(readRel(t, d, "ok.txt")) != "fine\n" {
		t.Fatalf("ok.txt: %+v", rep.Files[2])
	}
	if rep.Files[0].Outcome != Failed || rep.Files[1].Outcome != Failed || rep.Files[3].Outcome != Failed ||
		!strings.Contains(rep.Files[3].Error, "file has 6 bytes, fewer than the 100 expected") {
		t.Fatalf("outcomes %+v", rep.Files)
	}
	if _, err := os.Stat(filepath.Join(d.Path(), "hosts/master/slow.log")); err == nil {
		t.Fatal("a short slice was published as complete")
	}
	m, _ := d.LoadManifest()
	if len(m.Missing()) != 3 {
		t.Fatalf("manifest: %+v", m.Missing())
	}
}

func TestCollectUnreadableWithoutSudo(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	remote := remoteDir(t)
	p := filepath.Join(remote, "error.log")
	os.WriteFile(p, []byte("x"), 0o000)
	d, _ := collectSetup(t, ExpectedFile{Host: "master", Remote: p, Local: "e.log", Kind: KindFile})
	_, err := Collect(context.Background(), d, map[string]executor.Executor{"master": executor.NewLocal("master")})
	if err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("unreadable: %v", err)
	}
}

// remoteDir is a private directory in the (test's) home of the SSH user,
// as the run's working directory is: collect reads nothing else.
func remoteDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Dir(dir))
	return dir
}

// A symlinked folder (or file) planted inside a run directory is never
// followed: collect fails on that file, naming the link, and writes nothing
// where it points (the review's collect followed hosts/<name> -> elsewhere).
func TestCollectRefusesSymlinksInside(t *testing.T) {
	remote := remoteDir(t)
	errLog := logText(50, 3)
	os.WriteFile(filepath.Join(remote, "error.log"), errLog, 0o644)
	d, _ := collectSetup(t,
		ExpectedFile{Host: "master", Remote: filepath.Join(remote, "error.log"), Local: HostFile("master", HostErrorLog), Kind: KindLogSlice},
		ExpectedFile{Host: "slave1", Remote: filepath.Join(remote, "error.log"), Local: HostFile("slave1", HostErrorLog), Kind: KindLogSlice},
	)
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(d.Path(), "hosts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(d.Path(), "hosts", "master")); err != nil {
		t.Fatal(err)
	}
	hosts := map[string]executor.Executor{"master": executor.NewLocal("master"), "slave1": executor.NewLocal("slave1")}
	_, err := Collect(context.Background(), d, hosts)
	if err == nil || !strings.Contains(err.Error(), "hosts/master is a symbolic link") {
		t.Fatalf("collect through a planted link: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("collect wrote through the link: %v", entries)
	}
	// The other host's file is collected as usual.
	if got := readRel(t, d, HostFile("slave1", HostErrorLog)); !bytes.Equal(got, errLog) {
		t.Errorf("slave1: %d bytes", len(got))
	}
}
