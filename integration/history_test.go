package integration

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/orch-bench/orch/internal/privatemariadb"
	"github.com/orch-bench/orch/orchestrator/history"
)

// flushLog is the knob of large effect on the lab with one client thread:
// =1 fsyncs the redo log at every commit, =2 once a second (the lab
// measured about 2.8x).
const flushLog = "innodb_flush_log_at_trx_commit"

// thirdKnobs are the third campaign's settings (as --knobs takes them,
// and as the history words them, after the first two's flushLog=2):
// sync_binlog=1 syncs the binary log at each commit group as well, to
// set the change further above the machine's drift between campaigns (a
// busy machine once made the second campaign, the same settings as the
// first, 30% slower, and the detector rightly put its change there). With
// one client thread it adds little to flushLog=1 alone: 2795 -> 1187
// writes/s (0.42x) in the make test that followed, against about 0.36-0.4x.
const (
	thirdKnobs = flushLog + "=1;sync_binlog=1"
	thirdWords = flushLog + "=1 sync_binlog=1"
	knobChange = "knobs: " + flushLog + "=2 -> " + thirdWords
)

// historySeries is `orch history --json`'s series, the fields the tests
// read.
type historySeries struct {
	Key      string `json:"key"`
	Identity struct {
		Workload string `json:"workload"`
		Knobs    string `json:"knobs"`
	} `json:"identity"`
	Merged []string `json:"merged"`
	Points []struct {
		Campaign string   `json:"campaign"`
		Runs     int      `json:"runs"`
		N        int      `json:"n"`
		Mean     *float64 `json:"mean_metric"`
		Low      *float64 `json:"ci95_low_metric"`
		High     *float64 `json:"ci95_high_metric"`
		Report   string   `json:"report"`
	} `json:"points"`
	// The change points as orch writes them (history.Change's JSON).
	Changes []history.Change `json:"change_points"`
}

func historyJSON(t *testing.T, l *lab, args ...string) []historySeries {
	t.Helper()
	r := l.mustOK(t, append(append([]string{"history"}, args...), "--json")...)
	var series []historySeries
	if err := json.Unmarshal([]byte(r.stdout), &series); err != nil {
		t.Fatalf("orch history --json: %v\n%s", err, r.stdout)
	}
	return series
}

// checkHistory holds issue 34's done-when on three campaigns of one
// workload (campaigns, oldest first, each a matrix directory under runs):
// the first two at innodb_flush_log_at_trx_commit=2, the third at =1.
// Every cell was recorded in the runs root's store when it ended, and
// importing the folder again adds nothing; without --ignore the two
// settings are two series, named as differing only in knobs; with
// --ignore knobs they are one series of three points whose change point
// is the third campaign, for the worse, naming the knob, which --check
// reports (exit 1); the HTML page plots it with the change point marked
// and links every point to a report that exists; and the same runs
// imported (twice) into a MariaDB store give the same series and change
// point. It runs on what the matrices left, offline, in seconds.
func checkHistory(t *testing.T, l *lab, runs string, campaigns []string) {
	t.Helper()
	// Every cell that ran, per campaign.
	var cells []int
	total := 0
	for _, c := range campaigns {
		n := 0
		for _, cell := range loadMatrix(t, c).Cells {
			if cell.State == "ok" {
				n++
			}
		}
		cells = append(cells, n)
		total += n
	}
	recorded := 0
	for _, s := range historyJSON(t, l, "--runs", runs) {
		for _, p := range s.Points {
			recorded += p.Runs
		}
	}
	if recorded != total {
		t.Errorf("the history holds %d runs, the matrices ran %d cells", recorded, total)
	}
	if _, err := os.Stat(filepath.Join(runs, "history.sqlite")); err != nil {
		t.Errorf("no store in the runs root: %v", err)
	}
	imp := l.mustOK(t, "history", "import", "--runs", runs, runs)
	if want := fmt.Sprintf(" %d runs read, 0 new, %d already recorded", total, total); !strings.Contains(imp.stdout, want) {
		t.Errorf("importing what the matrices recorded: %q, want %q", imp.stdout, want)
	}
	table := l.mustOK(t, "history", "--runs", runs)
	if !regexp.MustCompile(`differ only in knobs: ` + flushLog + `=2 -> ` + thirdWords + `; --ignore knobs makes them one`).MatchString(table.stdout) {
		t.Errorf("orch history does not name the two settings' series as differing only in knobs:\n%s", table.stdout)
	}

	// One series over the three campaigns; its change point is the third.
	merged := historyJSON(t, l, "--runs", runs, "--ignore", "knobs")
	s := checkKnobSeries(t, merged, campaigns, cells)
	if s == nil {
		return
	}
	one := l.mustOK(t, "history", "--runs", runs, "--ignore", "knobs", s.Key)
	if want := fmt.Sprintf("change point at point 3 (%s): ", filepath.Base(campaigns[2])); !strings.Contains(one.stdout, want) ||
		!strings.Contains(one.stdout, "changed there: "+knobChange) {
		t.Errorf("orch history %s does not show the change point at point 3 naming the knob:\n%s", s.Key, one.stdout)
	}
	check := l.orch(t, "history", "--runs", runs, "--ignore", "knobs", "--check", "--threshold", "10")
	lines := strings.Split(strings.TrimSpace(check.stdout), "\n")
	if check.code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "REGRESSION "+s.Key+" pure-random-writes innodb writes/s: at "+filepath.Base(campaigns[2])) ||
		!strings.Contains(lines[0], "(worse) with "+knobChange) {
		t.Errorf("orch history --check: exit %d, stdout %q; want exit 1 and one REGRESSION line at the third campaign naming the knob", check.code, check.stdout)
	}
	checkHistoryHTML(t, l, runs, s)

	// The same runs in a MariaDB store (a private server of the lab's
	// packages), imported twice.
	db := privatemariadb.Start(t, true)
	cfg := filepath.Join(t.TempDir(), "store.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("address: %s\nuser: %s\ndatabase: %s\npassword_file: %s\n", db.Socket, db.User, db.Database, db.PasswordFile)), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, added := range []int{total, 0} {
		imp := l.mustOK(t, append([]string{"history", "import", "--store-config", cfg}, campaigns...)...)
		if want := fmt.Sprintf(" %d runs read, %d new, ", total, added); !strings.Contains(imp.stdout, want) {
			t.Errorf("import %d into MariaDB: %q, want %q", i+1, imp.stdout, want)
		}
	}
	ms := checkKnobSeries(t, historyJSON(t, l, "--store-config", cfg, "--ignore", "knobs"), campaigns, cells)
	if mj, sj := mustJSON(t, ms), mustJSON(t, s); ms != nil && mj != sj {
		t.Errorf("the MariaDB store's series differs from the SQLite store's:\n%s\n%s", mj, sj)
	}
	if c := l.orch(t, "history", "--store-config", cfg, "--ignore", "knobs", "--check", "--threshold", "10"); c.code != 1 || c.stdout != check.stdout {
		t.Errorf("--check on the MariaDB store: exit %d, %q; want exit 1 and the SQLite store's line", c.code, c.stdout)
	}
}

// checkKnobSeries finds the one series of the three campaigns (--ignore
// knobs) and holds its points and change point; it logs the figures.
func checkKnobSeries(t *testing.T, series []historySeries, campaigns []string, cells []int) *historySeries {
	t.Helper()
	if len(series) != 1 {
		t.Errorf("--ignore knobs: %d series, want one", len(series))
		return nil
	}
	s := &series[0]
	if len(s.Points) != 3 {
		t.Errorf("the series has %d points, want the 3 campaigns", len(s.Points))
		return nil
	}
	for i, p := range s.Points {
		// N: the runs in the statistics (the report may leave one out).
		if p.Campaign != filepath.Base(campaigns[i]) || p.Runs != cells[i] || p.N < 2 || p.N > p.Runs || p.Mean == nil || p.Low == nil || p.High == nil {
			t.Errorf("point %d: %+v; want campaign %s with %d runs", i+1, p, filepath.Base(campaigns[i]), cells[i])
			continue
		}
		t.Logf("point %d: %s: %.0f [%.0f, %.0f] writes/s, n=%d", i+1, p.Campaign, *p.Mean, *p.Low, *p.High, p.N)
	}
	if fmt.Sprint(s.Merged) != "[knobs]" {
		t.Errorf("the series says it merged %v, want [knobs]", s.Merged)
	}
	if len(s.Changes) == 0 {
		t.Errorf("no change point in the series")
		return s
	}
	for _, c := range s.Changes {
		t.Logf("change point at point %d (%s): %.0f -> %.0f writes/s, %+.1f%%, p=%.3f, worse %v, with %v", c.At+1, c.Campaign, c.Before, c.After, 100*c.Relative, c.P, c.Worse, c.What)
	}
	c := s.Changes[len(s.Changes)-1]
	// =1 waits for an fsync at every commit, sync_binlog=1 for another.
	if c.At != 2 || c.Campaign != filepath.Base(campaigns[2]) || !c.Worse || c.Relative > -0.3 || c.P > 0.05 ||
		!containsString(c.What, knobChange) {
		t.Errorf("the latest change point %+v; want the third campaign, worse by over 30%%, p <= 0.05, naming the knob", c)
	}
	return s
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var (
	hrefRE = regexp.MustCompile(`href="([^"#][^"]*)"`)
	svgRE  = regexp.MustCompile(`(?s)<svg .*?</svg>`)
)

// checkHistoryHTML: the static page has one plot per series, the change
// point marked on it and named, a link per point, and every link it
// holds (points and the index of runs) resolves to a report file that
// exists, relative to the page.
func checkHistoryHTML(t *testing.T, l *lab, runs string, s *historySeries) {
	t.Helper()
	page := filepath.Join(runs, "site", "history.html")
	l.mustOK(t, "history", "--runs", runs, "--ignore", "knobs", "--html", page)
	b := string(mustRead(t, page))
	plots := svgRE.FindAllString(b, -1)
	if len(plots) != 1 {
		t.Fatalf("the page has %d plots, want one per series (1)", len(plots))
	}
	if n := strings.Count(plots[0], "<circle"); n != len(s.Points) {
		t.Errorf("the plot has %d points, want %d", n, len(s.Points))
	}
	if n := strings.Count(plots[0], "<a href="); n != len(s.Points) {
		t.Errorf("%d of the plot's %d points link to a report", n, len(s.Points))
	}
	if n := strings.Count(plots[0], `stroke-dasharray`); n != len(s.Changes) {
		t.Errorf("the plot marks %d change points, the series has %d", n, len(s.Changes))
	}
	if !strings.Contains(html.UnescapeString(plots[0]), knobChange) {
		t.Errorf("the plot's change point does not name the knob")
	}
	if !strings.Contains(b, "change point at "+filepath.Base(s.Changes[len(s.Changes)-1].Campaign)) {
		t.Errorf("the page does not name the change point under its plot")
	}
	links := hrefRE.FindAllStringSubmatch(b, -1)
	runsTotal := 0
	for _, p := range s.Points {
		runsTotal += p.Runs
	}
	if len(links) != len(s.Points)+runsTotal {
		t.Errorf("the page has %d links, want one per point (%d) and per run (%d)", len(links), len(s.Points), runsTotal)
	}
	for _, m := range links {
		target := filepath.Join(filepath.Dir(page), filepath.FromSlash(html.UnescapeString(m[1])))
		if st, err := os.Stat(target); err != nil || st.IsDir() || !strings.HasSuffix(target, "report.html") {
			t.Errorf("link %s: %v (want an existing report.html)", m[1], err)
		}
	}
}

// checkCompareAcrossVersions: orch compare of a real MariaDB 10.11 lab
// matrix (the report's lab2026 fixture, innodb and rocksdb as the lab ran
// them) and a matrix of this test on another server version (newVersion)
// refuses the innodb runs (exit 2), naming version among the fields that
// differ; with the workload parameters ignored version still refuses
// them; ignoring every field it names compares them (exit 0, a table). It
// reads the directories only, in a second.
func checkCompareAcrossVersions(t *testing.T, l *lab, dir, newVersion string) {
	t.Helper()
	old, err := filepath.Abs(filepath.Join("..", "orchestrator", "report", "testdata", "lab2026"))
	if err != nil {
		t.Fatal(err)
	}
	refused := regexp.MustCompile(`pure-random-writes innodb: not compared: different series, (.*) \(--ignore (\S+) compares them anyway\)`)
	cmp := l.orch(t, "compare", old, dir)
	got := refused.FindStringSubmatch(cmp.stderr)
	if cmp.code != 2 || got == nil || !strings.Contains(got[1], "version: MariaDB 10.11.19 -> "+newVersion) ||
		!strings.Contains(cmp.stderr, "pure-random-writes rocksdb: not compared: only in A") {
		t.Fatalf("orch compare across versions: exit %d, stderr %q; want exit 2 naming the version", cmp.code, cmp.stderr)
	}
	cmp = l.orch(t, "compare", "--ignore", "params", old, dir)
	got = refused.FindStringSubmatch(cmp.stderr)
	if cmp.code != 2 || got == nil || !strings.HasPrefix(got[1], "version: MariaDB 10.11.19 -> "+newVersion) || strings.Contains(got[1], "params:") {
		t.Fatalf("orch compare --ignore params across versions: exit %d, stderr %q; want exit 2, version first of the fields named", cmp.code, cmp.stderr)
	}
	asked := l.orch(t, "compare", "--ignore", "params,"+got[2], old, dir)
	if asked.code != 0 || !regexp.MustCompile(`(?m)^innodb +\S+ ±`).MatchString(asked.stdout) {
		t.Errorf("orch compare --ignore params,%s: exit %d; want the innodb row compared:\n%s", got[2], asked.code, asked.stdout)
	}
}
