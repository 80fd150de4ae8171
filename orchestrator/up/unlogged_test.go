package up

import (
	"context"
	"strings"
	"testing"
)

// TestNoPasswordInTheGeneralLog (N8): up sends the replication password
// (CREATE/ALTER USER on the master, CHANGE MASTER on the slaves) with the
// session's general log off; the server's general log, which records
// everything else, never holds it.
func TestNoPasswordInTheGeneralLog(t *testing.T) {
	c, lab := fakeCluster(t)
	if _, err := Up(context.Background(), c, upOpts()); err != nil {
		t.Fatal(err)
	}
	const pw = "up-test-pw" // testdata/lab.yaml: the replication password is the admin's
	for _, h := range lab.Hosts {
		log := h.Server().GeneralLog()
		if len(log) == 0 {
			t.Fatalf("%s: empty general log", h.Short())
		}
		for _, q := range log {
			if strings.Contains(q, pw) {
				t.Errorf("%s: general log holds the password: %q", h.Short(), q)
			}
		}
	}
}
