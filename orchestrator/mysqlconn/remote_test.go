package mysqlconn

import (
	"strings"
	"testing"

	"github.com/orch-bench/orch/topology"
)

// Packets laid out by hand from the client/server protocol's
// Protocol::HandshakeV10 and ERR_Packet.
func TestParseGreeting(t *testing.T) {
	v, err := parseGreeting(append([]byte{0x0a}, "10.11.6-MariaDB-0+deb12u1\x00\x08\x00\x00\x00"...))
	if err != nil || v != "10.11.6-MariaDB-0+deb12u1" {
		t.Errorf("handshake: %q, %v", v, err)
	}
	_, err = parseGreeting(append([]byte{0xff, 0x6a, 0x04}, "Host '10.0.0.12' is not allowed to connect to this MariaDB server"...))
	if err == nil || !strings.Contains(err.Error(), "error 1130: Host '10.0.0.12' is not allowed") {
		t.Errorf("error packet: %v", err)
	}
	if _, err := parseGreeting([]byte("SSH-2.0-OpenSSH")); err == nil {
		t.Error("an sshd banner passed for a MySQL greeting")
	}
}

// Before the first up, orch's own account has no password yet: say so.
func TestConfigManagedBeforeUp(t *testing.T) {
	h := &topology.Host{Name: "master", Address: "10.0.0.1", MySQL: topology.MySQLConfig{
		User: "orch", Managed: true, Password: topology.Secret{File: t.TempDir() + "/admin-password"}}}
	_, err := Config(nil, h)
	if err == nil || !strings.Contains(err.Error(), "master 10.0.0.1: orch has not made its account orch on this server yet") || !strings.Contains(err.Error(), "run orch up first") {
		t.Errorf("got %v", err)
	}
}
