package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// stateVersion guards against reading a state file written by an
// incompatible orch: tear-down must never guess what a field meant.
const stateVersion = 1

// State records every resource the lab made, written BEFORE each one is
// created, so Down removes exactly what exists, by recorded name and PID,
// even after an interrupted Up.
type State struct {
	Version int    `json:"version"`
	Subnet  string `json:"subnet"`
	// Kind is KindSystemd for the systemd lab, empty for the namespace lab.
	Kind string `json:"kind,omitempty"`
	// BaseTree is the systemd lab's shared read-only lower layer (in the
	// cache, which Down keeps).
	BaseTree string `json:"base_tree,omitempty"`
	// Flavor is the lab flavour's state name (flavors.go): "" for MariaDB
	// 10.11, FlavorMySQL (a systemd lab whose database hosts boot DBTree),
	// FlavorTokuDB (database hosts run ServerTree).
	Flavor string `json:"flavor,omitempty"`
	DBTree string `json:"db_tree,omitempty"`
	// ServerTree is the server tree a flavour built from source runs (in
	// the cache, which Down keeps).
	ServerTree string `json:"server_tree,omitempty"`
	// Bridge is the bridge's name in the root namespace; BridgeAddr its
	// address with prefix length ("10.99.0.1/24").
	Bridge     string      `json:"bridge,omitempty"`
	BridgeAddr string      `json:"bridge_addr,omitempty"`
	Hosts      []HostState `json:"hosts"`
	// Files are generated files outside the state dir (inventories).
	Files []string `json:"files,omitempty"`
	// Dirs are directories outside the state dir that Up created for those
	// files; Down removes them when they are empty.
	Dirs []string `json:"dirs,omitempty"`
}

// HostState is one lab host.
type HostState struct {
	Name string `json:"name"`
	Role string `json:"role"`
	IP   string `json:"ip"`
	// Netns is the network namespace (ip netns) and Veth the root-side end
	// of the host's veth pair; both are set just before they are created.
	Netns string `json:"netns,omitempty"`
	Veth  string `json:"veth,omitempty"`
	// PID is the unshare process that owns the host's namespaces; its child
	// is the host's PID 1. PIDStart is the process's start time (clock
	// ticks after boot), so a recycled PID is never signalled.
	// In the systemd lab PID is the host's systemd-nspawn process.
	PID      int    `json:"pid,omitempty"`
	PIDStart uint64 `json:"pid_start,omitempty"`
	// Mount is the systemd lab host's overlay root, set before it is
	// mounted; Down unmounts it.
	Mount string `json:"mount,omitempty"`
	// Cgroup is the cgroup2 dir a MySQL lab host's nspawn runs in, set
	// before it is made; Down removes it once the host has stopped.
	Cgroup string `json:"cgroup,omitempty"`
}

// KindSystemd marks a systemd lab in State.Kind.
const KindSystemd = "systemd"

// kindName names a lab kind in messages.
func kindName(kind string) string {
	if kind == KindSystemd {
		return "systemd"
	}
	return "namespace"
}

// IsDB reports whether the host runs the lab's database server.
func (h HostState) IsDB() bool { return h.Role == "master" || h.Role == "slave" }

// host returns the recorded host with that name.
func (s *State) host(name string) (*HostState, bool) {
	for i := range s.Hosts {
		if s.Hosts[i].Name == name {
			return &s.Hosts[i], true
		}
	}
	return nil, false
}

// errNoState means the state dir holds no lab.
var errNoState = errors.New("no lab state")

// readState loads dir/state.json; errNoState when there is none.
func readState(dir string) (*State, error) {
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoState
	}
	if err != nil {
		return nil, fmt.Errorf("read lab state: %w", err)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("read lab state %s: %w", filepath.Join(dir, stateFile), err)
	}
	if s.Version != stateVersion {
		return nil, fmt.Errorf("lab state %s has version %d, this orch understands %d",
			filepath.Join(dir, stateFile), s.Version, stateVersion)
	}
	return &s, nil
}

// writeState replaces dir/state.json atomically (write, fsync, rename), so
// a crash never leaves a truncated record of what exists.
func writeState(dir string, s *State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode lab state: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(dir, stateFile), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write lab state: %w", err)
	}
	return nil
}

// stateStore serialises updates from hosts set up in parallel.
type stateStore struct {
	dir string
	mu  sync.Mutex
	s   State
}

// update applies fn and saves the result before returning, so the caller
// may create the resource it just recorded.
func (st *stateStore) update(fn func(s *State)) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	fn(&st.s)
	return writeState(st.dir, &st.s)
}

// updateHost applies fn to the named host's record and saves.
func (st *stateStore) updateHost(name string, fn func(h *HostState)) error {
	return st.update(func(s *State) {
		if h, ok := s.host(name); ok {
			fn(h)
		}
	})
}

// snapshot returns a copy of the current state.
func (st *stateStore) snapshot() State {
	st.mu.Lock()
	defer st.mu.Unlock()
	c := st.s
	c.Hosts = append([]HostState(nil), st.s.Hosts...)
	c.Files = append([]string(nil), st.s.Files...)
	c.Dirs = append([]string(nil), st.s.Dirs...)
	return c
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it into place.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// labNames are the kernel object names of one lab. They carry a tag derived
// from the state dir, so a test lab and the default lab never collide, and
// fit IFNAMSIZ (15 characters) for every host name the lab uses.
type labNames struct{ tag string }

func namesFor(stateDir string) labNames {
	h := fnv.New32a()
	h.Write([]byte(filepath.Clean(stateDir)))
	return labNames{tag: fmt.Sprintf("%04x", h.Sum32()&0xffff)}
}

func (n labNames) bridge() string           { return "olab" + n.tag }
func (n labNames) netns(host string) string { return "orchlab-" + n.tag + "-" + host }
func (n labNames) veth(host string) string  { return "ol" + n.tag + "-" + host }
