package executor

import (
	"errors"
	"net"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// The known_hosts callback runs once, at connect; a re-key must present
// the same key, and a different one is refused without consulting
// known_hosts again.
func TestPinFirstKey(t *testing.T) {
	first, other := newEd25519Key().PublicKey(), newEd25519Key().PublicKey()
	calls := 0
	known := func(string, net.Addr, gossh.PublicKey) error { calls++; return nil }
	cb := pinFirstKey(known)
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 22}
	if err := cb("127.0.0.1:22", addr, first); err != nil {
		t.Fatalf("first key: %v", err)
	}
	if err := cb("127.0.0.1:22", addr, first); err != nil {
		t.Fatalf("same key at re-key: %v", err)
	}
	err := cb("127.0.0.1:22", addr, other)
	var hk *hostKeyError
	if !errors.As(err, &hk) {
		t.Fatalf("changed key at re-key: got %v, want a host key error", err)
	}
	mustContain(t, err.Error(), "127.0.0.1:22", "changed during the connection", gossh.FingerprintSHA256(other))
	if calls != 1 {
		t.Errorf("known_hosts consulted %d times, want once", calls)
	}
}

// A key known_hosts refuses is not pinned: the next attempt asks again.
func TestPinFirstKeyRefusedNotPinned(t *testing.T) {
	key := newEd25519Key().PublicKey()
	refuse := errors.New("unknown host key")
	calls := 0
	cb := pinFirstKey(func(string, net.Addr, gossh.PublicKey) error { calls++; return refuse })
	for i := 0; i < 2; i++ {
		if err := cb("h:22", nil, key); !errors.Is(err, refuse) {
			t.Fatalf("attempt %d: got %v, want the known_hosts error", i, err)
		}
	}
	if calls != 2 {
		t.Errorf("known_hosts consulted %d times, want 2", calls)
	}
}
