package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orch-bench/orch/orchestrator"
)

// HostStatus is the health of one lab host.
type HostStatus struct {
	Name string `json:"name"`
	Role string `json:"role"`
	IP   string `json:"ip"`
	// Netns: the host's network namespace exists.
	Netns bool `json:"netns"`
	// PID1 is the host init's PID in the root namespace; 0 when not running.
	PID1 int `json:"pid1"`
	// SSHD: a TCP connection to IP:22 succeeded.
	SSHD bool `json:"sshd"`
	// MySQLD: the server answers a ping; nil on the load box (no server).
	MySQLD *bool `json:"mysqld,omitempty"`
	// Problem explains the first failed check, empty when healthy.
	Problem string `json:"problem,omitempty"`
}

// Healthy reports whether every check of the host passed.
func (s HostStatus) Healthy() bool {
	return s.Netns && s.PID1 > 0 && s.SSHD && (s.MySQLD == nil || *s.MySQLD)
}

// AllHealthy reports whether every host is healthy (false for no hosts).
func AllHealthy(hosts []HostStatus) bool {
	for _, h := range hosts {
		if !h.Healthy() {
			return false
		}
	}
	return len(hosts) > 0
}

// Status checks every lab host: namespace, PID 1, sshd reachable on
// IP:22, and (on database hosts) that the server (MariaDB, or MySQL in the
// MySQL lab) answers. It fails with
// ErrNotUp when there is no lab.
func Status(ctx context.Context, cfg Config) ([]HostStatus, error) {
	if err := requireRoot(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	st, err := readState(cfg.StateDir)
	if err != nil {
		return nil, notUp(cfg, err)
	}
	return statusOf(ctx, st), nil
}

// statusOf checks the recorded hosts in parallel.
func statusOf(ctx context.Context, st *State) []HostStatus {
	out := make([]HostStatus, len(st.Hosts))
	orchestrator.ForEach(ctx, 0, st.Hosts, func(ctx context.Context, i int, h HostState) error {
		out[i] = checkHost(ctx, st, h)
		return nil
	})
	return out
}

func checkHost(ctx context.Context, st *State, h HostState) HostStatus {
	kind := st.Kind
	s := HostStatus{Name: h.Name, Role: h.Role, IP: h.IP}
	problem := func(msg string) {
		if s.Problem == "" {
			s.Problem = msg
		}
	}
	s.Netns = h.Netns != "" && netnsExists(h.Netns)
	if !s.Netns {
		problem("network namespace missing")
	}
	if pid1, err := pid1Of(kind, h); err == nil {
		s.PID1 = pid1
	} else {
		if kind == KindSystemd {
			problem("container not running")
		} else {
			problem("host init not running")
		}
	}
	s.SSHD = tcpReachable(ctx, net.JoinHostPort(h.IP, "22"), time.Second)
	if !s.SSHD {
		problem("sshd unreachable on " + net.JoinHostPort(h.IP, "22"))
	}
	if h.IsDB() {
		up := false
		if s.PID1 > 0 {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			argv := []string{scriptStatus}
			if kind == KindSystemd {
				argv = []string{"systemctl", "is-active", "--quiet", st.dbUnit()}
			}
			_, err := nsenter(cctx, s.PID1, nil, argv...)
			cancel()
			up = err == nil
		}
		s.MySQLD = &up
		if !up {
			problem(st.serverName() + " not answering")
		}
	}
	return s
}

// WriteStatusTable prints one row per host.
func WriteStatusTable(w io.Writer, hosts []HostStatus) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tROLE\tIP\tNETNS\tPID1\tSSHD\tMYSQLD\tPROBLEM")
	for _, h := range hosts {
		pid1 := "-"
		if h.PID1 > 0 {
			pid1 = strconv.Itoa(h.PID1)
		}
		mysqld := "n/a"
		if h.MySQLD != nil {
			mysqld = okText(*h.MySQLD)
		}
		problem := h.Problem
		if problem == "" {
			problem = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			h.Name, h.Role, h.IP, okText(h.Netns), pid1, okText(h.SSHD), mysqld, problem)
	}
	return tw.Flush()
}

func okText(ok bool) string {
	if ok {
		return "ok"
	}
	return "DOWN"
}

// WriteStatus prints the hosts' health, as a table or as JSON, and is an
// error naming each unhealthy host (orch lab status exits 1 then).
func WriteStatus(w io.Writer, hosts []HostStatus, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(hosts); err != nil {
			return err
		}
	} else if err := WriteStatusTable(w, hosts); err != nil {
		return err
	}
	var bad []string
	for _, h := range hosts {
		if !h.Healthy() {
			bad = append(bad, h.Name+" ("+h.Problem+")")
		}
	}
	if len(bad) > 0 {
		return errors.New("lab: not healthy: " + strings.Join(bad, ", "))
	}
	return nil
}
