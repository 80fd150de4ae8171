package preflight

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/mysqlconn"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/topology"
)

// The network paths a run uses, proven from the hosts that will use them
// before anything restarts: each slave to the master's MySQL port (the
// address written as MASTER_HOST), and the load box logging in to it with
// the benchmark account (the address and account sysbench gets). A path
// is tried from the host itself, through its SSH connection, so the
// server sees the client the run will bring.

// Path is one proven (or failed) path.
type Path struct {
	From   string `json:"from"`
	To     string `json:"to"` // host:port as the From host dials it
	What   string `json:"what"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

func (p Path) String() string {
	state := "ok"
	if !p.OK {
		state = "FAILED"
	}
	return fmt.Sprintf("%s -> %s (%s): %s: %s", p.From, p.To, p.What, state, p.Detail)
}

// refusedRetries bound how long Paths waits out a port that refuses or a
// host without a route: a server seen listening a moment after its port
// refused a connection was (re)starting, and a link that has just come
// back answers "No route to host" until its neighbour entry is resolved
// again (seen in CI 364 ms after a lab link came up): states up converges
// from, not broken paths.
const (
	refusedRetries = 5
	refusedPause   = time.Second
)

// Paths checks the inventory's paths on connected cluster c. A host that
// is not connected gets a failed path naming why. A path refused by a port,
// or without a route to its host, is checked again, a few times a second
// apart, before it counts as broken.
func Paths(ctx context.Context, c *cluster.Cluster) []Path {
	for attempt := 0; ; attempt++ {
		out := paths(ctx, c)
		if attempt == refusedRetries || !slices.ContainsFunc(out, func(p Path) bool { return !p.OK && transient(p.Detail) }) {
			return out
		}
		select {
		case <-ctx.Done():
			return out
		case <-time.After(refusedPause):
		}
	}
}

func paths(ctx context.Context, c *cluster.Cluster) []Path {
	inv := c.Inventory
	m := inv.Master()
	if m == nil {
		return nil
	}
	addr := net.JoinHostPort(m.PeerAddress(), strconv.Itoa(portOf(m)))
	var out []Path
	slaves := inv.Slaves()
	res := make([]Path, len(slaves))
	if len(slaves) > 0 { // Each takes no hosts as every host
		c.Each(ctx, slaves, func(ctx context.Context, h *topology.Host, ex executor.Executor) error {
			i := indexOf(slaves, h)
			res[i] = slavePath(ctx, h, ex, m, addr)
			return nil
		})
	}
	for i, h := range slaves {
		if res[i].From == "" {
			res[i] = Path{From: h.Name, To: addr, What: "replication", Detail: connectErr(c, h)}
		}
	}
	out = append(out, res...)
	if len(inv.LoadBoxes()) == 0 {
		out = append(out, benchPath(ctx, c, m, addr, nil))
	}
	for _, lb := range inv.LoadBoxes() { // a run drives the master from each
		if inCluster(c, lb) {
			out = append(out, benchPath(ctx, c, m, addr, lb))
		}
	}
	// A stock server listens on 127.0.0.1 until up's config binds it to
	// every address: a refused connection then still proves the route
	// (the master's host answered), and up proves the rest after its
	// restart.
	loopback := ""
	for i, p := range out {
		if p.OK || !refused(p.Detail) || inv.Existing {
			continue // an existing server is never rebound
		}
		if loopback == "" {
			loopback = loopbackOnly(ctx, c, m)
		}
		switch loopback {
		case "no":
		case "none":
			// A server left stopped (a killed or interrupted up): up
			// starts it before anything else, then proves the login.
			out[i].OK = true
			out[i].Detail = "host reachable, port refused: no server listens on it now; up starts the server and proves the login after its restart"
		default:
			out[i].OK = true
			out[i].Detail = "host reachable, port refused: the server listens on " + loopback + " only until orch up binds it to every address; up proves the login after its restart"
		}
	}
	return out
}

func inCluster(c *cluster.Cluster, h *topology.Host) bool {
	for _, x := range c.Hosts {
		if x == h {
			return true
		}
	}
	return false
}

// refused reports whether the path's port refused the connection. A host
// orch could not log in to (its SSH port refused) is not that: its path
// was never tried, so it proves no route and is not tried again.
func refused(detail string) bool {
	return !strings.HasPrefix(detail, notConnected) && strings.Contains(strings.ToLower(detail), "connection refused")
}

// transient reports whether a failed path may pass a moment later: a
// refused port, or no route to the host (EHOSTUNREACH) while a link's
// neighbour entry is being resolved again.
func transient(detail string) bool {
	if strings.HasPrefix(detail, notConnected) {
		return false
	}
	return refused(detail) || strings.Contains(strings.ToLower(detail), "no route to host")
}

// loopbackOnly returns the loopback address the master's server listens
// on when it listens on no other, "none" when nothing listens on its port
// (the server is stopped), and "no" otherwise or when unknown.
func loopbackOnly(ctx context.Context, c *cluster.Cluster, m *topology.Host) string {
	ex, err := c.Executor(m)
	if err != nil {
		return "no"
	}
	res, err := ex.Run(ctx, executor.Command{Script: "ss -Hltn", Timeout: 15 * time.Second})
	if err != nil {
		return "no"
	}
	return loopbackListener(string(res.Stdout), portOf(m))
}

// loopbackListener reads `ss -Hltn` (State Recv-Q Send-Q Local Peer).
func loopbackListener(ss string, port int) string {
	suffix := ":" + strconv.Itoa(port)
	lo := ""
	for _, line := range strings.Split(ss, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasSuffix(f[3], suffix) {
			continue
		}
		host := strings.Trim(strings.TrimSuffix(f[3], suffix), "[]")
		if a, err := netip.ParseAddr(host); err == nil && a.IsLoopback() {
			lo = host
			continue
		}
		return "no"
	}
	if lo == "" {
		return "none"
	}
	return lo
}

func portOf(h *topology.Host) int {
	if h.MySQL.Port == 0 {
		return topology.DefaultMySQLPort
	}
	return h.MySQL.Port
}

// notConnected begins the detail of a path whose host orch could not
// log in to.
const notConnected = "not connected: "

func connectErr(c *cluster.Cluster, h *topology.Host) string {
	if _, err := c.Executor(h); err != nil {
		return notConnected + err.Error()
	}
	return "not checked"
}

// slavePath proves the slave resolves and reaches MASTER_HOST's port and
// that the server there greets it (a server refusing the slave's address
// says so in its greeting).
func slavePath(ctx context.Context, h *topology.Host, ex executor.Executor, m *topology.Host, addr string) Path {
	p := Path{From: h.Name, To: addr, What: "replication to MASTER_HOST"}
	if msg := resolves(ctx, ex, m.PeerAddress()); msg != "" {
		p.Detail = msg
		return p
	}
	d, ok := ex.(mysqlconn.Dialer)
	if !ok {
		p.Detail = fmt.Sprintf("executor %T cannot dial", ex)
		return p
	}
	// No account for the slave's address yet is fine: up makes the
	// replication account for any host.
	p.OK, p.Detail = greet(ctx, d, addr, "no account for "+h.Name+" yet; up makes the replication account")
	return p
}

// greet reads the server's greeting at addr: a server that refuses only
// because no account matches the client's host is reachable, which is
// what later explains.
func greet(ctx context.Context, d mysqlconn.Dialer, addr, later string) (ok bool, detail string) {
	v, err := mysqlconn.Greeting(ctx, d, addr)
	switch {
	case mysqlconn.NoAccountForHost(err):
		return true, "server answers (no account for this host yet): " + later
	case err != nil:
		return false, err.Error()
	}
	return true, "server " + v + " answers"
}

// benchPath logs in to the master from load box lb (this machine when
// nil: the inventory has none) with the benchmark account. Before the first
// up has made orch's own benchmark account, only the TCP path is proven.
func benchPath(ctx context.Context, c *cluster.Cluster, m *topology.Host, addr string, lb *topology.Host) Path {
	inv := c.Inventory
	b := inv.Benchmark
	from := "this machine"
	var ex executor.Executor = executor.NewLocal("this machine")
	if lb != nil {
		from = lb.Name
		var err error
		if ex, err = c.Executor(lb); err != nil {
			return Path{From: from, To: addr, What: "benchmark login", Detail: "not connected: " + err.Error()}
		}
		if lb.PeerAddress() == m.PeerAddress() {
			addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(portOf(m)))
		}
	}
	p := Path{From: from, To: addr, What: "benchmark login as " + b.User}
	if h, _, err := net.SplitHostPort(addr); err == nil && from != "this machine" {
		if msg := resolves(ctx, ex, h); msg != "" {
			p.Detail = msg
			return p
		}
	}
	d, ok := ex.(mysqlconn.Dialer)
	if !ok {
		p.Detail = fmt.Sprintf("executor %T cannot dial", ex)
		return p
	}
	if b.Managed && account.Pending(b.Password) {
		p.OK, p.Detail = greet(ctx, d, addr, "orch up makes the account "+b.User+" (password generated into orch's state)")
		return p
	}
	pw, err := b.Password.Resolve()
	if err != nil {
		p.Detail = "benchmark password: " + err.Error()
		return p
	}
	lctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := mysqlconn.LoginFrom(lctx, d, addr, b.User, pw); err != nil {
		p.Detail = err.Error()
		if mysqlconn.LoginRefused(err) {
			p.Detail += " (the master refuses the benchmark account from this host: set benchmark.user and benchmark.password, or grant it for the load box's address)"
		}
		return p
	}
	p.OK, p.Detail = true, "logged in"
	return p
}

// resolves returns "" when name is an IP address or resolves on the host
// (getent, as the server's and the client's resolver would), else why not.
func resolves(ctx context.Context, ex executor.Executor, name string) string {
	if _, err := netip.ParseAddr(name); err == nil {
		return ""
	}
	res, err := ex.Run(ctx, executor.Command{Script: "getent hosts " + shell.Quote(name), Timeout: 15 * time.Second})
	if err == nil && strings.TrimSpace(string(res.Stdout)) != "" {
		return ""
	}
	return fmt.Sprintf("%q does not resolve on %s: use an address it knows (ssh aliases are translated only through this machine's ssh_config HostName)", name, ex.Name())
}

// ReplicationPassword says where the replication password comes from.
func ReplicationPassword(inv *topology.Inventory) string {
	r := inv.Replication
	switch {
	case r.PasswordManaged && account.Pending(r.Password):
		return "generated by orch up into orch's state (" + r.Password.File + ")"
	case r.PasswordManaged:
		return "generated, in orch's state (" + r.Password.File + ")"
	}
	return "set: " + r.Password.String()
}

// PathsErr is Paths' failures as one error, for commands that must not
// go on (up, run) before a restart. It names the first
// topology.MaxListedHosts and counts the rest: one path per slave, and an
// inventory may have thousands.
func PathsErr(paths []Path) error {
	var bad []string
	for _, p := range paths {
		if !p.OK {
			bad = append(bad, p.String())
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("network paths the run needs are broken (nothing was restarted): %s", topology.CapJoin(bad, topology.MaxListedHosts, "; "))
}
