package integration

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// clustersSubnet is the first of the two subnets of this test's own lab
// (the second is 10.96.1.0/24): neither the shared lab's nor the lab
// package test's.
const clustersSubnet = "10.96.0.0/24"

var tinyMatrix = []string{"--engines=innodb,rocksdb", "--repeat", "2", "--workload", "pure-random-writes",
	"--time", "3", "--tables", "1", "--table-size", "500", "--threads", "2", "--warmup", "0"}

type designState struct {
	Cells []struct {
		ID, Label, State string
		Started, Ended   time.Time
	} `json:"cells"`
	Design *struct {
		Seed   int64 `json:"seed"`
		Blocks []struct {
			Cluster string   `json:"cluster"`
			Cells   []string `json:"cells"`
			Failed  string   `json:"failed"`
		} `json:"blocks"`
	} `json:"design"`
}

// clustersLab builds a lab of two clusters of this test's own (`orch lab
// up --clusters 2`, eight hosts) and removes it when the test ends, even
// on failure. It returns the test's directory, lab 1's state dir and the
// inventory naming both clusters (lab1, lab2).
func clustersLab(t *testing.T) (l *lab, dir, state, inv string) {
	t.Helper()
	l = needLab(t)
	if os.Geteuid() != 0 {
		t.Fatal("this test builds its own lab: run it as root (make test does)")
	}
	dir = t.TempDir()
	state, inv = filepath.Join(dir, "state"), filepath.Join(dir, "inv", "lab.yaml")
	t.Cleanup(func() {
		r := l.run(t, context.Background(), "lab", "down", "--state-dir", state, "-i", inv)
		for _, p := range []string{state, state + "-2", inv} {
			if _, err := os.Stat(p); err == nil || r.code != 0 {
				t.Errorf("lab down (exit %d) left %s: %s", r.code, p, lastLines(r.stderr, 8))
			}
		}
	})
	l.mustOK(t, "lab", "up", "--clusters", "2", "--subnet", clustersSubnet, "--state-dir", state, "-i", inv)
	return l, dir, state, inv
}

// TestMatrixOverTwoClusters builds a lab of two clusters (`orch lab up
// --clusters 2`, eight hosts) and runs innodb vs rocksdb, two repetitions,
// over both: every configuration runs twice on each cluster, the clusters
// at the same time; the recorded seed prints the same order again; the
// report compares within each cluster and combined.
func TestMatrixOverTwoClusters(t *testing.T) {
	l, dir, _, inv := clustersLab(t)
	runs := filepath.Join(dir, "runs")
	// Ctrl-C once three cells are done, then --resume: the design goes on.
	first := interruptAfter(t, l, 3, append([]string{"matrix", "-i", inv, "--runs", runs}, tinyMatrix...)...)
	mdir, err := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	if err != nil {
		t.Fatal(err)
	}
	res := l.mustOK(t, "matrix", "-i", inv, "--runs", runs, "--resume")
	if !strings.Contains(res.stderr, "matrix: resuming ") || len(cellOK.FindAllString(res.stderr, -1)) >= 8 {
		t.Errorf("--resume did not continue the matrix, or ran every cell again:\n%s", res.stderr)
	}
	res.stdout = first + res.stdout
	var m designState
	if err := json.Unmarshal(mustRead(t, filepath.Join(mdir, "matrix.json")), &m); err != nil {
		t.Fatal(err)
	}
	if m.Design == nil || len(m.Design.Blocks) != 2 || m.Design.Blocks[0].Cluster != "lab1" || m.Design.Blocks[1].Cluster != "lab2" {
		t.Fatalf("matrix.json design: %+v", m.Design)
	}
	if !strings.Contains(res.stdout, "seed "+strconv.FormatInt(m.Design.Seed, 10)) {
		t.Errorf("the plan does not print the recorded seed %d", m.Design.Seed)
	}

	// Every configuration ran, ok, twice on each cluster, in its block's
	// order; the two clusters ran at the same time.
	cell := map[string]int{}
	for i, c := range m.Cells {
		cell[c.ID] = i
	}
	span := map[string][2]time.Time{}
	for _, b := range m.Design.Blocks {
		if b.Failed != "" {
			t.Errorf("cluster %s taken out: %s", b.Cluster, b.Failed)
		}
		count := map[string]int{}
		var prev time.Time
		for _, id := range b.Cells {
			c := m.Cells[cell[id]]
			if c.State != "ok" {
				t.Errorf("%s: cell %s %s", b.Cluster, id, c.State)
			}
			if c.Started.Before(prev) {
				t.Errorf("%s: cell %s started before the previous cell of its block ended", b.Cluster, id)
			}
			prev = c.Ended
			count[c.Label]++
		}
		if count["innodb"] != 2 || count["rocksdb"] != 2 || len(count) != 2 {
			t.Errorf("%s ran %v, want innodb and rocksdb twice each", b.Cluster, count)
		}
		first, last := m.Cells[cell[b.Cells[0]]], m.Cells[cell[b.Cells[len(b.Cells)-1]]]
		span[b.Cluster] = [2]time.Time{first.Started, last.Ended}
	}
	if a, b := span["lab1"], span["lab2"]; !a[0].Before(b[1]) || !b[0].Before(a[1]) {
		t.Errorf("the clusters did not run at the same time: lab1 %v, lab2 %v", a, b)
	}

	// The recorded seed reproduces the order: a dry run with it prints
	// each cluster's cells in the order they ran.
	dry := l.mustOK(t, append([]string{"matrix", "-i", inv, "--dry-run", "--seed", strconv.FormatInt(m.Design.Seed, 10)}, tinyMatrix...)...)
	printed := map[string][]string{}
	row := regexp.MustCompile(`^\d+\s+((lab\d)-\S+)\s`)
	for _, line := range strings.Split(dry.stdout, "\n") {
		if g := row.FindStringSubmatch(line); g != nil {
			printed[g[2]] = append(printed[g[2]], g[1])
		}
	}
	for _, b := range m.Design.Blocks {
		if !slices.Equal(printed[b.Cluster], b.Cells) {
			t.Errorf("--seed %d prints %s as %v; it ran %v", m.Design.Seed, b.Cluster, printed[b.Cluster], b.Cells)
		}
	}

	// The report: a ratio per cluster and the combined one, their
	// geometric mean.
	md := string(mustRead(t, filepath.Join(mdir, "report.md")))
	ratio := func(cluster string) float64 {
		re := regexp.MustCompile(`(?m)^\| rocksdb \| ` + regexp.QuoteMeta(cluster) + ` \|[^|]*\|[^|]*\|[^|]*\| ([0-9.]+)x \|`)
		g := re.FindStringSubmatch(md)
		if g == nil {
			t.Fatalf("report.md has no rocksdb row for %s:\n%s", cluster, md)
		}
		v, _ := strconv.ParseFloat(g[1], 64)
		return v
	}
	// The combined row is the blocked analysis's (the geometric mean over
	// the clusters of each cluster's geometric mean of its rounds'
	// ratios); a cluster's row is its ratio of means. With two rounds a
	// cluster the two differ by about half the rounds' squared spread of
	// log ratios (0.5% at a 10% spread), so 2% holds them together.
	r1, r2, both := ratio("lab1"), ratio("lab2"), ratio("combined (2 clusters)")
	if math.Abs(both/math.Sqrt(r1*r2)-1) > 0.02 {
		t.Errorf("combined ratio %.2f, want the geometric mean of %.2f and %.2f", both, r1, r2)
	}
	if !strings.Contains(md, "### By cluster") || !strings.Contains(md, "--seed "+strconv.FormatInt(m.Design.Seed, 10)) {
		t.Errorf("report.md lacks the by-cluster section or the seed")
	}

	// status acts on both clusters, each line naming its cluster.
	st := l.orch(t, "status", "-i", inv)
	for _, c := range []string{"lab1", "lab2"} {
		if !regexp.MustCompile(`(?m)^` + c + `: master\s`).MatchString(st.stdout) {
			t.Errorf("status has no %s master line:\n%s", c, st.stdout)
		}
	}
	// With --json, one document: each cluster's status under its name.
	js := l.orch(t, "status", "-i", inv, "--json")
	var byCluster map[string]json.RawMessage
	if err := json.Unmarshal([]byte(js.stdout), &byCluster); err != nil || len(byCluster) != 2 ||
		!strings.Contains(string(byCluster["lab1"]), `"master"`) || !strings.Contains(string(byCluster["lab2"]), `"master"`) {
		t.Errorf("status --json over two clusters is not one document of both (%v):\n%s", err, js.stdout)
	}
}

var cellOK = regexp.MustCompile(`(?m)^matrix: lab\d: cell \S+ ok$`)

// interruptAfter runs orch, sends it SIGINT once n cells of its matrix
// are ok, and returns its stdout; it must exit 130 (interrupted).
func interruptAfter(t *testing.T, l *lab, n int, args ...string) string {
	t.Helper()
	cmd := exec.Command(l.bin, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(4 * time.Minute)
	for {
		select {
		case err := <-done:
			t.Fatalf("orch %v ended (%v) before %d cells were done:\n%s\n%s", args, err, n, out.String(), errb.String())
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("orch %v: %d cells not done in 4 minutes", args, n)
		case <-time.After(500 * time.Millisecond):
		}
		if len(cellOK.FindAllString(errb.String(), -1)) >= n {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	<-done
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("orch %v after SIGINT: exit %d, want 130:\n%s", args, code, errb.String())
	}
	t.Logf("interrupted after %d cells:\n%s", n, errb.String())
	return out.String()
}

// TestMatrixClusterUnreachable: with lab2's master cut off, --fail-fast
// stops before any cell; without it lab2 is taken out of the design, its
// rounds run, whole, on lab1, and the report says so.
func TestMatrixClusterUnreachable(t *testing.T) {
	l, dir, state, inv := clustersLab(t)
	l.mustOK(t, "lab", "fault", "master", "link-down", "--state-dir", state+"-2")
	// lab status covers both clusters and names the broken host.
	st := l.orch(t, "lab", "status", "--state-dir", state)
	if st.code != 1 || !regexp.MustCompile(`(?m)^lab2/loadbox\s`).MatchString(st.stdout) || !strings.Contains(st.stderr, "lab2/master") {
		t.Errorf("lab status with lab2's master cut off: exit %d, want 1 naming lab2/master:\n%s\n%s", st.code, st.stdout, st.stderr)
	}
	args := []string{"matrix", "-i", inv, "--runs", filepath.Join(dir, "runs"), "--engines=innodb,rocksdb", "--repeat", "1",
		"--workload", "pure-random-writes", "--time", "3", "--tables", "1", "--table-size", "500", "--threads", "2", "--warmup", "0"}

	r := l.orch(t, append(args, "--fail-fast")...)
	if r.code != 1 || !strings.Contains(r.stderr, "cluster lab2") || !strings.Contains(r.stderr, "--fail-fast") {
		t.Errorf("--fail-fast with lab2 unreachable: exit %d, want 1 naming lab2:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "matrix: lab1: cell") {
		t.Errorf("--fail-fast ran cells:\n%s", r.stderr)
	}

	l.mustOK(t, args...)
	mdir, err := filepath.EvalSymlinks(filepath.Join(dir, "runs", "latest"))
	if err != nil {
		t.Fatal(err)
	}
	var m designState
	if err := json.Unmarshal(mustRead(t, filepath.Join(mdir, "matrix.json")), &m); err != nil {
		t.Fatal(err)
	}
	if m.Design == nil || len(m.Design.Blocks) != 2 {
		t.Fatalf("design: %+v", m.Design)
	}
	lab1, lab2 := m.Design.Blocks[0], m.Design.Blocks[1]
	if !strings.Contains(lab2.Failed, "unreachable") || !strings.Contains(lab2.Failed, "master") {
		t.Errorf("lab2 failed %q: want unreachable, naming the master", lab2.Failed)
	}
	ok := map[string]int{}
	for _, c := range m.Cells {
		if !strings.HasPrefix(c.ID, "lab1-") || c.State != "ok" {
			t.Errorf("cell %s %s: every cell should have run, ok, on lab1", c.ID, c.State)
		}
		ok[c.Label]++
	}
	if len(lab1.Cells) != 4 || ok["innodb"] != 2 || ok["rocksdb"] != 2 {
		t.Errorf("lab1 ran %v (%d cells): want its round and lab2's, each configuration twice", ok, len(lab1.Cells))
	}
	md := string(mustRead(t, filepath.Join(mdir, "report.md")))
	if !strings.Contains(md, "Cluster lab2 was taken out of the schedule: unreachable") || !strings.Contains(md, "Round 1 of lab2 ran on lab1 as its round 2") {
		t.Errorf("report.md does not say lab2 was taken out and its round moved:\n%s", md)
	}
}
