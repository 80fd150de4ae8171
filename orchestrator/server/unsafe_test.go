package server

import (
	"os"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// The settings the manuals say open a server (see unsafe.go for the
// quotations) are refused, in every spelling an option file accepts; the
// same names set to their safe values pass.
func TestCheckUnsafe(t *testing.T) {
	cases := []struct {
		name, value string
		refused     bool
	}{
		{"skip_grant_tables", "ON", true},
		{"skip-grant-tables", "1", true},
		{"loose-skip-grant-tables", "TRUE", true},
		{"skip_grant_tables", "OFF", false},
		{"skip_networking", "ON", true}, // a master with replicas
		{"skip_networking", "0", false},
		{"secure_file_priv", "/", true},
		{"secure_file_priv", "/var/lib/mysql-files", false},
		{"secure_file_priv", "NULL", false},
		{"plugin_load_add", "qa_auth_server.so", true},
		{"plugin_load", "ha_rocksdb.so;test=/usr/lib/mysql/plugin/auth_test_plugin.so", true},
		{"plugin_load_add", "auth_0x0100", true},
		{"plugin_load_add", "ha_tokudb.so", false},
		{"log_raw", "ON", true},
		{"secure_auth", "OFF", true},
		{"secure_auth", "ON", false},
		{"old_passwords", "1", true},
		{"old_passwords", "0", false},
		{"sync_binlog", "0", false},
	}
	for _, c := range cases {
		_, err := CheckUnsafe(testInventory(nil), []KV{{c.name, c.value}}, nil)
		if got := err != nil; got != c.refused {
			t.Errorf("--knob %s=%s: refused %v, want %v (%v)", c.name, c.value, got, c.refused, err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("not one line: %q", err)
		}
	}
}

// skip_networking only cuts replicas off where there are some: one
// existing server benchmarked alone may have it (orch then reaches it
// through the socket its SSH session uses).
func TestCheckUnsafeNetworkingAlone(t *testing.T) {
	inv := &topology.Inventory{Hosts: []*topology.Host{{Name: "db", Role: topology.RoleMaster, Address: "10.0.0.1"}}}
	if _, err := CheckUnsafe(inv, []KV{{"skip_networking", "ON"}}, nil); err != nil {
		t.Fatalf("one server: %v", err)
	}
}

// --allow-unsafe-knob lets a refused one through with a warning naming it,
// and covers profile.vars too; a name not on the list is an error.
func TestCheckUnsafeAllow(t *testing.T) {
	inv := testInventory(map[string]string{"secure_file_priv": "/"})
	if _, err := CheckUnsafe(inv, nil, nil); err == nil || !strings.Contains(err.Error(), "cluster.yaml: profile.vars secure_file_priv=/ refused") {
		t.Fatalf("profile.vars: %v", err)
	}
	w, err := CheckUnsafe(inv, []KV{{"skip_grant_tables", "ON"}}, []string{"secure-file-priv", "skip_grant_tables"})
	if err != nil || len(w) != 2 || !strings.Contains(w[1], "skip_grant_tables=ON") {
		t.Fatalf("allowed: %q, %v", w, err)
	}
	if _, err := CheckUnsafe(inv, nil, []string{"skip_grants"}); err == nil {
		t.Fatal("a misspelt --allow-unsafe-knob passed")
	}
}

// A profile template cannot set one: Render refuses it before anything is
// written, with or without a flavour known offline.
func TestRenderRefusesUnsafeProfile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/innodb.cnf", []byte("[mysqld]\nskip-grant-tables\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inv := testInventory(nil)
	tg := Target{Host: inv.Hosts[0], Inventory: inv, Server: mustServer(t, flavor.MariaDB, flavor.V(10, 11, 6))}
	if _, err := Render(tg, Desired{ProfileDir: dir}); err == nil || !strings.Contains(err.Error(), "profile innodb.cnf sets skip_grant_tables") {
		t.Fatalf("Render: %v", err)
	}
}
