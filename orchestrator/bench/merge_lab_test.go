package bench

import (
	"bytes"
	"context"
	"sort"
	"sync"
	"testing"
	"time"
)

// TestLabMergeTwoClients runs two sysbench clients at once against the
// lab's master (both on the lab's one load box: "two clients on one box"),
// each timestamping its interval lines as they arrive, and merges them:
// the merged figures must be the clients' sums, slot by slot, and the
// merged p95 the percentile of the summed histograms, which the clients'
// own printed p95 also follow (sysbench's rule, checked on live output).
func TestLabMergeTwoClients(t *testing.T) {
	l := openLab(t)
	w, err := LoadWorkload("pure-random-writes")
	if err != nil {
		t.Fatal(err)
	}
	// auto_inc on: the server picks the ids, so two clients never collide.
	if err := w.Override(map[string]string{"tables": "2", "threads": "2", "time": "6", "table-size": "100",
		"auto-inc": "true", "histogram": "true", "database": labDatabase}); err != nil {
		t.Fatal(err)
	}
	d, _ := NewDriver(w)
	spec, _ := d.Dataset()
	ctx := context.Background()
	if _, err := l.db.ExecContext(ctx, spec.CreateDatabaseSQL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quoteIdent(labDatabase)) })
	prepare, err := d.Step(PhasePrepare, l.target)
	if err != nil {
		t.Fatal(err)
	}
	l.run(t, prepare)
	run, err := d.Step(PhaseRun, l.target)
	if err != nil {
		t.Fatal(err)
	}

	// Both clients are released together; each one's clock start is taken
	// from its lines: a line for T seconds arrives at start+T plus a
	// delivery delay, so the earliest arrival-T is the best estimate.
	names := []string{"client1", "client2"}
	runs := make([]ClientRun, len(names))
	release := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out bytes.Buffer
			var start time.Time
			cmd := run.Command()
			cmd.Timeout = 2 * time.Minute
			cmd.Stdout = &lineWriter{fn: func(line string) {
				out.WriteString(line + "\n")
				if iv, ok := d.Progress(line); ok {
					if s := time.Now().Add(-time.Duration(iv.T) * time.Second); start.IsZero() || s.Before(start) {
						start = s
					}
				}
			}}
			<-release
			if _, err := l.lbex.Run(ctx, cmd); err != nil {
				errs[i] = err
				return
			}
			res, err := d.Parse(run.Output, &out)
			if err != nil {
				errs[i] = err
				return
			}
			runs[i] = ClientRun{Name: name, Start: start, Result: res.(*Sysbench)}
		}()
	}
	close(release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
	}

	m, err := MergeSysbench(runs)
	if err != nil {
		t.Fatal(err)
	}
	a, b := runs[0].Result, runs[1].Result
	for _, r := range []*Sysbench{a, b} {
		if !r.Complete || len(r.Histogram) == 0 || len(r.Intervals) < 5 || r.Percentile != 95 {
			t.Fatalf("client result: complete %v, %d histogram rows, %d intervals, p%d", r.Complete, len(r.Histogram), len(r.Intervals), r.Percentile)
		}
		// sysbench prints %.2f of the bucket value, the histogram %.3f.
		own, _ := HistogramPercentile(r.Histogram, 95)
		if d := own.Float64() - r.LatencyMS.Pct.Float64(); d > 0.01 || d < -0.01 {
			t.Errorf("client p95 %s, from its histogram %s", r.LatencyMS.Pct, own)
		}
	}
	if m.MaxSkewMS > 500 {
		t.Errorf("clients started %.0f ms apart although released together", m.MaxSkewMS)
	}
	// Throughput: every client line lands in exactly one slot.
	var sumClients, sumMerged float64
	for _, r := range []*Sysbench{a, b} {
		for _, iv := range r.Intervals {
			sumClients += iv.TPS.Float64()
		}
	}
	complete := 0
	for _, iv := range m.Intervals {
		sumMerged += iv.TPS.Float64()
		if iv.Complete {
			complete++
		}
	}
	if d := sumMerged - sumClients; d > 0.001 || d < -0.001 || complete < min(len(a.Intervals), len(b.Intervals))-1 {
		t.Errorf("merged tps sum %.2f vs clients %.2f; %d complete slots", sumMerged, sumClients, complete)
	}
	if d := m.TPS.Float64() - (a.TPS.Float64() + b.TPS.Float64()); m.Events != a.Events+b.Events || d > 0.001 || d < -0.001 || m.Threads != 4 {
		t.Errorf("merged events %d tps %s threads %d", m.Events, m.TPS, m.Threads)
	}
	// Latency: recompute the merged p95 here from the two histograms.
	counts := map[float64]int64{}
	var total int64
	for _, r := range []*Sysbench{a, b} {
		for _, row := range r.Histogram {
			counts[row.ValueMS.Float64()] += row.Count
			total += row.Count
		}
	}
	values := make([]float64, 0, len(counts))
	for v := range counts {
		values = append(values, v)
	}
	sort.Float64s(values)
	rank, cum, p95 := int64(float64(total)*0.95+0.5), int64(0), 0.0
	for _, v := range values {
		if cum += counts[v]; cum >= rank {
			p95 = v
			break
		}
	}
	if m.LatencyMS.Pct.Float64() != p95 || total != m.Events {
		t.Errorf("merged p95 %s, recomputed %.3f; histogram total %d, events %d", m.LatencyMS.Pct, p95, total, m.Events)
	}
	mean := (a.LatencyMS.Pct.Float64() + b.LatencyMS.Pct.Float64()) / 2
	t.Logf("clients: %s + %s tps, p95 %s and %s ms (mean %.2f); merged %s tps, p95 %s ms from %d buckets; %d slots, skew %.0f ms",
		a.TPS, b.TPS, a.LatencyMS.Pct, b.LatencyMS.Pct, mean, m.TPS, m.LatencyMS.Pct, len(m.Histogram), len(m.Intervals), m.MaxSkewMS)
}
