package runner

import (
	"maps"
	"sync"

	"github.com/orch-bench/orch/orchestrator/monitor"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/orchestrator/step"
)

// followEvents makes the command's stream the run directory's: every
// event so far (the up before the run) and from now on is a line of
// events.jsonl, secrets redacted, and the ends of the command's own
// phases (host "") are phases_s. phases returns those so far; stop ends
// the following and closes the file.
func (r *run) followEvents() (phases func() map[string]float64, stop func() error) {
	log, err := monitor.OpenEventLog(r.dir.Path())
	if err != nil {
		r.logf("run: %v (the run's steps are not in events.jsonl)", err)
	}
	var mu sync.Mutex
	sums := map[string]float64{}
	cancel := r.cfg.Events.Replay(func(e step.Event) {
		if e.Kind == step.Ended && e.Host == "" {
			mu.Lock()
			sums[e.Step] += e.Took.Seconds()
			mu.Unlock()
		}
		if log != nil {
			log.Write(eventLine(e, r.secrets))
		}
	})
	phases = func() map[string]float64 {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(sums)
	}
	stop = func() error {
		cancel()
		if log == nil {
			return nil
		}
		return log.Close()
	}
	return phases, stop
}

// eventLine is e as a line of events.jsonl.
func eventLine(e step.Event, secrets []string) schema.Event {
	line := schema.Event{T: e.At, Host: e.Host, Kind: string(e.Kind), Detail: rundir.Redact(e.Step, secrets...)}
	if e.Kind == step.Ended {
		line.TookS = e.Took.Seconds()
	}
	return line
}
