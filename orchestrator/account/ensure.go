package account

import (
	"context"
	dbsql "database/sql"
	"fmt"
	"strings"
	"sync"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/mysqlconn"
	"github.com/orch-bench/orch/topology"
)

// EnsureOptions are what `orch up` asked of the managed accounts.
type EnsureOptions struct {
	// Adopt (--adopt-accounts) lets up take over an existing account with
	// one of orch's names that orch did not make: it says what it changes.
	Adopt bool
	// Progress hears one line per host per step.
	Progress func(host, step string)
}

// What --adopt-accounts changes, and the inventory keys that name an
// account of one's own instead.
const (
	adminChange = "sets its password to orch's generated one and grants it ALL PRIVILEGES ON *.* WITH GRANT OPTION"
	benchChange = "sets its password to orch's generated one and grants it ALL PRIVILEGES ON the benchmark schemas"
	adminKeys   = "mysql.user and mysql.password"
	benchKeys   = "benchmark.user and benchmark.password"
)

// Refusal is up's one line for an existing account orch did not make.
func Refusal(host string, it Item, keys, change string) error {
	return fmt.Errorf("%s: %s exists and orch did not make it (orch's record on the server does not list it); up changed nothing: name your own account in the inventory (%s), or run orch up --adopt-accounts, which %s",
		host, it, keys, change)
}

// Adopting is the progress line of an account --adopt-accounts takes over.
func Adopting(it Item, change string) string {
	return "adopting " + it.String() + ": " + change
}

// hostPlan is what Ensure will do on one host, decided before any host
// changes.
type hostPlan struct {
	q     Querier
	db    *dbsql.DB // orch's own session, when the admin account logs in
	found *Found
	make  []Account // made or brought up to date through root's socket
	claim []Item
	notes []string
}

// Ensure makes the managed accounts on every database host through
// root's unix socket, generating their passwords first: the admin account
// everywhere, the benchmark account on the master. Each host's accounts
// are its own (binary logging off), so a slave's never come from the
// master. First every host is read: an existing account with one of
// orch's names that orch's record does not list stops up before any host
// changes (unless opts.Adopt). Then each host's accounts are recorded and
// made. Hosts run in parallel; every failure is reported.
func Ensure(ctx context.Context, c *cluster.Cluster, opts EnsureOptions) error {
	inv := c.Inventory
	// A password file orch already had means an earlier up made the
	// account of that name (before orch kept a record on the server).
	had := map[string]bool{}
	for _, f := range managedFiles(inv) {
		had[f] = !Pending(topology.Secret{File: f})
	}
	if err := Generate(inv); err != nil {
		return err
	}
	var hosts []*topology.Host
	for _, h := range inv.DBHosts() {
		if h.MySQL.Managed || (h.Role == topology.RoleMaster && inv.Benchmark.Managed) {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return nil
	}
	var mu sync.Mutex
	plans := map[string]*hostPlan{}
	defer func() {
		for _, p := range plans {
			if p.db != nil {
				p.db.Close()
			}
		}
	}()
	errs := c.Each(ctx, hosts, func(ctx context.Context, h *topology.Host, ex executor.Executor) error {
		p, err := planHost(ctx, c, h, ex, had, opts.Adopt)
		if p != nil {
			mu.Lock()
			plans[h.Name] = p
			mu.Unlock()
		}
		return err
	})
	if err := orchestrator.Aggregate(errs); err != nil {
		return err
	}
	errs = c.Each(ctx, hosts, func(ctx context.Context, h *topology.Host, ex executor.Executor) error {
		p := plans[h.Name]
		for _, n := range p.notes {
			say(opts.Progress, h.Name, n)
		}
		if err := Claim(ctx, p.q, p.found, p.claim); err != nil {
			return fmt.Errorf("%s: %w", h, err)
		}
		if err := Remember(inv, h.Name, p.claim); err != nil {
			return fmt.Errorf("%s: %w", h, err)
		}
		if len(p.make) == 0 {
			return nil
		}
		if err := EnsureBySocket(ctx, ex, p.make...); err != nil {
			return err
		}
		say(opts.Progress, h.Name, "accounts "+names(p.make))
		return nil
	})
	return orchestrator.Aggregate(errs)
}

func say(progress func(host, step string), host, step string) {
	if progress != nil {
		progress(host, step)
	}
}

// planHost reads the host's accounts and orch's record and decides.
func planHost(ctx context.Context, c *cluster.Cluster, h *topology.Host, ex executor.Executor, had map[string]bool, adopt bool) (*hostPlan, error) {
	inv := c.Inventory
	p := &hostPlan{}
	type want struct {
		accts        []Account
		known        bool // orch set its password before
		keys, change string
		viaSocket    bool
	}
	var wants []want
	if h.MySQL.Managed {
		p.db = adminSession(ctx, c, h, ex)
		pw := "-" // the account logs in already: only its name is needed
		if p.db == nil {
			var err error
			if pw, err = h.MySQL.Password.Resolve(); err != nil {
				return p, fmt.Errorf("%s: admin password: %w", h, err)
			}
		}
		wants = append(wants, want{AdminAccounts(h, pw), p.db != nil || had[h.MySQL.Password.File], adminKeys, adminChange, p.db == nil})
	}
	if h.Role == topology.RoleMaster && inv.Benchmark.Managed {
		pw, err := inv.Benchmark.Password.Resolve()
		if err != nil {
			return p, fmt.Errorf("%s: benchmark password: %w", h, err)
		}
		here := ""
		if len(inv.LoadBoxes()) == 0 {
			if here, err = ClientAddress(ctx, ex); err != nil {
				return p, fmt.Errorf("%s: benchmark account: %w", h, err)
			}
		}
		wants = append(wants, want{BenchAccounts(inv, pw, here), had[inv.Benchmark.Password.File], benchKeys, benchChange, true})
	}
	p.q = Socket{Ex: ex}
	if p.db != nil {
		p.q = DB{p.db}
	}
	var items []Item
	for _, w := range wants {
		for _, a := range w.accts {
			items = appendNew(items, AccountItem(a.User, a.Host))
		}
	}
	f, err := Look(ctx, p.q, items, nil)
	if err != nil {
		return p, fmt.Errorf("%s: %w", h, err)
	}
	p.found = f
	var refusals []error
	for _, w := range wants {
		for _, a := range w.accts {
			it := AccountItem(a.User, a.Host)
			if containsItem(p.claim, it) {
				continue
			}
			if f.Exists(it) && !f.Mine(it) && !w.known {
				if !adopt {
					refusals = append(refusals, Refusal(h.String(), it, w.keys, w.change))
					continue
				}
				p.notes = append(p.notes, Adopting(it, w.change))
			}
			p.claim = append(p.claim, it)
		}
		if w.viaSocket {
			p.make = append(p.make, w.accts...)
		}
	}
	return p, joinLines(refusals)
}

// joinLines is every refusal, one line each.
func joinLines(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	var lines []string
	for _, e := range errs {
		lines = append(lines, e.Error())
	}
	return fmt.Errorf("%s", strings.Join(lines, "\n"))
}

// adminSession is a session as the managed admin account when it already
// logs in with its password (then the host's admin account is left
// alone: no write on a slave that super_read_only guards), else nil.
func adminSession(ctx context.Context, c *cluster.Cluster, h *topology.Host, ex executor.Executor) *dbsql.DB {
	open := c.DBOpener()
	if open == nil {
		d, ok := ex.(mysqlconn.Dialer)
		if !ok {
			return nil
		}
		open = func(ctx context.Context, h *topology.Host, _ executor.Executor) (*dbsql.DB, error) {
			return mysqlconn.Open(ctx, d, h)
		}
	}
	db, err := open(ctx, h, ex)
	if err != nil {
		return nil
	}
	return db
}
