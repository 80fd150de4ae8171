package account

import (
	"strings"
	"testing"
)

// Every load box drives the master, so the benchmark account exists for
// each one's address, once per address (two clients on one machine share
// it), plus 127.0.0.1 as always.
func TestBenchAccountsForEveryLoadBox(t *testing.T) {
	inv := loadInv(t, stockHosts+"  - {name: loadbox2, role: loadbox, address: 10.0.0.15}\n  - {name: loadbox3, role: loadbox, address: 10.0.0.15, ssh: {port: 2222}}\n")
	var got []string
	for _, a := range BenchAccounts(inv, "pw") {
		if strings.HasSuffix(a.Grants, "`sbtest`.*") {
			got = append(got, a.String())
		}
	}
	if want := "orch_bench@10.0.0.14 orch_bench@10.0.0.15 orch_bench@127.0.0.1"; strings.Join(got, " ") != want {
		t.Errorf("benchmark accounts %q, want %q", got, want)
	}
}
