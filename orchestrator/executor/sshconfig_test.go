package executor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/orch-bench/orch/topology"
)

const testSSHConfig = `
Host db-alias
  HostName 127.0.0.1
  Port 2222
  User admin
  IdentityFile ~/.ssh/alias_key
  IdentityFile %d/keys/%r@%h
  ProxyJump bastion-alias

Host bastion-alias
  HostName 10.1.1.1
  User jump
  Port 2200

Host direct
  ProxyJump none

Host twohops
  ProxyJump a,b

Host *
  User fallback
`

func parseTestConfig(t *testing.T, text string) *sshConfig {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cf, err := loadSSHConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	return cf
}

func TestResolveRouteFromSSHConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cf := parseTestConfig(t, testSSHConfig)

	r, err := resolveRoute(&topology.Host{Address: "db-alias"}, cf)
	if err != nil {
		t.Fatal(err)
	}
	want := route{
		target: endpoint{alias: "db-alias", hostname: "127.0.0.1", port: 2222, user: "admin"},
		jump:   &endpoint{alias: "bastion-alias", hostname: "10.1.1.1", port: 2200, user: "jump"},
		identities: []identityFile{
			{path: home + "/.ssh/alias_key"},
			{path: home + "/keys/admin@127.0.0.1"},
		},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("route\n got %+v %+v\nwant %+v %+v", r, r.jump, want, want.jump)
	}

	// The inventory wins over ssh_config.
	h := &topology.Host{Address: "db-alias", SSH: topology.SSHConfig{
		User: "root", Port: 22, IdentityFiles: []string{"~/k"}, JumpHost: "ops@gw.example:2022",
	}}
	r, err = resolveRoute(h, cf)
	if err != nil {
		t.Fatal(err)
	}
	want = route{
		target:     endpoint{alias: "db-alias", hostname: "127.0.0.1", port: 22, user: "root"},
		jump:       &endpoint{alias: "gw.example", hostname: "gw.example", port: 2022, user: "ops"},
		identities: []identityFile{{path: home + "/k", explicit: true}},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("route\n got %+v %+v\nwant %+v %+v", r, r.jump, want, want.jump)
	}

	r, err = resolveRoute(&topology.Host{Address: "direct"}, cf)
	if err != nil || r.jump != nil || r.target.user != "fallback" || r.target.port != 22 {
		t.Errorf("direct: %+v %+v, %v", r.target, r.jump, err)
	}
	if _, err := resolveRoute(&topology.Host{Address: "twohops"}, cf); err == nil {
		t.Error("multi-hop ProxyJump accepted")
	}
}

func TestResolveRouteDefaults(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	r, err := resolveRoute(&topology.Host{Address: "10.0.0.1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	local, _ := localUser()
	if !reflect.DeepEqual(r.target, endpoint{alias: "10.0.0.1", hostname: "10.0.0.1", port: 22, user: local}) || r.jump != nil {
		t.Errorf("target %+v jump %+v", r.target, r.jump)
	}
	var paths []string
	for _, id := range r.identities {
		paths = append(paths, id.path)
	}
	want := []string{home + "/.ssh/id_ed25519", home + "/.ssh/id_ecdsa", home + "/.ssh/id_rsa"}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("identities %v, want %v", paths, want)
	}
}

func TestParseJumpSpec(t *testing.T) {
	for _, tc := range []struct {
		spec, user, host string
		port             int
	}{
		{"bastion", "", "bastion", 0},
		{"ops@bastion", "ops", "bastion", 0},
		{"ops@bastion:2200", "ops", "bastion", 2200},
		{"ssh://ops@10.0.0.5:22", "ops", "10.0.0.5", 22},
		{"[fd00::1]:2222", "", "fd00::1", 2222},
		{"a@b@host", "a@b", "host", 0},
	} {
		u, h, p, err := parseJumpSpec(tc.spec)
		if err != nil || u != tc.user || h != tc.host || p != tc.port {
			t.Errorf("%q: got %q %q %d %v", tc.spec, u, h, p, err)
		}
	}
	for _, bad := range []string{"ops@", "host:0", "host:x"} {
		if _, _, _, err := parseJumpSpec(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestLoadSSHConfigSettings(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	if cf, err := loadSSHConfig(""); err != nil || cf != nil {
		t.Errorf("missing ~/.ssh/config: %v, %v", cf, err)
	}
	if cf, err := loadSSHConfig("none"); err != nil || cf != nil {
		t.Errorf("none: %v, %v", cf, err)
	}
	if _, err := loadSSHConfig("/nonexistent/ssh_config"); err == nil {
		t.Error("explicit missing file accepted")
	}
}

func TestDialThroughSSHConfigAlias(t *testing.T) {
	f := newFixture(t)
	ts := newTestServer(t)
	f.trust(ts)
	cfgPath := filepath.Join(mkdir(t, f.dir, ".ssh"), "config")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf("Host master-db\n  HostName 127.0.0.1\n  Port %d\n  User root\n  IdentityFile %s\n", ts.port, f.keyFile)), 0o600)
	h := &topology.Host{Name: "master", Address: "master-db"}
	cfg := f.config()
	cfg.SSHConfigFile = "" // the default, ~/.ssh/config under the test HOME
	s := f.dial(h, cfg)
	res, err := s.Run(context.Background(), Command{Script: "echo ok"})
	if err != nil || string(res.Stdout) != "ok\n" {
		t.Fatalf("%q, %v", res.Stdout, err)
	}
	if s.Name() != "master master-db" {
		t.Errorf("Name %q", s.Name())
	}
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNetworkAddressTranslatesAliases(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "config")
	os.WriteFile(cfgPath, []byte("Host db-alias\n  HostName 10.0.0.5\nHost *.short\n  HostName %h.example.com\n"), 0o600)
	for _, tc := range []struct{ address, want, via string }{
		{"db-alias", "10.0.0.5", cfgPath},
		{"m.short", "m.short.example.com", cfgPath},
		{"10.0.0.9", "10.0.0.9", ""},
	} {
		addr, via, err := NetworkAddress(&topology.Host{Address: tc.address}, cfgPath)
		if err != nil || addr != tc.want || via != tc.via {
			t.Errorf("%s: %q via %q, %v; want %q via %q", tc.address, addr, via, err, tc.want, tc.via)
		}
	}
	if addr, via, err := NetworkAddress(&topology.Host{Address: "db-alias"}, "none"); err != nil || addr != "db-alias" || via != "" {
		t.Errorf("ssh config none: %q via %q, %v", addr, via, err)
	}
	if _, _, err := NetworkAddress(&topology.Host{Address: "db-alias"}, "/nonexistent/config"); err == nil {
		t.Error("a missing explicit ssh config was ignored")
	}
}
