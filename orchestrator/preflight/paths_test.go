package preflight

import (
	"fmt"
	"strings"
	"testing"
)

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

// TestPathsErrCapsItsList (N11): with thousands of slaves whose paths all
// fail, the error names the first few and counts the rest on one short
// line, not one entry per slave (15,000 of them made 100 KiB).
func TestPathsErrCapsItsList(t *testing.T) {
	var paths []Path
	for i := range 15000 {
		paths = append(paths, Path{From: fmt.Sprintf("slave%d", i+1), To: "master:3306", What: "replication", Detail: "connection refused"})
	}
	paths = append(paths, Path{From: "lb", To: "master:3306", What: "benchmark", OK: true, Detail: "logged in"})
	err := PathsErr(paths)
	if err == nil {
		t.Fatal("no error for 15,000 broken paths")
	}
	msg := err.Error()
	if len(msg) > 1000 || strings.Contains(msg, "\n") {
		t.Errorf("%d bytes (want one line under 1,000): %.300s", len(msg), msg)
	}
	if !strings.Contains(msg, "slave1 -> master:3306") || !strings.HasSuffix(msg, " and 14,990 more") || strings.Contains(msg, "slave11 ") {
		t.Errorf("want the first 10 slaves and a count of the rest: %s", msg)
	}
}

// Which failed paths Paths checks again: a refused port and a host with no
// route (a link just back), as the tunnel and the dialer word them; a
// refused login or a timeout is final.
func TestTransientPathFailures(t *testing.T) {
	for detail, want := range map[string]bool{
		`slave2 10.99.0.13: tunnel to tcp 10.99.0.11:3306: ssh: rejected: connect failed ("No route to host")`: true,
		`dial tcp 10.99.0.11:3306: connect: connection refused`:                                                true,
		`Error 1045 (28000): Access denied for user 'orch_bench'@'loadbox'`:                                    false,
		`dial tcp 10.99.0.11:3306: i/o timeout`:                                                                false,
	} {
		if got := transient(detail); got != want {
			t.Errorf("transient(%q) = %v, want %v", detail, got, want)
		}
	}
}
