package integration

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
)

// observerConfig is one way of watching a run, as orch run flags.
type observerConfig struct {
	name, what string
	flags      []string
}

// observerConfigs: everything off (the baseline), the default, the
// monitors alone, and each stack sampler.
var observerConfigs = []observerConfig{
	{"off", "all instruments off", []string{"--monitor=off", "--stacks=off"}},
	{"default", "default instruments (monitors + default stacks)", nil},
	{"monitors", "monitors alone", []string{"--stacks=off"}},
	{"perf", "--stacks=perf", []string{"--stacks=perf"}},
	{"gdb", "--stacks=gdb", []string{"--stacks=gdb"}},
}

// BenchmarkObserverCost measures what orch's watching costs the measured
// load: the same 10 s workload with all instruments off (--monitor=off
// --stacks=off), with the default ones, the monitors alone, --stacks=perf
// and --stacks=gdb, interleaved in rounds whose order alternates (a b c d e
// e d c b a ...) so that a drift of the machine falls on every
// configuration alike; ORCH_BENCH_REPS rounds (default 5). Each run's TPS
// is the mean of its one-second intervals after 2 s. It prints, per
// configuration, one line "observer cost: WHAT vs all off: RATIOx, 95% CI
// [LOW, HIGH]" (Fieller's interval of the ratio of means, as the report
// computes it), and the longest server stop of the gdb runs (taken in the
// profiling tail, after the measured load). It asserts nothing about
// speed. Target: the default within 2% of off, its CI containing 1.
// Each line is followed by the same comparison paired by round (the
// geometric mean of each round's ratio, a t interval on their logs): the
// two runs of a round are minutes apart at most, so the machine's drift,
// which dominates the unpaired interval on a shared lab, cancels.
// ORCH_BENCH_CONFIGS (e.g. "off,default") runs a subset; "off" is always
// run, as the baseline.
//
//	ORCH_LAB_INVENTORY=$PWD/inventories/lab.yaml ORCH_BIN=$PWD/bin/orch \
//	  go test -run '^$' -bench ObserverCost -benchtime 1x ./integration/
func BenchmarkObserverCost(b *testing.B) {
	inv, bin := os.Getenv("ORCH_LAB_INVENTORY"), os.Getenv("ORCH_BIN")
	if inv == "" || bin == "" {
		b.Skip("no lab: set ORCH_LAB_INVENTORY and ORCH_BIN")
	}
	reps := 5
	if s := os.Getenv("ORCH_BENCH_REPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 2 {
			b.Fatalf("ORCH_BENCH_REPS=%q: want a whole number of at least 2", s)
		}
		reps = n
	}
	configs := observerConfigs
	if s := os.Getenv("ORCH_BENCH_CONFIGS"); s != "" {
		want := strings.Split(s, ",")
		configs = slices.DeleteFunc(slices.Clone(observerConfigs), func(c observerConfig) bool {
			return c.name != "off" && !slices.Contains(want, c.name)
		})
	}
	l := &lab{inventory: inv, bin: bin}
	t := &testing.T{}
	if r := l.orch(t, "up", "-i", inv, "--engine", "innodb"); r.code != 0 {
		b.Fatalf("up: exit %d: %s", r.code, r.stderr)
	}
	tps := map[string][]float64{}
	stops := []float64{}
	fmt.Printf("%5s %9s %10s %10s %14s\n", "round", "config", "tps", "min 1s", "max stop ms")
	for i := 0; i < b.N; i++ {
		for round := 0; round < reps; round++ {
			order := slices.Clone(configs)
			if round%2 == 1 {
				slices.Reverse(order)
			}
			for _, c := range order {
				mean, low, stop := observerRun(b, l, c)
				tps[c.name] = append(tps[c.name], mean)
				if !math.IsNaN(stop) {
					stops = append(stops, stop)
				}
				fmt.Printf("%5d %9s %10.1f %10.1f %14.0f\n", round+1, c.name, mean, low, stop)
			}
		}
	}
	off := tps["off"]
	for _, c := range configs[1:] {
		got := tps[c.name]
		ratio := mean(got) / mean(off)
		ci, err := analyse.FiellerCI(got, off)
		interval := fmt.Sprintf("95%% CI [%.3f, %.3f]", ci.Low, ci.High)
		if err != nil {
			interval = "95% CI " + err.Error()
		}
		fmt.Printf("observer cost: %s vs all off: %.3fx, %s (n=%d each; %.0f vs %.0f tps)\n",
			c.what, ratio, interval, len(got), mean(got), mean(off))
		b.ReportMetric(ratio, c.name+"-vs-off")
		if g, lo, hi, ok := pairedRatio(got, off); ok {
			fmt.Printf("observer cost: %s vs all off, paired by round: %.3fx, 95%% CI [%.3f, %.3f] (%d rounds)\n", c.what, g, lo, hi, len(got))
		}
	}
	if len(stops) > 0 {
		fmt.Printf("observer cost: longest gdb stop of a server %.0f ms (in the profiling tail, after the measured load)\n", slices.Max(stops))
		b.ReportMetric(slices.Max(stops), "gdb-max-stop-ms")
	}
}

// observerRun runs the workload once with c's flags: its TPS (mean of the
// intervals after 2 s), its lowest one-second TPS, and its longest gdb
// stop (NaN without one).
func observerRun(b *testing.B, l *lab, c observerConfig) (tps, low, stop float64) {
	runs := b.TempDir()
	args := append([]string{"run", "-i", l.inventory, "--no-up", "--workload", "pure-random-writes", "--tables", "2", "--threads", "4",
		"--time", "10", "--table-size", "10000", "--runs", runs}, c.flags...)
	r := l.orch(&testing.T{}, args...)
	if r.code != 0 {
		b.Fatalf("run %s: exit %d: %s", strings.Join(c.flags, " "), r.code, r.stderr)
	}
	dir, _ := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	var res tailRun
	if err := json.Unmarshal(mustReadB(b, filepath.Join(dir, "results.json")), &res); err != nil {
		b.Fatal(err)
	}
	var xs []float64
	low, stop = math.Inf(1), math.NaN()
	for _, iv := range res.Benchmark.Intervals {
		if iv.T > 2 {
			xs = append(xs, iv.TPS)
			low = math.Min(low, iv.TPS)
		}
	}
	for _, p := range res.Monitor.Stacks {
		if p.MaxPauseMs != nil && (math.IsNaN(stop) || *p.MaxPauseMs > stop) {
			stop = *p.MaxPauseMs
		}
	}
	return mean(xs), low, stop
}

// pairedRatio is the geometric mean of a[i]/b[i] and its 95% interval
// (Student's t on the logs); ok is false with fewer than 2 pairs.
func pairedRatio(a, b []float64) (g, lo, hi float64, ok bool) {
	n := min(len(a), len(b))
	if n < 2 {
		return 0, 0, 0, false
	}
	logs := make([]float64, n)
	for i := range logs {
		logs[i] = math.Log(a[i] / b[i])
	}
	m := mean(logs)
	ss := 0.0
	for _, x := range logs {
		ss += (x - m) * (x - m)
	}
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975) * math.Sqrt(ss/float64(n-1)/float64(n))
	return math.Exp(m), math.Exp(m - half), math.Exp(m + half), true
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// The paired interval, by hand: ratios 1.1 and 1.0 have logs 0.0953 and
// 0, mean 0.04766, standard error 0.04766, t(0.975, 1 df) = 12.706.
func TestPairedRatio(t *testing.T) {
	g, lo, hi, ok := pairedRatio([]float64{110, 200}, []float64{100, 200})
	if !ok || math.Abs(g-1.0488) > 1e-3 || math.Abs(lo-0.5724) > 1e-3 || math.Abs(hi-1.9216) > 1e-3 {
		t.Errorf("pairedRatio = %.4f [%.4f, %.4f] %v, want 1.0488 [0.5724, 1.9216]", g, lo, hi, ok)
	}
	if g, lo, hi, _ := pairedRatio([]float64{110, 220, 330}, []float64{100, 200, 300}); math.Abs(g-1.1) > 1e-9 || math.Abs(lo-g) > 1e-9 || math.Abs(hi-g) > 1e-9 {
		t.Errorf("equal ratios: %v [%v, %v], want 1.1 exactly", g, lo, hi)
	}
	if _, _, _, ok := pairedRatio([]float64{1}, []float64{1}); ok {
		t.Error("one pair gave an interval")
	}
}
