package up

import (
	"sort"
	"strings"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// purgeCandidates are the accounts with orch's names on a host: its admin
// account, and on the master the benchmark and replication accounts.
func purgeCandidates(inv *topology.Inventory, h *topology.Host) []account.Item {
	var out []account.Item
	add := func(user, host string) {
		it := account.AccountItem(user, host)
		for _, x := range out {
			if x == it {
				return
			}
		}
		out = append(out, it)
	}
	for _, a := range account.AdminAccounts(h, "-") {
		add(a.User, a.Host)
	}
	if h.Role == topology.RoleMaster {
		for _, a := range account.BenchAccounts(inv, "-", "") {
			add(a.User, a.Host)
		}
		user := inv.Replication.User
		if user == "" {
			user = flavor.DefaultReplUser
		}
		add(user, flavor.DefaultReplHost)
	}
	return out
}

// named says whether the inventory names the account user (then down
// never drops it, whoever made it).
func named(inv *topology.Inventory, h *topology.Host, user string) string {
	switch {
	case !h.MySQL.Managed && user == h.MySQL.User:
		return "the inventory names it (mysql.user)"
	case h.Role == topology.RoleMaster && !inv.Benchmark.Managed && user == inv.Benchmark.User:
		return "the inventory names it (benchmark.user)"
	case h.Role == topology.RoleMaster && inv.Replication.UserNamed && user == inv.Replication.User:
		return replNamed
	}
	return ""
}

// purgePlan is what purge sends to one server and says about it.
type purgePlan struct {
	drops    []string // schemas and tables
	accounts []string // DROP USER, the session's own account last
	lines    []string
}

const notRecorded = "not in orch's record on the server: orch did not make it"

// planPurge decides from what exists and orch's record.
func planPurge(inv *topology.Inventory, h *topology.Host, f *account.Found) purgePlan {
	var p purgePlan
	drop := func(it account.Item) { p.lines = append(p.lines, "dropped "+it.String()) }
	keep := func(it account.Item, why string) { p.lines = append(p.lines, "kept "+it.String()+": "+why) }

	for _, s := range purgedSchemas() {
		schema := account.Item{Kind: account.KindSchema, Name: s}
		if !f.Exists(schema) {
			continue
		}
		if f.Mine(schema) {
			// A schema orch made goes whole only when nothing in it is
			// someone else's: a DBA's table put there (the review's
			// mysqlslap.precious went with DROP DATABASE) keeps the schema,
			// and only orch's tables go.
			var foreign, mine []account.Item
			for _, t := range tablesIn(f, s) {
				if t == account.RecordItem || f.Mine(t) || benchTable(t.Name) {
					mine = append(mine, t)
				} else {
					foreign = append(foreign, t)
				}
			}
			if len(foreign) == 0 {
				p.drops = append(p.drops, "DROP DATABASE IF EXISTS "+flavor.QuoteIdent(s))
				drop(schema)
				continue
			}
			var names []string
			for _, t := range foreign {
				names = append(names, strings.TrimPrefix(t.Name, s+"."))
			}
			for _, t := range mine {
				if t != account.RecordItem { // dropped last, below
					p.drops = append(p.drops, "DROP TABLE IF EXISTS "+quoteTable(t.Name))
					drop(t)
				}
			}
			keep(schema, "orch made it, but it holds tables orch did not make: "+topology.CapList(names, maxListed)+" (orch's tables in it were dropped)")
			continue
		}
		var others []string
		for _, t := range tablesIn(f, s) {
			switch {
			case t == account.RecordItem:
				// dropped last, below
			case f.Mine(t):
				p.drops = append(p.drops, "DROP TABLE IF EXISTS "+quoteTable(t.Name))
				drop(t)
			default:
				others = append(others, strings.TrimPrefix(t.Name, s+"."))
			}
		}
		why := "it existed before orch (" + notRecorded + ")"
		if len(others) > 0 {
			why = "it existed before orch, with its tables " + topology.CapList(others, maxListed) + " (" + notRecorded + ")"
		}
		keep(schema, why)
	}
	if f.Exists(account.RecordItem) && !f.Mine(account.Item{Kind: account.KindSchema, Name: account.RecordSchema}) {
		p.drops = append(p.drops, "DROP TABLE IF EXISTS "+quoteTable(account.RecordItem.Name))
		drop(account.RecordItem)
	}

	// Accounts: what exists with orch's names plus what the record lists.
	seen := map[account.Item]bool{}
	var accts []account.Item
	for _, it := range append(purgeCandidates(inv, h), f.OwnedOf(account.KindAccount)...) {
		if !seen[it] && f.Exists(it) {
			seen[it] = true
			accts = append(accts, it)
		}
	}
	sort.SliceStable(accts, func(i, j int) bool { // the session's own account last
		return !isUser(accts[i], h.MySQL.User) && isUser(accts[j], h.MySQL.User)
	})
	for _, it := range accts {
		user, host, _ := strings.Cut(it.Name, "@")
		if why := named(inv, h, user); why != "" {
			keep(it, why)
			continue
		}
		if !f.Mine(it) {
			keep(it, notRecorded)
			continue
		}
		p.accounts = append(p.accounts, "DROP USER IF EXISTS "+flavor.QuoteString(user)+"@"+flavor.QuoteString(host))
		drop(it)
	}
	return p
}

// benchTable reports whether schema.table is one the benchmarks orch runs
// create in orch's schemas (the driver table's OwnTable: sysbench's
// sbtest1..N in sbtest, mysqlslap's t1 in mysqlslap).
func benchTable(name string) bool {
	s, t, _ := strings.Cut(name, ".")
	return bench.OwnTable(s, t)
}

func isUser(it account.Item, user string) bool { return strings.HasPrefix(it.Name, user+"@") }

// tablesIn lists the tables of schema s that exist, sorted.
func tablesIn(f *account.Found, s string) []account.Item {
	var out []account.Item
	for t := range f.Tables {
		if strings.HasPrefix(t, s+".") {
			out = append(out, account.Item{Kind: account.KindTable, Name: t})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// quoteTable is `schema`.`table` for names orch read from the server.
func quoteTable(name string) string {
	s, t, _ := strings.Cut(name, ".")
	return flavor.QuoteIdent(s) + "." + flavor.QuoteIdent(t)
}

// maxListed caps a list in one line of output.
const maxListed = 10
