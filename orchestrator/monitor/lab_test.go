package monitor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/labenv"
)

// TestLabMonitor samples the lab's cluster under sysbench, then cuts both
// slaves off: the master stalls with semi-sync still ON and 2 clients, and
// only frozen commits show it.
func TestLabMonitor(t *testing.T) {
	env := needLab(t)
	env.stateDir = labenv.StateDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := env.sysbench(ctx, "prepare", 2, 10); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}

	// slave1 applies nothing for the load's first 6 s (its SQL thread
	// stopped, its IO thread still acknowledging), while the test reads
	// the master's position every few milliseconds: the truth its lag
	// samples are held against (lagTruth).
	frozen := freezeSlave(t, ctx, env, "slave1")
	truth := pollMaster(t, ctx, env)

	dir := t.TempDir()
	var stalls atomic.Int32
	stalled := make(chan Event, 4)
	m, err := Start(ctx, Config{Dir: dir, StallAfter: 2 * time.Second, StallLimit: 5 * time.Second,
		OnStall: func(e Event) { stalls.Add(1); stalled <- e }}, env.dbs, nil)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	m.SetLoadActive(true)
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := env.sysbench(ctx, "run", 4, 25)
		done <- result{out, err}
	}()

	time.Sleep(6 * time.Second)
	frozen.thaw(t)
	polled := truth.stop()
	time.Sleep(time.Second)
	cut := time.Now()
	t.Logf("links cut at %s", cut.UTC().Format(timeLayout))
	env.fault(t, "slave1", "link-down")
	env.fault(t, "slave2", "link-down")
	restored := false
	var back time.Time
	restore := func() {
		if !restored {
			restored = true
			env.fault(t, "slave1", "link-up")
			env.fault(t, "slave2", "link-up")
			back = time.Now()
		}
	}
	defer restore()
	select {
	case e := <-stalled:
		t.Logf("OnStall after %.1fs of cut: %s", time.Since(cut).Seconds(), e.Detail)
		if !strings.Contains(e.Detail, "semi-sync is ON with 2 clients") {
			t.Errorf("diagnosis %q does not name the semi-sync wait", e.Detail)
		}
	case <-time.After(20 * time.Second):
		t.Error("no OnStall within 20s of cutting both slaves")
	}
	if wait := 8*time.Second - time.Since(cut); wait > 0 {
		time.Sleep(wait)
	}
	restore()
	t.Logf("links back at %s", time.Now().UTC().Format(timeLayout))
	r := <-done
	m.SetLoadActive(false)
	elapsed := time.Since(began)
	sum, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.out)
	}
	summary, _ := json.MarshalIndent(sum, "", "  ")
	t.Logf("sysbench: %.1f tps over %s; monitor summary:\n%s", env.tps(t, r.out), elapsed.Round(time.Second), summary)

	// ~1 row per second per file, with the load visible, and Stop's.
	master := csvRows(t, filepath.Join(dir, "timeseries", "master-mysql.csv"), MySQLColumns)
	if n, want := len(master), int(elapsed.Seconds()); n < want-3 || n > want+3 {
		t.Errorf("master: %d rows over %s", n, elapsed)
	}
	busy := 0
	for _, row := range master {
		t.Logf("master %s +%ss: insert/s %s gtid/s %s yes/s %s wait %sus clients %s", row["t"], row["elapsed_s"],
			row["com_insert_ps"], row["gtid_tx_ps"], row["semisync_yes_tx_ps"], row["semisync_avg_wait_us"], row["semisync_clients"])
	}
	for i, row := range master[1:] {
		if num(t, row, "com_insert_ps") > 0 && num(t, row, "gtid_tx_ps") > 0 && num(t, row, "semisync_yes_tx_ps") > 0 {
			busy++
		}
		// About a second each; the last row is Stop's own sample, at
		// least 100 ms after the one before (monitor.lastSample). A
		// sample answered late (0.22 s once on the lab, its cores shared
		// with other work) makes the next interval as much shorter: the
		// ticks stay on their grid.
		iv, lo := num(t, row, "interval_s"), 0.5
		if i == len(master)-2 {
			lo = 0.09 // elapsed_s has 3 decimals
		}
		if iv < lo || iv > 1.5 {
			t.Errorf("master row at %s: interval %.3fs", row["t"], iv)
		}
	}
	if busy < 8 {
		t.Errorf("only %d master rows show inserts, binlog writes and acks", busy)
	}
	for _, slave := range []string{"slave1", "slave2"} {
		rows := csvRows(t, filepath.Join(dir, "timeseries", slave+"-mysql.csv"), MySQLColumns)
		lagged, withS, applying := 0, 0, 0
		for _, row := range rows {
			if row["lag_tx"] != "" {
				lagged++
			}
			// Seconds_Behind_Master is NULL while slave1's SQL thread is
			// stopped (the first 6 s): its cell is empty then.
			if row["lag_s"] != "" {
				withS++
			}
			if row["gtid_tx_ps"] != "" && num(t, row, "gtid_tx_ps") > 0 {
				applying++
			}
		}
		// The cut leaves a hole in the slaves' series.
		if lagged < 10 || withS < 5 || applying < 5 {
			t.Errorf("%s: %d rows with lag_tx, %d with lag_s, %d applying, of %d", slave, lagged, withS, applying, len(rows))
		}
		osRows := csvRows(t, filepath.Join(dir, "timeseries", slave+"-os.csv"), OSColumns)
		if len(osRows) < 10 || osRows[len(osRows)-1]["cpu_idle_pct"] == "" || osRows[len(osRows)-1]["disk"] == "" {
			t.Errorf("%s os: %d rows, last %v", slave, len(osRows), osRows[len(osRows)-1])
		}
	}

	// The server's own counters, from the pid in its pid_file: CPU and
	// storage writes while it takes inserts (the lab logs in as root, so
	// /proc/PID/io is readable).
	withCPU, withIO, withSampler := 0, 0, 0
	samplerUs := 0.0
	for _, row := range csvRows(t, filepath.Join(dir, "timeseries", "master-os.csv"), OSColumns) {
		// The sampler's own CPU: its shell, reading /proc with builtins,
		// counted in clock ticks (10 ms): a second may add none.
		if row["sampler_cpu_us_ps"] != "" {
			withSampler++
			samplerUs += num(t, row, "sampler_cpu_us_ps")
		}
		if row["server_pid"] == "" || row["server_threads"] == "" || num(t, row, "server_threads") < 2 {
			t.Errorf("master os row at %s without the server's pid or threads: %v", row["t"], row)
			break
		}
		if row["server_cpu_us_ps"] != "" && num(t, row, "server_cpu_us_ps") > 0 && row["server_cs_ps"] != "" && num(t, row, "server_cs_ps") > 0 {
			withCPU++
		}
		if row["server_write_bps"] != "" && num(t, row, "server_write_bps") > 0 {
			withIO++
		}
	}
	if withCPU < 8 || withIO < 3 || withSampler < 8 || !(samplerUs > 0) {
		t.Errorf("master os: %d rows with the server's CPU and context switches, %d with its writes, %d with the sampler's own CPU (%.0f µs in all)", withCPU, withIO, withSampler, samplerUs)
	}

	evs := readEvents(t, dir)
	for _, e := range evs {
		t.Logf("event %s %s %s: %s", e.T, e.Host, e.Kind, e.Detail)
	}
	// One stall for the cut, which reaches the limit and clears. After the
	// links are back, each slave's connections resume at their own next
	// TCP retransmission (seconds apart after an 8 s outage), and the
	// master may stall again, truly (rows with no inserts), until its
	// acks flow: such a stall must start after the restore and clear too.
	// A second stall during the cut would be the monitor flapping.
	stallEv := eventsOf(evs, "master", KindStall)
	limits := eventsOf(evs, "master", KindStallLimit)
	if len(stallEv) == 0 || len(limits) == 0 || len(eventsOf(evs, "master", KindStallCleared)) != len(stallEv) {
		t.Errorf("want a stall reaching its limit, every stall cleared; events:\n%v", evs)
	}
	for i, e := range stallEv {
		at, err := time.Parse(timeLayout, e.T)
		switch {
		case err != nil:
			t.Error(err)
		case i == 0 && (at.Before(cut.Add(-2*time.Second)) || at.After(cut.Add(2*time.Second))):
			t.Errorf("stall starts at %s, links cut at %s", e.T, cut.UTC().Format(timeLayout))
		case i > 0 && at.Before(back):
			t.Errorf("a second stall at %s, before the links were back at %s", e.T, back.UTC().Format(timeLayout))
		}
	}
	for _, slave := range []string{"slave1", "slave2"} {
		if len(eventsOf(evs, slave, KindHostError)) == 0 || len(eventsOf(evs, slave, KindHostRecovered)) == 0 {
			t.Errorf("%s: no host_error/host_recovered events", slave)
		}
	}
	if n := stalls.Load(); int(n) != len(limits) {
		t.Errorf("OnStall called %d times for %d stall limits", n, len(limits))
	}
	if len(sum.Stalls) != len(stallEv) || len(sum.Stalls) == 0 || !sum.Stalls[0].LimitReached || !sum.Stalls[0].Cleared || sum.Stalls[0].Seconds < 5 {
		t.Errorf("summary stalls %+v", sum.Stalls)
	}
	if ss := sum.SemiSync; ss == nil || !ss.Enabled || ss.YesTx < 100 || ss.NoTx != 0 || ss.AvgWaitUs == nil || ss.AsyncFallbackSeconds != 0 {
		t.Errorf("semi-sync health %+v", sum.SemiSync)
	}
	for _, l := range sum.Lag {
		if l.MaxTransactions == nil || l.MaxSeconds == nil {
			t.Errorf("%s: lag %+v", l.Host, l)
		}
	}
	assertNoSecret(t, dir, env.password)
	checkLag(t, dir, m.start, frozen, polled)
}

// assertNoSecret fails if any file under dir holds the password.
func assertNoSecret(t *testing.T, dir, secret string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("%s holds the MySQL password", path)
		}
		return nil
	})
}
