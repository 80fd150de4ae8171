package preflight

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/topology"
)

// The benchmark clients a load box is checked for are the driver table's
// (bench.ClientChecks): each found program's version line is a fact named
// after its check ("sysbench", "mysqlslap").

// clientProbe prints FACT=VERSION-LINE for each check whose program the
// host has, the first found of its programs.
func clientProbe() string {
	var b strings.Builder
	for _, c := range bench.ClientChecks() {
		b.WriteString("for m in " + shell.Join(c.Programs...) + "; do\n" +
			`  p=$(command -v "$m") && { echo ` + shell.Quote(c.Fact+"=") + `"$("$p" --version | head -n 1)"; break; }` + "\ndone\n")
	}
	return b.String()
}

// checkClients records the clients' versions and says which are missing:
// none at all blocks the load box, one missing only its workloads.
func checkClients(h *topology.Host, f *Facts, kv map[string][]string) {
	var installs, missing []string
	for _, c := range bench.ClientChecks() {
		installs = append(installs, c.Install)
		if v := first(kv, c.Fact); v != "" {
			if f.Clients == nil {
				f.Clients = map[string]string{}
			}
			f.Clients[c.Fact] = v
			continue
		}
		missing = append(missing, c.Label+" not found ("+c.Fact+" workloads cannot run)")
	}
	if len(f.Clients) == 0 {
		f.problem(true, "%s: no benchmark client: install %s", h, strings.Join(installs, " or "))
		return
	}
	for _, m := range missing {
		f.problem(false, "%s: %s", h, m)
	}
}

// MarshalJSON writes each client's version line as a key of its own
// ("sysbench": "sysbench 1.0.20"), as host facts always held them.
func (f Facts) MarshalJSON() ([]byte, error) {
	type plain Facts
	b, err := json.Marshal(plain(f))
	if err != nil || len(f.Clients) == 0 {
		return b, err
	}
	var tail bytes.Buffer
	keys := make([]string, 0, len(f.Clients))
	for k := range f.Clients {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		kb, _ := json.Marshal(k) // strings always marshal
		vb, _ := json.Marshal(f.Clients[k])
		tail.WriteByte(',')
		tail.Write(kb)
		tail.WriteByte(':')
		tail.Write(vb)
	}
	return append(append(b[:len(b)-1], tail.Bytes()...), '}'), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Facts) UnmarshalJSON(b []byte) error {
	type plain Facts
	if err := json.Unmarshal(b, (*plain)(f)); err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for _, c := range bench.ClientChecks() {
		var v string
		if raw, ok := m[c.Fact]; ok && json.Unmarshal(raw, &v) == nil && v != "" {
			if f.Clients == nil {
				f.Clients = map[string]string{}
			}
			f.Clients[c.Fact] = v
		}
	}
	return nil
}
