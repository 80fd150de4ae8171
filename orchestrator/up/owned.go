package up

import (
	"context"
	"fmt"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/replication"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/sqlrows"
	"github.com/orch-bench/orch/topology"
)

// Before anything restarts, up reads on every server which of the names
// it uses (the replication account, the benchmark and canary schemas)
// exist and whether orch's record lists them: a replication account orch
// did not make stops up (unless the inventory names it: then it is used
// as it is), and the schemas orch is about to use are recorded and made
// now where they are missing, so that down --purge later knows which are
// orch's. Schemas that existed before orch are used but never dropped.

const replKeys = "replication.user and replication.password"

// replItem is the replication account's record item.
func replItem(p flavor.Params) account.Item {
	user, host := p.ReplUser, p.ReplHost
	if user == "" {
		user = flavor.DefaultReplUser
	}
	if host == "" {
		host = flavor.DefaultReplHost
	}
	return account.AccountItem(user, host)
}

// replNamed is why the inventory's replication account is its own.
const replNamed = "the inventory names it (replication.user)"

// ownedPlan is what claimNames will record on one server.
type ownedPlan struct {
	q     sqlrows.Session
	found *account.Found
	claim []account.Item
	note  string
}

// claimNames checks and records orch's names on every server. A password
// file in orch's state is no proof that orch made an account of that name
// (a refused up used to leave one, and the next up took the account over
// on its word): only the server's record is. It sets p.ReplAccountKept for
// an inventory's account orch did not make.
func claimNames(ctx context.Context, inv *topology.Inventory, nodes []*server.Node, p *flavor.Params, adopt bool, rec *recorder) error {
	plans := make([]ownedPlan, len(nodes))
	repl := replItem(*p)
	var kept string
	errs := orchestrator.ForEach(ctx, 0, nodes, func(ctx context.Context, i int, n *server.Node) error {
		q := account.DB{DB: n.DB}
		master := n.Host.Role == topology.RoleMaster
		var accts []account.Item
		if master {
			accts = append(accts, repl)
		}
		f, err := account.Look(ctx, q, account.SealFor(inv, n.Host), accts, purgedSchemas())
		if err != nil {
			return fmt.Errorf("%s: %w", n.Host, err)
		}
		pl := ownedPlan{q: q, found: f}
		for _, s := range purgedSchemas() {
			if it := (account.Item{Kind: account.KindSchema, Name: s}); !f.Exists(it) {
				pl.claim = append(pl.claim, it)
			}
		}
		canary := account.Item{Kind: account.KindTable, Name: replication.CanarySchema + "." + replication.CanaryTable}
		if !f.Exists(canary) {
			pl.claim = append(pl.claim, canary)
		}
		if master {
			switch {
			case f.Mine(repl) || !f.Exists(repl):
				pl.claim = append(pl.claim, repl)
			case inv.Replication.UserNamed:
				kept = replNamed + " and orch did not make it"
			case adopt:
				pl.note = account.Adopting(repl, replChange)
				pl.claim = append(pl.claim, repl)
			default:
				return account.Refusal(n.Host.String(), repl, replKeys, replChange)
			}
		}
		plans[i] = pl
		return nil
	})
	if err := orchestrator.Aggregate(errs); err != nil {
		return err
	}
	p.ReplAccountKept = kept
	errs = orchestrator.ForEach(ctx, 0, nodes, func(ctx context.Context, i int, n *server.Node) error {
		if plans[i].note != "" {
			rec.note(n.Host.Name, plans[i].note)
		}
		if err := account.Claim(ctx, plans[i].q, plans[i].found, plans[i].claim); err != nil {
			return fmt.Errorf("%s: %w", n.Host, err)
		}
		if err := account.Remember(inv, n.Host.Name, plans[i].claim); err != nil {
			return fmt.Errorf("%s: %w", n.Host, err)
		}
		return nil
	})
	return orchestrator.Aggregate(errs)
}

const replChange = "sets its password to the replication password orch uses and grants it replication privileges ON *.*"

// replKept says why down keeps the replication account on the master
// ("" when it is orch's to drop).
func replKept(ctx context.Context, inv *topology.Inventory, master *server.Node, p flavor.Params) (string, *account.Found, error) {
	if inv.Replication.UserNamed {
		return replNamed, nil, nil
	}
	repl := replItem(p)
	f, err := account.Look(ctx, account.DB{DB: master.DB}, account.SealFor(inv, master.Host), []account.Item{repl}, nil)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", master.Host, err)
	}
	if f.Exists(repl) && !f.Mine(repl) {
		return "orch's record does not list it: orch did not make it", f, nil
	}
	return "", f, nil
}
