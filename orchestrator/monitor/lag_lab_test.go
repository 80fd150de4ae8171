package monitor

import (
	"context"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// A lag held against the truth: one slave applies nothing for a while
// (its SQL thread stopped, its IO thread still receiving and
// acknowledging), so its applied position is a known constant, and the
// test reads the master's position every few milliseconds on the
// monitor's own clock. The lag the report reads at each of the slave's
// samples must be the master's position then less that constant, within
// 5%: also for the samples taken before the master's in the same tick.
// The monitor's live lag_tx (the master's latest sample carried to the
// slave's instant at its last rate) is only logged: it cannot know a rate
// change since the master's last sample (the load's start: 2 of 5 samples
// more than 5% off in one run, 0 of 6 in the next); its arithmetic is
// TestSlaveLagAtItsOwnInstant's.

// frozenSlave is a slave whose SQL thread the test stopped.
type frozenSlave struct {
	node          *server.Node
	n             float64   // its applied position's count while stopped
	since, thawed time.Time // stopped after since; started again at thawed
	once          sync.Once
}

func nodeOf(t *testing.T, env *labEnv, pick func(n *server.Node) bool) *server.Node {
	t.Helper()
	for _, n := range env.dbs {
		if pick(n) {
			return n
		}
	}
	t.Fatal("no such database host in the lab")
	return nil
}

// sqlThread is the statement that starts or stops a slave's SQL thread.
func sqlThread(srv flavor.Server, verb string) string {
	if srv.UsesMariaDBGTID() {
		return verb + " SLAVE SQL_THREAD"
	}
	return verb + " REPLICA SQL_THREAD"
}

func freezeSlave(t *testing.T, ctx context.Context, env *labEnv, host string) *frozenSlave {
	t.Helper()
	n := nodeOf(t, env, func(n *server.Node) bool { return n.Host.Name == host })
	f := &frozenSlave{node: n, since: time.Now()}
	if _, err := n.DB.ExecContext(ctx, sqlThread(n.Server, "STOP")); err != nil {
		t.Fatalf("%s: stop its SQL thread: %v", host, err)
	}
	t.Cleanup(func() { f.thaw(t) })
	var pos string
	if err := n.DB.QueryRowContext(ctx, n.Server.SlaveGTIDQuery()).Scan(&pos); err != nil {
		t.Fatalf("%s: applied position: %v", host, err)
	}
	c, err := n.Server.GTIDCount(pos)
	if err != nil {
		t.Fatalf("%s: applied position %q: %v", host, pos, err)
	}
	f.n = float64(c)
	return f
}

// thaw starts the slave's SQL thread again (once).
func (f *frozenSlave) thaw(t *testing.T) {
	f.once.Do(func() {
		f.thawed = time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := f.node.DB.ExecContext(ctx, sqlThread(f.node.Server, "START")); err != nil {
			t.Errorf("%s: start its SQL thread: %v", f.node.Host.Name, err)
		}
	})
}

// positionSample is the master's position count read at a time.
type positionSample struct {
	at time.Time
	n  float64
}

// masterPoller reads the master's position every few milliseconds.
type masterPoller struct {
	cancel context.CancelFunc
	done   chan []positionSample
}

func pollMaster(t *testing.T, ctx context.Context, env *labEnv) *masterPoller {
	m := nodeOf(t, env, func(n *server.Node) bool { return n.Host.Role == topology.RoleMaster })
	ctx, cancel := context.WithCancel(ctx)
	p := &masterPoller{cancel: cancel, done: make(chan []positionSample, 1)}
	go func() {
		var out []positionSample
		for ctx.Err() == nil {
			var pos string
			err := m.DB.QueryRowContext(ctx, m.Server.MasterGTIDQuery()).Scan(&pos)
			at := time.Now() // when the answer arrived, as the monitor's rows
			if c, cerr := m.Server.GTIDCount(pos); err == nil && cerr == nil {
				out = append(out, positionSample{at, float64(c)})
			}
			time.Sleep(3 * time.Millisecond)
		}
		p.done <- out
	}()
	return p
}

func (p *masterPoller) stop() []positionSample {
	p.cancel()
	return <-p.done
}

// at is the master's count at t, linear between the polls either side
// (ok false outside them).
func positionAt(ps []positionSample, t time.Time) (float64, bool) {
	i := sort.Search(len(ps), func(i int) bool { return !ps[i].at.Before(t) })
	if i == 0 || i == len(ps) {
		return 0, false
	}
	a, b := ps[i-1], ps[i]
	f := float64(t.Sub(a.at)) / float64(b.at.Sub(a.at))
	return a.n + f*(b.n-a.n), true
}

// checkLag holds the report's reading of the frozen slave's lag against
// the truth at each of its samples between the freeze and the thaw.
func checkLag(t *testing.T, dir string, start time.Time, f *frozenSlave, polled []positionSample) {
	t.Helper()
	host := f.node.Host.Name
	lags, err := analyse.SlaveLags(dir, "master", []string{host})
	if err != nil {
		t.Fatal(err)
	}
	var masterAt []float64
	for _, row := range csvRows(t, filepath.Join(dir, "timeseries", "master-mysql.csv"), MySQLColumns) {
		masterAt = append(masterAt, num(t, row, "elapsed_s"))
	}
	live := csvRows(t, filepath.Join(dir, "timeseries", host+"-mysql.csv"), MySQLColumns)
	checked, early, staleLive, worstIdeal := 0, 0, 0, 0.0
	for i, p := range lags[host] {
		at := start.Add(time.Duration(p.T * float64(time.Second)))
		if !at.After(f.since) || !at.Before(f.thawed.Add(-50*time.Millisecond)) {
			continue
		}
		m, ok := positionAt(polled, at)
		if !ok || len(masterAt) == 0 || p.T < masterAt[0] {
			continue // no truth, or no master sample before it to read against
		}
		truth := m - f.n
		// Taken before the master's sample of the same tick: the next
		// master sample is less than half an interval later.
		j := sort.SearchFloat64s(masterAt, p.T)
		before := j < len(masterAt) && masterAt[j]-p.T < 0.5
		if before {
			early++
		}
		checked++
		// What no reading of the master's samples can know: how its rate
		// changed between them (the load's first commits fall inside one
		// interval). From the truth itself: the polled positions at the
		// master's two sample instants, interpolated, against the polled
		// position at the slave's.
		ideal := math.Inf(1)
		if j > 0 && j < len(masterAt) {
			a, okA := positionAt(polled, start.Add(time.Duration(masterAt[j-1]*float64(time.Second))))
			b, okB := positionAt(polled, start.Add(time.Duration(masterAt[j]*float64(time.Second))))
			if okA && okB {
				ideal = math.Abs(a + (p.T-masterAt[j-1])/(masterAt[j]-masterAt[j-1])*(b-a) - m)
			}
		}
		if math.IsInf(ideal, 1) {
			ideal = 0
		}
		worstIdeal = math.Max(worstIdeal, ideal)
		if math.IsNaN(p.V) || math.Abs(p.V-truth) > 0.05*truth+5+ideal {
			t.Errorf("%s sample at +%.3fs (before the master's: %v): lag %.0f tx, truth %.0f (an interpolation of exact samples would be %.0f off)",
				host, p.T, before, p.V, truth, ideal)
		}
		if i < len(live) && live[i]["lag_tx"] != "" {
			if v := num(t, live[i], "lag_tx"); math.Abs(v-truth) > 0.05*truth+5 {
				staleLive++
			}
		}
	}
	t.Logf("%s: %d samples held against the master polled %d times; %d taken before the master's in their tick; "+
		"the monitor's live lag_tx was more than 5%% off in %d of them; the rate's change inside an interval allowed at most %.0f tx more",
		host, checked, len(polled), early, staleLive, worstIdeal)
	if checked < 4 {
		t.Errorf("only %d of %s's samples fell while it was frozen: %s", checked, host, strings.TrimSpace(dir))
	}
}
