package executor

// BenchmarkFanout compares running `true` on N hosts with orch (one SSH
// connection per host, dialled and run in parallel by orchestrator.ForEach)
// against the OpenSSH client started once per host in a sequential loop,
// the way shell scripts usually drive a cluster. The hosts are in-process
// SSH servers on loopback, so both sides pay the same server cost and no
// network latency: the figures compare client-side overhead. It prints a
// table and asserts nothing. Run it with:
//
//	go test -run '^$' -bench Fanout -benchtime 1x ./orchestrator/executor/
//
// (-benchtime 1x keeps it to one pass; the ssh loop at N=200 takes seconds.)

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/topology"
)

const sshClient = "/usr/bin/ssh"

func BenchmarkFanout(b *testing.B) {
	if _, err := os.Stat(sshClient); err != nil {
		b.Skipf("%s not found: install openssh-client to compare against it", sshClient)
	}
	dir := b.TempDir()
	b.Setenv("HOME", dir)
	b.Setenv("SSH_AUTH_SOCK", "")
	keyFile := filepath.Join(dir, "client_key")
	writeKey(b, keyFile, clientKey)
	knownHosts := filepath.Join(dir, "known_hosts")

	sizes := []int{10, 50, 200}
	servers := make([]*testServer, sizes[len(sizes)-1])
	hosts := make([]*topology.Host, len(servers))
	for i := range servers {
		servers[i] = newTestServer(b)
		trustIn(b, knownHosts, servers[i], servers[i].hostKeys...)
		hosts[i] = &topology.Host{
			Name: "host" + strconv.Itoa(i), Role: topology.RoleSlave, Address: "127.0.0.1",
			SSH: topology.SSHConfig{User: "root", Port: servers[i].port, IdentityFiles: []string{keyFile}},
		}
	}
	cfg := DialConfig{KnownHostsFile: knownHosts, SSHConfigFile: "none"}

	type row struct{ orch, loop time.Duration }
	rows := map[int]*row{}
	for _, n := range sizes {
		r := &row{}
		rows[n] = r
		b.Run(fmt.Sprintf("orch/N=%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := orchFanout(cfg, hosts[:n]); err != nil {
					b.Fatal(err)
				}
			}
			r.orch = b.Elapsed() / time.Duration(b.N)
		})
		b.Run(fmt.Sprintf("ssh-loop/N=%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := sshLoop(keyFile, knownHosts, servers[:n]); err != nil {
					b.Fatal(err)
				}
			}
			r.loop = b.Elapsed() / time.Duration(b.N)
		})
	}

	fmt.Printf("\n%5s %12s %12s %8s\n", "N", "orch", "ssh-loop", "ratio")
	for _, n := range sizes {
		r := rows[n]
		ratio := "-"
		if r.orch > 0 && r.loop > 0 {
			ratio = fmt.Sprintf("%.1fx", float64(r.loop)/float64(r.orch))
		}
		fmt.Printf("%5d %12s %12s %8s\n", n, show(r.orch), show(r.loop), ratio)
	}

	s, err := Dial(context.Background(), hosts[0], cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 20; i++ {
		if _, err := s.Run(context.Background(), Command{Script: "true"}); err != nil {
			b.Fatal(err)
		}
	}
	fmt.Printf("20 commands on one host: %d handshakes\n\n", s.Handshakes())
}

func show(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return d.Round(100 * time.Microsecond).String()
}

// orchFanout is what orch does for a cluster command: dial every host and
// run the command, at most DefaultParallel hosts at a time.
func orchFanout(cfg DialConfig, hosts []*topology.Host) error {
	ctx := context.Background()
	errs := orchestrator.ForEach(ctx, orchestrator.DefaultParallel, hosts, func(ctx context.Context, _ int, h *topology.Host) error {
		s, err := Dial(ctx, h, cfg)
		if err != nil {
			return err
		}
		defer s.Close()
		_, err = s.Run(ctx, Command{Script: "true"})
		return err
	})
	return orchestrator.Aggregate(errs)
}

// sshLoop runs the OpenSSH client once per host, one after the other.
func sshLoop(keyFile, knownHosts string, servers []*testServer) error {
	for _, ts := range servers {
		cmd := exec.Command(sshClient, "-F", "/dev/null",
			"-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
			"-o", "UserKnownHostsFile="+knownHosts, "-o", "GlobalKnownHostsFile=/dev/null",
			"-o", "LogLevel=ERROR", "-i", keyFile, "-p", strconv.Itoa(ts.port), "root@127.0.0.1", "true")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("ssh to port %d: %v: %s", ts.port, err, out)
		}
	}
	return nil
}
