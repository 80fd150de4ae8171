package runner

import (
	"bytes"
	"strings"
	"testing"

	"github.com/orch-bench/orch/topology"
)

// A weak password gets one warning per command; a strong one none.
func TestWarnWeakSecrets(t *testing.T) {
	inv := func(pw string) *topology.Inventory {
		s := topology.InlineSecret(pw)
		return &topology.Inventory{Source: "ips.txt", Replication: topology.Replication{Password: s},
			Hosts: []*topology.Host{{Name: "master", MySQL: topology.MySQLConfig{Password: s}}}}
	}
	var b bytes.Buffer
	WarnWeakSecrets(&b, inv("root"))
	if strings.Count(b.String(), "WARNING") != 1 || !strings.Contains(b.String(), "1 password(s) in ips.txt are short or common") {
		t.Errorf("weak password: %q", b.String())
	}
	b.Reset()
	WarnWeakSecrets(&b, inv("Zq8-hunter2-Zq8"))
	if b.Len() != 0 {
		t.Errorf("strong password warned about: %q", b.String())
	}
}
