package executor

import (
	"bufio"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// The 1,000-host fan-out benchmark (fanout1000_test.go) runs its SSH
// servers in a second copy of this test binary, so the memory it measures
// is the client's alone: the servers are the same in-process testServers
// as everywhere else. That copy runs TestFanoutServerProcess with these
// variables set; the test is skipped otherwise.
const (
	fanoutServersEnv = "ORCH_FANOUT_SERVERS" // how many servers
	fanoutDirEnv     = "ORCH_FANOUT_DIR"     // holds authorized.pub; gets known_hosts
	fanoutReady      = "servers ready"       // printed after the ports
	fanoutServerHWM  = "server VmHWM kB"     // printed when told to stop
)

// FanoutServers is a server process: Ports to dial as root@127.0.0.1 with
// KeyFile, host keys in KnownHosts.
type FanoutServers struct {
	Ports      []int
	KeyFile    string
	KnownHosts string
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	out        *bufio.Scanner
}

// SpawnFanoutServers starts n SSH servers in a child test process and
// waits until every one listens. Exported for the external benchmark
// package, which needs orchestrator/cluster (which imports executor).
func SpawnFanoutServers(tb testing.TB, n int) *FanoutServers {
	tb.Helper()
	dir := tb.TempDir()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	k := mustKey(priv)
	fs := &FanoutServers{KeyFile: filepath.Join(dir, "client_key"), KnownHosts: filepath.Join(dir, "known_hosts")}
	writeKey(tb, fs.KeyFile, k)
	if err := os.WriteFile(filepath.Join(dir, "authorized.pub"), gossh.MarshalAuthorizedKey(k.PublicKey()), 0o600); err != nil {
		tb.Fatal(err)
	}
	fs.cmd = exec.Command(os.Args[0], "-test.run=^TestFanoutServerProcess$", "-test.count=1")
	fs.cmd.Env = append(os.Environ(), fanoutServersEnv+"="+strconv.Itoa(n), fanoutDirEnv+"="+dir)
	fs.cmd.Stderr = os.Stderr
	if fs.stdin, err = fs.cmd.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	stdout, err := fs.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := fs.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { fs.Stop() })
	fs.out = bufio.NewScanner(stdout)
	for fs.out.Scan() && fs.out.Text() != fanoutReady {
		p, err := strconv.Atoi(fs.out.Text())
		if err != nil {
			tb.Fatalf("server process: unexpected line %q", fs.out.Text())
		}
		fs.Ports = append(fs.Ports, p)
	}
	if len(fs.Ports) != n {
		tb.Fatalf("server process: %d of %d servers started", len(fs.Ports), n)
	}
	return fs
}

// Stop ends the server process and returns its peak RSS in kB (-1 when
// unknown or already stopped).
func (fs *FanoutServers) Stop() int64 {
	if fs.stdin == nil {
		return -1
	}
	fs.stdin.Close()
	fs.stdin = nil
	hwm := int64(-1)
	for fs.out.Scan() {
		if v, ok := strings.CutPrefix(fs.out.Text(), fanoutServerHWM+" "); ok {
			hwm, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	fs.cmd.Wait()
	return hwm
}

// TestFanoutServerProcess is the server side of SpawnFanoutServers: it
// starts N in-process SSH servers on loopback, records their host keys in
// DIR/known_hosts, prints one port per line and the ready line, and serves
// until its stdin is closed.
func TestFanoutServerProcess(t *testing.T) {
	nStr := os.Getenv(fanoutServersEnv)
	if nStr == "" {
		t.Skip("only runs as the server process of BenchmarkCheckFanout1000")
	}
	n, err := strconv.Atoi(nStr)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive count", fanoutServersEnv, nStr)
	}
	dir := os.Getenv(fanoutDirEnv)
	raw, err := os.ReadFile(filepath.Join(dir, "authorized.pub"))
	if err != nil {
		t.Fatal(err)
	}
	pub, _, _, _, err := gossh.ParseAuthorizedKey(raw)
	if err != nil {
		t.Fatalf("authorized.pub: %v", err)
	}
	out := bufio.NewWriter(os.Stdout)
	kh := filepath.Join(dir, "known_hosts")
	for i := 0; i < n; i++ {
		ts := newTestServer(t, withAuthorized(pub))
		trustIn(t, kh, ts, ts.hostKeys...)
		fmt.Fprintln(out, ts.port)
	}
	fmt.Fprintln(out, fanoutReady)
	if err := out.Flush(); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, os.Stdin)
	fmt.Printf("%s %d\n", fanoutServerHWM, ProcStatusKB("VmHWM"))
}

// ProcStatusKB reads a "Field: N kB" line of /proc/self/status (VmHWM,
// VmRSS), or returns -1.
func ProcStatusKB(field string) int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(raw), "\n") {
		var v int64
		if _, err := fmt.Sscanf(line, field+": %d kB", &v); err == nil {
			return v
		}
	}
	return -1
}
