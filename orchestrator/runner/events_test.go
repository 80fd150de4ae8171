package runner

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/orchestrator/step"
)

// TestEventLineIsTheSchemas: a step's event is written with the kinds
// readers of events.jsonl know (schema), its time in seconds on its end
// only, and a secret in a step's text redacted.
func TestEventLineIsTheSchemas(t *testing.T) {
	at := time.Date(2026, 12, 5, 1, 2, 3, 4e6, time.UTC)
	for _, tc := range []struct {
		e    step.Event
		want string
	}{
		{step.Event{At: at, Host: "slave1", Step: "restart", Kind: step.Began},
			`{"t":"2026-12-05T01:02:03.004Z","host":"slave1","kind":"` + schema.KindStepBegin + `","detail":"restart"}`},
		{step.Event{At: at, Step: "prepare", Kind: step.Ended, Took: 1500 * time.Millisecond},
			`{"t":"2026-12-05T01:02:03.004Z","host":"","kind":"` + schema.KindStepEnd + `","detail":"prepare","took_s":1.5}`},
		{step.Event{At: at, Host: "master", Step: "set password s3cret-pw", Kind: step.Noted},
			`{"t":"2026-12-05T01:02:03.004Z","host":"master","kind":"` + schema.KindNote + `","detail":"set password ***"}`},
	} {
		b, err := json.Marshal(eventLine(tc.e, []string{"s3cret-pw"}))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.e, b, tc.want)
		}
	}
}
