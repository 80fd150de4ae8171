package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputTouchesNoHost: against the real lab, bad input answers with
// the input error (exit 2) and contacts no host. The inventory's
// known_hosts is empty and new keys are not accepted, so any SSH dial
// would fail on the unknown host key (exit 1) instead; and the service
// commands leave a mark on the host, so a start or stop would show. Before,
// `up --engine ../x` ran the inventory's service start command first.
func TestBadInputTouchesNoHost(t *testing.T) {
	l := needLab(t)
	dir := t.TempDir()
	kh := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(kh, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	const mark = "/tmp/orch-input-test-service-called"
	doc := l.inventoryDoc(t, "lab.yaml")
	doc["known_hosts"] = kh
	svc := doc["defaults"].(map[string]any)["mysql"].(map[string]any)["service"].(map[string]any)
	for _, k := range []string{"start", "stop", "status"} {
		svc[k] = "touch " + mark + "; " + svc[k].(string)
	}
	inv := filepath.Join(dir, "lab.yaml")
	writeYAML(t, inv, doc)
	writeVariant := func(name string, edit func(map[string]any)) string {
		d := l.inventoryDoc(t, "lab.yaml")
		d["known_hosts"] = kh
		edit(d)
		p := filepath.Join(dir, name)
		writeYAML(t, p, d)
		return p
	}
	async := writeVariant("async.yaml", func(d map[string]any) {
		d["replication"] = map[string]any{"semi_sync": map[string]any{"enabled": false}}
	})
	unset := writeVariant("unset.yaml", func(d map[string]any) {
		d["defaults"].(map[string]any)["mysql"].(map[string]any)["password"] = map[string]any{"env": "ORCH_TEST_UNSET_PASSWORD"}
	})
	os.Unsetenv("ORCH_TEST_UNSET_PASSWORD")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"up", "-i", inv, "--engine", "../x"}, "--engine ../x: unknown engine profile"},
		{[]string{"up", "-i", inv, "--profile-dir", filepath.Join(dir, "nope")}, "--profile-dir: stat "},
		{[]string{"up", "-i", inv, "--knob", "sync_binlog="}, "empty value"},
		{[]string{"up", "-i", async}, "replication.semi_sync.enabled: false is not supported"},
		{[]string{"run", "-i", unset, "--workload", "pure-random-writes"}, "ORCH_TEST_UNSET_PASSWORD is not set"},
		{[]string{"matrix", "-i", inv, "--engines", "innodb,nosuch"}, "--engines nosuch: unknown engine profile"},
		{[]string{"matrix", "-i", inv, "--engines", "innodb", "--warmup", "-5"}, "--warmup -5"},
		// A knob of InnoDB's durability over innodb and rocksdb, refused
		// from the inventory's mysql.flavor alone.
		{[]string{"matrix", "-i", inv, "--engines", "innodb,rocksdb", "--knobs", "innodb_flush_log_at_trx_commit=1"},
			"--knobs innodb_flush_log_at_trx_commit=1 changes the durability of innodb and not of rocksdb"},
		{[]string{"run", "-i", inv, "--workload", "pure-random-writes", "--time", "99999999999"}, "time_s"},
		{[]string{"exec", "-i", inv, "--parallel", "0", "--", "true"}, "--parallel 0"},
		{[]string{"mtrix", "-i", inv}, `unknown command "mtrix"`},
	} {
		r := l.orch(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("orch %s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
	if b, _ := os.ReadFile(kh); len(b) != 0 {
		t.Errorf("known_hosts was written: a host was dialled")
	}
	r := l.mustOK(t, "exec", "-i", l.inventory, "--role", "db", "--", "test ! -e "+mark+" && echo untouched")
	if strings.Count(r.stdout, "untouched") != 3 {
		t.Errorf("a service command ran on a database host:\n%s", r.stdout)
	}
}
