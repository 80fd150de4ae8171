package account

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/orch-bench/orch/topology"
)

// orch's record on a server is input like any other: an account with
// INSERT on it (an application's, with INSERT on *.*) could add a row, and
// purge would drop what the row names (the third review's forged row made
// purge drop a DBA's account on all three servers). Privileges cannot
// prevent that: root and any account with global INSERT write every table,
// and orch must not alter accounts it did not make. So every row carries a
// keyed digest (HMAC-SHA256) over the server it is on, its kind and its
// name, with a secret that never leaves orch's state directory
// (RecordKeyFile, 0600, made with the passwords once up has decided). A row
// whose digest does not check is not orch's: up does not take it as proof,
// and purge drops nothing on a server whose record holds one, saying so.

// RecordKeyFile is the record's secret in the cluster's state directory.
const RecordKeyFile = "record-key"

// Seal signs and checks one server's record rows.
type Seal struct {
	keyFile string // "" : no state directory, nothing checks
	server  string // host:port, as the inventory names the server
}

// SealFor is the seal of h's record in inv's cluster.
func SealFor(inv *topology.Inventory, h *topology.Host) Seal {
	port := h.MySQL.Port
	if port == 0 {
		port = topology.DefaultMySQLPort
	}
	s := Seal{server: h.PeerAddress() + ":" + strconv.Itoa(port)}
	if dir, err := StateDir(inv); err == nil {
		s.keyFile = filepath.Join(dir, RecordKeyFile)
	}
	return s
}

// key reads the secret; nil when there is none (yet).
func (s Seal) key() ([]byte, error) {
	if s.keyFile == "" {
		return nil, nil
	}
	k, err := readPassword(s.keyFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return []byte(k), err
}

// mac is the row's digest, "" without a key.
func (s Seal) mac(key []byte, it Item) string {
	if key == nil {
		return ""
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(s.server + "\x00" + string(it.Kind) + "\x00" + it.Name))
	return hex.EncodeToString(m.Sum(nil))
}

// valid reports whether mac is it's digest on this server.
func (s Seal) valid(key []byte, it Item, mac string) bool {
	want := s.mac(key, it)
	return want != "" && hmac.Equal([]byte(want), []byte(mac))
}
