package account

import (
	"os"
	"path/filepath"
	"testing"
)

// A record row checks only with orch's key, on the server it was written
// on, for the name it was written for: a row copied from another server,
// renamed, or written by anyone without the key does not.
func TestSealChecksKeyServerAndName(t *testing.T) {
	t.Setenv(EnvStateDir, t.TempDir())
	inv := loadInv(t, stockHosts)
	m, s1 := inv.Hosts[0], inv.Hosts[1]
	seal, other := SealFor(inv, m), SealFor(inv, s1)
	it := AccountItem("orch", "localhost")
	if k, _ := seal.key(); k != nil {
		t.Fatal("a key before Generate")
	}
	if err := Generate(inv); err != nil {
		t.Fatal(err)
	}
	key, err := seal.key()
	if err != nil || len(key) == 0 {
		t.Fatalf("key: %v", err)
	}
	mac := seal.mac(key, it)
	switch {
	case !seal.valid(key, it, mac):
		t.Error("orch's own row does not check")
	case other.valid(key, it, mac):
		t.Error("a row copied from another server checks")
	case seal.valid(key, AccountItem("dba", "%"), mac):
		t.Error("a renamed row checks")
	case seal.valid(key, it, ""), seal.valid(nil, it, ""):
		t.Error("a row without a digest checks")
	}
	if st, err := os.Stat(filepath.Join(filepath.Dir(seal.keyFile), RecordKeyFile)); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v", st, err)
	}
}
