package preflight

import "testing"

// `ss -Hltn` lines as iproute2's ss prints them (State Recv-Q Send-Q
// Local:Port Peer:Port).
func TestLoopbackListener(t *testing.T) {
	stock := "LISTEN 0      80         127.0.0.1:3306      0.0.0.0:*\nLISTEN 0      128          0.0.0.0:22        0.0.0.0:*\n"
	if got := loopbackListener(stock, 3306); got != "127.0.0.1" {
		t.Errorf("stock server: %q", got)
	}
	all := "LISTEN 0      80           0.0.0.0:3306      0.0.0.0:*\nLISTEN 0      80         127.0.0.1:33060     0.0.0.0:*\n"
	if got := loopbackListener(all, 3306); got != "no" {
		t.Errorf("server on every address: %q", got)
	}
	if got := loopbackListener("LISTEN 0 80 [::1]:3306 [::]:*\n", 3306); got != "::1" {
		t.Errorf("ipv6 loopback: %q", got)
	}
	if got := loopbackListener("", 3306); got != "none" {
		t.Errorf("nothing listening: %q", got)
	}
}
