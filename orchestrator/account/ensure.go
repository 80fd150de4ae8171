package account

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/mysqlconn"
	"github.com/orch-bench/orch/orchestrator/sqlrows"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/topology"
)

// EnsureOptions are what `orch up` asked of the managed accounts.
type EnsureOptions struct {
	// Adopt (--adopt-accounts) lets up take over an existing account with
	// one of orch's names that orch did not make: it says what it changes.
	Adopt bool
	// Events hears each host's steps as they begin and end, and the
	// notes (an account adopted); nil: nowhere.
	Events *step.Stream
}

// Step names.
const (
	StepRecord = "record orch's accounts"
	// StepAccounts is followed by the accounts' names.
	StepAccounts = "accounts"
)

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
	q     sqlrows.Session
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
// made, as steps. Hosts run in parallel; every failure is reported, and
// when a host fails (or on Ctrl-C) every host's steps are undone: the
// accounts this call created are dropped and its record of them removed.
func Ensure(ctx context.Context, c *cluster.Cluster, opts EnsureOptions) error {
	inv := c.Inventory
	// Nothing is written before up has decided it may own every account:
	// a refused up leaves no password file behind. And a password file is
	// no proof of ownership (a refused up used to leave one, and the next
	// up took the DBA's account over on its word): what orch owns is what
	// the server's record lists, or an admin account that logs in with
	// orch's password.
	var hosts []*topology.Host
	for _, h := range inv.DBHosts() {
		if h.MySQL.Managed || (h.Role == topology.RoleMaster && inv.Benchmark.Managed) {
			hosts = append(hosts, h)
		}
	}
	// The replication account is decided later (up's claimNames, once
	// the servers answer as orch): its password file is made then.
	replFile := ""
	if inv.Replication.PasswordManaged {
		replFile = inv.Replication.Password.File
	}
	if len(hosts) == 0 {
		return generate(inv, replFile)
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
		p, err := planHost(ctx, c, h, ex, opts.Adopt)
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
	// Decided: now the passwords exist.
	if err := generate(inv, replFile); err != nil {
		return err
	}
	for _, h := range hosts {
		if err := plans[h.Name].setPasswords(inv, h); err != nil {
			return err
		}
	}
	seqs := map[string]*step.Sequence{}
	errs = c.Each(ctx, hosts, func(ctx context.Context, h *topology.Host, ex executor.Executor) error {
		p := plans[h.Name]
		for _, n := range p.notes {
			opts.Events.Note(h.Name, n)
		}
		q := &step.Sequence{Host: h.String(), Events: step.HostEvents{Stream: opts.Events, Host: h.Name}}
		mu.Lock()
		seqs[h.Name] = q
		mu.Unlock()
		if err := q.Do(ctx, step.Step{Name: StepRecord, Decide: func(ctx context.Context) (step.Outcome, error) {
			return p.record(ctx, inv, h)
		}}); err != nil {
			return fmt.Errorf("%s: %w", h, err)
		}
		if len(p.make) == 0 {
			return nil
		}
		return q.Do(ctx, step.Step{Name: StepAccounts + " " + names(p.make), Decide: func(ctx context.Context) (step.Outcome, error) {
			return p.makeAccounts(ctx, ex)
		}})
	})
	if err := orchestrator.Aggregate(errs); err != nil || ctx.Err() != nil {
		if err == nil {
			err = fmt.Errorf("accounts: %w", ctx.Err())
		}
		return undoAll(ctx, seqs, err)
	}
	return nil
}

// undoAll takes back what every host's account steps did (the hosts are
// independent: in parallel) and words err with the outcome.
func undoAll(ctx context.Context, seqs map[string]*step.Sequence, err error) error {
	var pending []*step.Sequence
	for _, q := range seqs {
		if q.Pending() {
			pending = append(pending, q)
		}
	}
	if len(pending) == 0 {
		return err
	}
	// The Ctrl-C that stopped the work must not stop its undoing (each
	// sequence bounds its own undo).
	uerrs := orchestrator.ForEach(context.WithoutCancel(ctx), 0, pending, func(ctx context.Context, _ int, q *step.Sequence) error {
		if uerr := q.Undo(ctx); uerr != nil {
			return fmt.Errorf("%s: %w", q.Host, uerr)
		}
		return nil
	})
	if uerr := orchestrator.Aggregate(uerrs); uerr != nil {
		return errors.Join(err, fmt.Errorf("undoing the accounts also failed: %w", uerr))
	}
	return fmt.Errorf("%w (up took back what it had done to the accounts)", err)
}

// record adds the plan's names to orch's record on the server (and the
// state directory's copy). Its undo takes out of the record the names this
// step added; the copy keeps them, harmlessly: what orch may drop is what
// the server's record lists.
func (p *hostPlan) record(ctx context.Context, inv *topology.Inventory, h *topology.Host) (step.Outcome, error) {
	var added []Item
	for _, it := range p.claim {
		if !p.found.Mine(it) {
			added = append(added, it)
		}
	}
	if len(added) == 0 {
		return step.Outcome{Action: step.Skipped, Reason: "orch's record lists them already"}, nil
	}
	if err := Claim(ctx, p.q, p.found, p.claim); err != nil {
		return step.Outcome{}, err
	}
	out := step.Outcome{Reason: "recorded " + itemNames(added),
		Undo: func(ctx context.Context) error { return Unclaim(ctx, p.q, p.found, added) }}
	return out, Remember(inv, h.Name, p.claim)
}

// makeAccounts makes or brings up to date the plan's accounts through
// root's socket. Its undo drops those that did not exist before, with
// binary logging off as they were made; one that existed keeps the
// password and grants up gave it (the account was orch's, or adopted).
func (p *hostPlan) makeAccounts(ctx context.Context, ex executor.Executor) (step.Outcome, error) {
	var created []Account
	for _, a := range p.make {
		if !p.found.Exists(AccountItem(a.User, a.Host)) {
			created = append(created, a)
		}
	}
	err := EnsureBySocket(ctx, ex, p.make...)
	if len(created) == 0 {
		return step.Outcome{Action: step.Ensured, Reason: "they exist: passwords and grants re-asserted"}, err
	}
	drop := make([]string, len(created))
	for i, a := range created {
		drop[i] = "DROP USER IF EXISTS " + a.quoted()
	}
	return step.Outcome{Reason: "created " + names(created),
		Undo: func(ctx context.Context) error { return Socket{Ex: ex}.Exec(ctx, drop...) }}, err
}

// itemNames lists items for a step's reason.
func itemNames(items []Item) string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.String()
	}
	return strings.Join(out, ", ")
}

// setPasswords gives the plan's accounts their passwords, once generated.
func (p *hostPlan) setPasswords(inv *topology.Inventory, h *topology.Host) error {
	for i := range p.make {
		a := &p.make[i]
		s, what := inv.Benchmark.Password, "benchmark"
		if a.Admin {
			s, what = h.MySQL.Password, "admin"
		}
		pw, err := s.Resolve()
		if err != nil {
			return fmt.Errorf("%s: %s password: %w", h, what, err)
		}
		a.Password = pw
	}
	return nil
}

// planHost reads the host's accounts and orch's record and decides; the
// accounts' passwords are set once it has (setPasswords).
func planHost(ctx context.Context, c *cluster.Cluster, h *topology.Host, ex executor.Executor, adopt bool) (*hostPlan, error) {
	inv := c.Inventory
	p := &hostPlan{}
	type want struct {
		accts        []Account
		known        bool // orch set its password before
		keys, change string
		viaSocket    bool
	}
	var wants []want
	// "-" stands for a password until setPasswords: only names decide.
	if h.MySQL.Managed {
		// An admin account that logs in with orch's password is orch's
		// (only orch set it); it is then left alone.
		p.db = adminSession(ctx, c, h, ex)
		wants = append(wants, want{AdminAccounts(h, "-"), p.db != nil, adminKeys, adminChange, p.db == nil})
	}
	if h.Role == topology.RoleMaster && inv.Benchmark.Managed {
		here := ""
		if len(inv.LoadBoxes()) == 0 {
			var err error
			if here, err = ClientAddress(ctx, ex); err != nil {
				return p, fmt.Errorf("%s: benchmark account: %w", h, err)
			}
		}
		wants = append(wants, want{BenchAccounts(inv, "-", here), false, benchKeys, benchChange, true})
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
	f, err := Look(ctx, p.q, SealFor(inv, h), items, nil)
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
