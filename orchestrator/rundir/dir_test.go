package rundir

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var start = time.Date(2006, 11, 29, 22, 57, 13, 0, time.FixedZone("CET", 3600))

func TestCreateLayoutAndLatest(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	d, err := Create(root, "oltp insert/innodb", start)
	if err != nil {
		t.Fatal(err)
	}
	// The name is the UTC start (21:57:13Z, not the local 22:57) and the
	// sanitised name.
	want := filepath.Join(root, "20061129T215713Z-oltp-insert-innodb")
	if d.Path() != want {
		t.Fatalf("path %s, want %s", d.Path(), want)
	}
	if target, err := os.Readlink(filepath.Join(root, LatestLink)); err != nil || target != filepath.Base(want) {
		t.Fatalf("latest -> %q (%v), want the relative name %q", target, err, filepath.Base(want))
	}

	// Same second, same name: a distinct directory, and latest moves on.
	d2, err := Create(root, "oltp insert/innodb", start)
	if err != nil {
		t.Fatal(err)
	}
	if d2.Path() != want+"-2" {
		t.Fatalf("second run in the same second: %s, want %s-2", d2.Path(), want)
	}
	l, err := OpenLatest(root)
	if err != nil {
		t.Fatal(err)
	}
	if l.Path() != d2.Path() {
		t.Fatalf("OpenLatest = %s, want %s", l.Path(), d2.Path())
	}
	// No temporary link is left behind.
	ents, _ := os.ReadDir(root)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "20061129T215713Z-oltp-insert-innodb 20061129T215713Z-oltp-insert-innodb-2 latest" {
		t.Fatalf("root holds %s", got)
	}

	// Open resolves the link: the Dir keeps naming its run.
	o, err := Open(filepath.Join(root, LatestLink))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(root, "third", start.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if o.Path() != d2.Path() {
		t.Fatalf("Open(latest) = %s, want the resolved %s", o.Path(), d2.Path())
	}
	if got := d.HostDir("slave1"); got != filepath.Join(want, "hosts", "slave1") {
		t.Fatalf("HostDir = %s", got)
	}
}

func TestOpenErrors(t *testing.T) {
	root := t.TempDir()
	if _, err := OpenLatest(root); err == nil || !strings.Contains(err.Error(), "no runs in") {
		t.Fatalf("OpenLatest on an empty root: %v", err)
	}
	f := filepath.Join(root, "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := Open(f); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("Open(file): %v", err)
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"oltp_insert":           "oltp_insert",
		"a b  c":                "a-b-c",
		"../../etc/passwd":      "etc-passwd",
		"..":                    "run",
		"":                      "run",
		"-rf":                   "rf",
		"héllo wörld":           "h-llo-w-rld",
		"x;$(reboot)":           "x-reboot",
		strings.Repeat("a", 99): strings.Repeat("a", 64),
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPathsStayInside(t *testing.T) {
	d, err := Create(t.TempDir(), "x", start)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"../escape", "/etc/passwd", "", "a/../../b"} {
		if err := d.WriteFile(rel, []byte("x")); err == nil {
			t.Errorf("WriteFile(%q) accepted a path outside the run directory", rel)
		}
		if _, err := d.Create(rel); err == nil {
			t.Errorf("Create(%q) accepted a path outside the run directory", rel)
		}
	}
	if got, want := HostFile("slave/1", HostErrorLog), "hosts/slave-1/error.log"; got != want {
		t.Fatalf("HostFile = %s, want %s", got, want)
	}
}

// A reader polling a file that WriteFile keeps replacing must only ever
// see one of the complete contents.
func TestWriteFileIsAtomic(t *testing.T) {
	d, err := Create(t.TempDir(), "atomic", start)
	if err != nil {
		t.Fatal(err)
	}
	rel := HostFile("master", HostStatusBefore)
	a := bytes.Repeat([]byte("a"), 256<<10)
	b := bytes.Repeat([]byte("b"), 128<<10)
	if err := d.WriteFile(rel, a); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var torn []int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			got, err := os.ReadFile(filepath.Join(d.Path(), rel))
			if err != nil || !(bytes.Equal(got, a) || bytes.Equal(got, b)) {
				torn = append(torn, len(got))
			}
		}
	}()
	for i := 0; i < 200; i++ {
		data := a
		if i%2 == 0 {
			data = b
		}
		if err := d.WriteFile(rel, data); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if len(torn) > 0 {
		t.Fatalf("readers saw %d torn or missing files (sizes %v)", len(torn), torn[:min(5, len(torn))])
	}
	ents, _ := os.ReadDir(filepath.Dir(filepath.Join(d.Path(), rel)))
	if len(ents) != 1 {
		t.Fatalf("temporary files left behind: %d entries", len(ents))
	}
	if st, _ := os.Stat(filepath.Join(d.Path(), rel)); st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, want 0644", st.Mode().Perm())
	}
}

func TestCreateStreamsInPlace(t *testing.T) {
	d, err := Create(t.TempDir(), "stream", start)
	if err != nil {
		t.Fatal(err)
	}
	f, err := d.Create(TimeseriesMySQL("master"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, "t,qps")
	// Visible before Close: a follower can tail it.
	got, _ := os.ReadFile(filepath.Join(d.Path(), "timeseries", "master-mysql.csv"))
	if string(got) != "t,qps\n" {
		t.Fatalf("before close: %q", got)
	}
	fmt.Fprintln(f, "1,100")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(filepath.Join(d.Path(), "timeseries", "master-mysql.csv"))
	if string(got) != "t,qps\n1,100\n" {
		t.Fatalf("after close: %q", got)
	}
}

func TestAppendCommand(t *testing.T) {
	d, err := Create(t.TempDir(), "cmds", time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AppendCommand("prepare", "loadbox", "sysbench oltp_insert --threads=16 prepare", nil, "s3cret"); err != nil {
		t.Fatal(err)
	}
	if err := d.AppendCommand("run", "loadbox", "sysbench oltp_insert --mysql-password=s3cret --threads=16 run",
		map[string]string{"LD_LIBRARY_PATH": "/opt/lib", "API_SECRET": "tok"}, "s3cret"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(d.Path(), BenchmarkCommands))
	if err != nil {
		t.Fatal(err)
	}
	want := "# prepare on loadbox\nsysbench oltp_insert --threads=16 prepare\n" +
		"# run on loadbox\nAPI_SECRET=*** LD_LIBRARY_PATH=/opt/lib sysbench oltp_insert --mysql-password=*** --threads=16 run\n"
	if string(b) != want {
		t.Errorf("commands.txt =\n%s\nwant\n%s", b, want)
	}
}
