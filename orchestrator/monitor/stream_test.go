package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// fakeSource serves a fakeServer's answers to a stream, and records how
// the stream calls it.
type fakeSource struct {
	mu          sync.Mutex
	f           *fakeServer
	calls       int
	inFlight    int
	maxInFlight int
	// delay and fail by call number (1-based).
	delay map[int]time.Duration
	fail  map[int]bool
}

func (s *fakeSource) mysql(ctx context.Context) (mysqlRaw, error) {
	s.mu.Lock()
	s.calls++
	n := s.calls
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.f.second()
	s.f.commit(100)
	raw, delay, fail := s.f.raw(), s.delay[n], s.fail[n]
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return raw, ctx.Err()
		}
	}
	if fail {
		return raw, errors.New("connection refused")
	}
	return raw, nil
}

func (s *fakeSource) count() (calls, maxInFlight int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls, s.maxInFlight
}

// fakeProc serves /proc text with counters that move.
func fakeProc() func(ctx context.Context) (string, error) {
	var mu sync.Mutex
	n := uint64(0)
	return func(ctx context.Context) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return procText([nCPU]uint64{100 * n, 0, 50 * n, 800 * n, 50 * n, 0, 0, 0}, 2000*n, 100*n, 100*n), nil
	}
}

func waitCalls(t *testing.T, src *fakeSource, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if calls, _ := src.count(); calls >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %v calls after 10s", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A sample that overruns makes the ticks it covered be skipped: one
// sample at a time, no burst afterwards, the grid kept.
func TestSlowSampleSkipsTicks(t *testing.T) {
	const iv = 50 * time.Millisecond
	src := &fakeSource{f: newFakeServer(t, topology.RoleMaster), delay: map[int]time.Duration{3: 4*iv + iv/2, 6: 3*iv + iv/2}}
	dir := t.TempDir()
	began := time.Now()
	m, err := start(context.Background(), Config{Dir: dir, Interval: iv},
		[]spec{{name: "master", role: topology.RoleMaster, srv: src.f.srv, mysql: src.mysql}})
	if err != nil {
		t.Fatal(err)
	}
	waitCalls(t, src, 12)
	sum, err := m.Stop()
	elapsed := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	if _, inFlight := src.count(); inFlight != 1 {
		t.Errorf("%d samples of one host ran at once", inFlight)
	}
	hs := sum.Hosts[0]
	if hs.SkippedTicks < 7 || sum.SkippedTicks != hs.SkippedTicks {
		t.Errorf("skipped %d ticks (total %d), want at least 4+3", hs.SkippedTicks, sum.SkippedTicks)
	}
	// Every tick is sampled or skipped, none twice: no pile-up, no drift.
	ticks := int(elapsed/iv) + 1
	if got := hs.MySQLSamples + hs.SkippedTicks; got > ticks+1 || got < ticks-3 {
		t.Errorf("%d samples + %d skipped over %d ticks", hs.MySQLSamples, hs.SkippedTicks, ticks)
	}
	rows := csvRows(t, filepath.Join(dir, "timeseries", "master-mysql.csv"), MySQLColumns)
	if len(rows) != hs.MySQLSamples {
		t.Errorf("%d rows, summary says %d", len(rows), hs.MySQLSamples)
	}
	// Reported once a minute at most: the second slow sample is counted
	// for the next report.
	skipped := eventsOf(readEvents(t, dir), "master", KindTicksSkipped)
	if len(skipped) != 1 || !strings.Contains(skipped[0].Detail, "mysql: sample took 0.2") {
		t.Errorf("ticks_skipped events %v", skipped)
	}
}

// Start to Stop with fakes: files and summary agree, a host that fails
// for a while is reported once and the others go on.
func TestStartStopWithFailingHost(t *testing.T) {
	const iv = 10 * time.Millisecond
	master := &fakeSource{f: newFakeServer(t, topology.RoleMaster)}
	slave := &fakeSource{f: newFakeServer(t, topology.RoleSlave), fail: map[int]bool{3: true, 4: true, 5: true}}
	dir := t.TempDir()
	m, err := start(context.Background(), Config{Dir: dir, Interval: iv}, []spec{
		{name: "master", role: topology.RoleMaster, srv: master.f.srv, mysql: master.mysql, proc: fakeProc()},
		{name: "slave1", role: topology.RoleSlave, srv: slave.f.srv, mysql: slave.mysql, proc: fakeProc()},
		{name: "loadbox", role: topology.RoleLoadBox, proc: fakeProc()},
	})
	if err != nil {
		t.Fatal(err)
	}
	waitCalls(t, slave, 15)
	waitCalls(t, master, 15)
	sum, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	again, err2 := m.Stop()
	if again != sum || err2 != nil {
		t.Error("a second Stop returned something else")
	}

	byHost := map[string]HostSummary{}
	total := 0
	for _, hs := range sum.Hosts {
		byHost[hs.Host] = hs
		for kind, n := range map[string]int{"mysql": hs.MySQLSamples, "os": hs.OSSamples} {
			path := filepath.Join(dir, "timeseries", hs.Host+"-"+kind+".csv")
			if _, err := os.Stat(path); err != nil {
				if n != 0 {
					t.Errorf("%s: %v", path, err)
				}
				continue
			}
			header := MySQLColumns
			if kind == "os" {
				header = OSColumns
			}
			if rows := csvRows(t, path, header); len(rows) != n {
				t.Errorf("%s: %d rows, summary %d", path, len(rows), n)
			}
			total += n
		}
	}
	if total != sum.Samples {
		t.Errorf("summary samples %d, files hold %d", sum.Samples, total)
	}
	if s1 := byHost["slave1"]; s1.Errors != 3 || !strings.Contains(s1.LastError, "mysql: connection refused") || s1.MySQLSamples < 10 {
		t.Errorf("slave1 %+v", s1)
	}
	if lb := byHost["loadbox"]; lb.OSSamples < 5 || lb.MySQLSamples != 0 || lb.Role != "loadbox" {
		t.Errorf("loadbox %+v", lb)
	}
	if _, err := os.Stat(filepath.Join(dir, "timeseries", "loadbox-mysql.csv")); !os.IsNotExist(err) {
		t.Errorf("loadbox has a mysql series: %v", err)
	}
	evs := readEvents(t, dir)
	if len(evs) != sum.Events {
		t.Errorf("%d event lines, summary says %d", len(evs), sum.Events)
	}
	if e := eventsOf(evs, "slave1", KindHostError); len(e) != 1 || e[0].Detail != "mysql: connection refused" {
		t.Errorf("host_error events %v", e)
	}
	if len(eventsOf(evs, "slave1", KindHostRecovered)) != 1 || len(eventsOf(evs, "master", KindHostError)) != 0 {
		t.Errorf("events %v", evs)
	}
	if len(eventsOf(evs, "", KindMonitorStart)) != 1 || len(eventsOf(evs, "", KindMonitorStop)) != 1 {
		t.Errorf("events %v", evs)
	}
	if len(sum.Lag) != 1 || sum.Lag[0].Host != "slave1" || sum.Lag[0].MaxTransactions == nil {
		t.Errorf("lag %+v", sum.Lag)
	}
	if sum.SemiSync == nil || sum.SemiSync.YesTx == 0 || len(sum.Stalls) != 0 {
		t.Errorf("semi-sync %+v, stalls %v", sum.SemiSync, sum.Stalls)
	}
	// The summary goes into results.json as is.
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"semi_sync":{"enabled":true,"async_fallback_s":0,`, `"avg_wait_us":300,`, `"stalls":[]`,
		`"lag":[{"host":"slave1","max_seconds":0,"max_transactions":`, `"host":"loadbox","role":"loadbox","mysql_samples":0,`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("summary JSON lacks %s:\n%s", key, b)
		}
	}
}

// A sample that ignores cancellation cannot hold Stop (and so the run)
// hostage.
func TestStopAbandonsHungSample(t *testing.T) {
	old := stopGrace
	stopGrace = 50 * time.Millisecond
	defer func() { stopGrace = old }()
	release := make(chan struct{})
	defer close(release)
	calls := 0
	var mu sync.Mutex
	hang := func(ctx context.Context) (string, error) {
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if !first {
			<-release // deaf to ctx
		}
		return procText([nCPU]uint64{1, 1, 1, 1, 1, 1, 1, 1}, 1, 1, 1), nil
	}
	m, err := start(context.Background(), Config{Dir: t.TempDir(), Interval: 10 * time.Millisecond, SampleTimeout: 20 * time.Millisecond},
		[]spec{{name: "slave1", role: topology.RoleSlave, proc: hang}})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	began := time.Now()
	sum, err := m.Stop()
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("Stop took %s", took)
	}
	if err != nil || sum.Hosts[0].OSSamples != 1 {
		t.Errorf("summary %+v, %v", sum.Hosts, err)
	}
}

func TestStartValidates(t *testing.T) {
	f := newFakeServer(t, topology.RoleMaster)
	src := (&fakeSource{f: f}).mysql
	ms := spec{name: "master", role: topology.RoleMaster, srv: f.srv, mysql: src}
	for name, tc := range map[string]struct {
		cfg   Config
		specs []spec
		want  string
	}{
		"no dir":      {Config{}, []spec{ms}, "no run directory"},
		"negative":    {Config{Interval: -1}, []spec{ms}, "negative"},
		"twice":       {Config{}, []spec{ms, ms}, "listed twice"},
		"two masters": {Config{}, []spec{ms, {name: "m2", role: topology.RoleMaster, mysql: src}}, "two masters"},
		"path":        {Config{}, []spec{{name: "../etc", mysql: src}}, "cannot name a file"},
	} {
		if tc.cfg.Dir == "" && name != "no dir" {
			tc.cfg.Dir = t.TempDir()
		}
		if _, err := start(context.Background(), tc.cfg, tc.specs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	h := &topology.Host{Name: "master", Role: topology.RoleMaster, Address: "10.0.0.1"}
	for name, tc := range map[string]struct {
		dbs   []*server.Node
		boxes []cluster.LoadBox
	}{
		"nil session":      {dbs: []*server.Node{nil}},
		"no host":          {dbs: []*server.Node{{}}},
		"no database":      {dbs: []*server.Node{{Host: h}}},
		"load box no exec": {boxes: []cluster.LoadBox{{Host: h}}},
		"load box no host": {boxes: []cluster.LoadBox{{}}},
	} {
		if _, err := Start(context.Background(), Config{Dir: t.TempDir()}, tc.dbs, tc.boxes); err == nil {
			t.Errorf("%s: Start accepted", name)
		}
	}
}

// Series are never overwritten: a run directory's data is not to be lost.
func TestStartRefusesExistingSeries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "timeseries", "master-mysql.csv")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFakeServer(t, topology.RoleMaster)
	_, err := start(context.Background(), Config{Dir: dir},
		[]spec{{name: "master", role: topology.RoleMaster, srv: f.srv, mysql: (&fakeSource{f: f}).mysql}})
	if err == nil {
		t.Fatal("existing series overwritten")
	}
	if b, _ := os.ReadFile(path); string(b) != "precious\n" {
		t.Errorf("series now %q", b)
	}
}

// Stop samples every stream once more, so a series ends where the load
// did, not up to an interval before: with a 1 s interval and Stop 0.6 s
// after a tick, the master's last row is Stop's own sample, whose
// commits (the fake commits 100 per sample) are counted over the 0.6 s
// since that tick.
func TestStopTakesALastSample(t *testing.T) {
	src := &fakeSource{f: newFakeServer(t, topology.RoleMaster)}
	dir := t.TempDir()
	m, err := start(context.Background(), Config{Dir: dir, Interval: time.Second},
		[]spec{{name: "master", role: topology.RoleMaster, srv: src.f.srv, mysql: src.mysql}})
	if err != nil {
		t.Fatal(err)
	}
	waitCalls(t, src, 2) // the sample at the start and the first tick's
	time.Sleep(600 * time.Millisecond)
	stopAt := time.Since(m.start).Seconds()
	if _, err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	if calls, _ := src.count(); calls < 3 {
		t.Fatalf("%d samples: Stop took no last one", calls)
	}
	rows := csvRows(t, filepath.Join(dir, "timeseries", "master-mysql.csv"), MySQLColumns)
	last := rows[len(rows)-1]
	at, iv := atof(t, last["elapsed_s"]), atof(t, last["interval_s"])
	if at < stopAt-0.01 || at > stopAt+lastSampleWait.Seconds() { // elapsed_s has 3 decimals
		t.Errorf("the last row is at %.3f s, Stop began at %.3f s", at, stopAt)
	}
	if iv < 0.4 || iv > 0.9 {
		t.Errorf("the last row covers %.3f s since the tick before, want about 0.6", iv)
	}
	// Stopped again right away: nothing more is sampled.
	calls, _ := src.count()
	if _, err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	if again, _ := src.count(); again != calls {
		t.Errorf("a second Stop sampled %d more times", again-calls)
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}
