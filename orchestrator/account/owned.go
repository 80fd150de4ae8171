package account

import (
	"bytes"
	"context"
	dbsql "database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/sqlrows"
)

// orch never assumes it owns a name: what it made on a server (accounts,
// schemas, tables) is listed in a table on that server, written with
// binary logging off (each server's record is its own) before the thing
// itself is made. An account or schema with one of orch's names that the
// record does not list is someone else's: up refuses to change it and
// down keeps it. A table works on every flavour (MariaDB 10.11 has no
// comment or attribute on an account).

// The record: `orch`.`orch_owned`, one row per thing orch made.
const (
	RecordSchema = "orch"
	RecordTable  = "orch_owned"
)

// Kind is what a record row names.
type Kind string

// The kinds of things orch records.
const (
	KindAccount Kind = "account" // Name: user@host
	KindSchema  Kind = "schema"  // Name: the schema
	KindTable   Kind = "table"   // Name: schema.table
)

// Item is one thing orch made (or is about to make).
type Item struct {
	Kind Kind
	Name string
}

// AccountItem names the account user@host.
func AccountItem(user, host string) Item { return Item{KindAccount, user + "@" + host} }

// RecordItem is the record table itself.
var RecordItem = Item{KindTable, RecordSchema + "." + RecordTable}

func (i Item) String() string {
	switch i.Kind {
	case KindAccount:
		u, h, _ := strings.Cut(i.Name, "@")
		return "account " + flavor.QuoteString(u) + "@" + flavor.QuoteString(h)
	case KindSchema:
		return "schema `" + i.Name + "`"
	}
	return string(i.Kind) + " `" + strings.ReplaceAll(i.Name, ".", "`.`") + "`"
}

// Found is what exists on a server among the names orch uses, and orch's
// record there.
type Found struct {
	Accounts map[string]bool // user@host
	Schemas  map[string]bool
	Tables   map[string]bool // schema.table, in the schemas looked at
	// Owned are the record's rows whose digest checks (seal.go).
	Owned map[Item]bool
	// Forged are the record's rows whose digest does not: someone else
	// wrote them (or orch's state directory is not the one that did).
	Forged []Item

	seal   Seal
	hasMAC bool // the record table has its digest column
}

// Mine reports whether orch's record lists it.
func (f *Found) Mine(it Item) bool { return f.Owned[it] }

// Exists reports whether the thing is on the server.
func (f *Found) Exists(it Item) bool {
	switch it.Kind {
	case KindAccount:
		return f.Accounts[it.Name]
	case KindSchema:
		return f.Schemas[it.Name]
	}
	return f.Tables[it.Name]
}

// OwnedOf lists the record's items of a kind, sorted.
func (f *Found) OwnedOf(k Kind) []Item {
	var out []Item
	for it := range f.Owned {
		if it.Kind == k {
			out = append(out, it)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Look reads which of the accounts and schemas exist, the tables in those
// schemas, and orch's record (its rows checked with seal), changing nothing.
func Look(ctx context.Context, q sqlrows.Session, seal Seal, accounts []Item, schemas []string) (*Found, error) {
	f := &Found{Accounts: map[string]bool{}, Schemas: map[string]bool{}, Tables: map[string]bool{}, Owned: map[Item]bool{}, seal: seal}
	if !contains(schemas, RecordSchema) {
		schemas = append(append([]string(nil), schemas...), RecordSchema)
	}
	var quoted []string
	for _, s := range schemas {
		quoted = append(quoted, flavor.QuoteString(s))
	}
	in := strings.Join(quoted, ", ")
	read := func(query string, set map[string]bool) error {
		rows, err := q.Query(ctx, query)
		if err != nil {
			return fmt.Errorf("read what exists: %w", err)
		}
		for _, row := range rows {
			if len(row) > 0 {
				set[row[0]] = true
			}
		}
		return nil
	}
	if err := read("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN ("+in+")", f.Schemas); err != nil {
		return nil, err
	}
	if err := read("SELECT CONCAT(TABLE_SCHEMA, '.', TABLE_NAME) FROM information_schema.TABLES WHERE TABLE_SCHEMA IN ("+in+")", f.Tables); err != nil {
		return nil, err
	}
	if f.Tables[RecordItem.Name] {
		cols, err := q.Query(ctx, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '"+RecordSchema+"' AND TABLE_NAME = '"+RecordTable+"' AND COLUMN_NAME = 'mac'")
		if err != nil {
			return nil, fmt.Errorf("read orch's record %s: %w", RecordItem, err)
		}
		f.hasMAC = len(cols) > 0
		query := "SELECT kind, name, '' FROM " + recordTable
		if f.hasMAC {
			query = "SELECT kind, name, mac FROM " + recordTable
		}
		rows, err := q.Query(ctx, query)
		if err != nil {
			return nil, fmt.Errorf("read orch's record %s: %w", RecordItem, err)
		}
		key, err := seal.key()
		if err != nil {
			return nil, fmt.Errorf("orch's record key: %w", err)
		}
		for _, row := range rows {
			if len(row) < 2 {
				continue
			}
			it, mac := Item{Kind(row[0]), row[1]}, ""
			if len(row) > 2 {
				mac = row[2]
			}
			if seal.valid(key, it, mac) {
				f.Owned[it] = true
			} else {
				f.Forged = append(f.Forged, it)
			}
		}
	}
	// Whether the accounts asked about exist, and those the record lists
	// (an account made for an address only a past run knew, this
	// machine's as a master saw it).
	var names []string
	for _, a := range append(append([]Item(nil), accounts...), f.OwnedOf(KindAccount)...) {
		if n := flavor.QuoteString(a.Name); !contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		if err := read("SELECT CONCAT(User, '@', Host) FROM mysql.user WHERE CONCAT(User, '@', Host) IN ("+strings.Join(names, ", ")+")", f.Accounts); err != nil {
			return nil, err
		}
	}
	return f, nil
}

const recordTable = "`" + RecordSchema + "`.`" + RecordTable + "`"

// Claim records items as orch's, then creates the schemas among them that
// do not exist yet (tables and accounts are made by their own code right
// after). It writes nothing when the record lists them all already.
func Claim(ctx context.Context, q sqlrows.Session, f *Found, items []Item) error {
	var add []Item
	for _, it := range items {
		if !f.Owned[it] && !containsItem(add, it) {
			add = append(add, it)
		}
	}
	if len(add) == 0 {
		return nil
	}
	key, err := f.seal.key()
	if err != nil {
		return fmt.Errorf("orch's record key: %w", err)
	}
	if key == nil {
		return fmt.Errorf("record what orch makes: no record key in orch's state (%s)", f.seal.keyFile)
	}
	var stmts []string
	if !f.Schemas[RecordSchema] {
		stmts = append(stmts, "CREATE DATABASE IF NOT EXISTS `"+RecordSchema+"`")
		add = appendNew(add, Item{KindSchema, RecordSchema})
	}
	if !f.Tables[RecordItem.Name] {
		stmts = append(stmts, "CREATE TABLE IF NOT EXISTS "+recordTable+
			" (kind VARCHAR(16) NOT NULL, name VARCHAR(300) NOT NULL, mac CHAR(64) NOT NULL DEFAULT '', PRIMARY KEY (kind, name)) ENGINE=InnoDB")
		add = appendNew(add, RecordItem)
	} else if !f.hasMAC {
		// A record an earlier orch kept, without digests: its rows do not
		// check, and orch's own rows are written again with theirs.
		stmts = append(stmts, "ALTER TABLE "+recordTable+" ADD COLUMN mac CHAR(64) NOT NULL DEFAULT ''")
	}
	var values, stale []string
	for _, it := range add {
		values = append(values, "("+flavor.QuoteString(string(it.Kind))+", "+flavor.QuoteString(it.Name)+", "+flavor.QuoteString(f.seal.mac(key, it))+")")
		if containsItem(f.Forged, it) {
			stale = append(stale, "(kind = "+flavor.QuoteString(string(it.Kind))+" AND name = "+flavor.QuoteString(it.Name)+")")
		}
	}
	// A row someone else wrote under a name orch now makes gives way to
	// orch's own (the decision that orch may own it was made first).
	if len(stale) > 0 {
		stmts = append(stmts, "DELETE FROM "+recordTable+" WHERE "+strings.Join(stale, " OR "))
	}
	stmts = append(stmts, "INSERT IGNORE INTO "+recordTable+" (kind, name, mac) VALUES "+strings.Join(values, ", "))
	for _, it := range add {
		if it.Kind == KindSchema && !f.Schemas[it.Name] && it.Name != RecordSchema {
			stmts = append(stmts, "CREATE DATABASE IF NOT EXISTS "+flavor.QuoteIdent(it.Name))
		}
	}
	if err := q.Exec(ctx, stmts...); err != nil {
		return fmt.Errorf("record what orch makes in %s: %w", RecordItem, err)
	}
	for _, it := range add {
		f.Owned[it] = true
		if it.Kind == KindSchema {
			f.Schemas[it.Name] = true
		}
	}
	f.Tables[RecordItem.Name] = true
	f.hasMAC = true
	return nil
}

// Unclaim removes items from the record once orch has dropped them.
func Unclaim(ctx context.Context, q sqlrows.Session, f *Found, items []Item) error {
	var conds []string
	for _, it := range items {
		if f.Owned[it] {
			conds = append(conds, "(kind = "+flavor.QuoteString(string(it.Kind))+" AND name = "+flavor.QuoteString(it.Name)+")")
		}
	}
	if len(conds) == 0 {
		return nil
	}
	if err := q.Exec(ctx, "DELETE FROM "+recordTable+" WHERE "+strings.Join(conds, " OR ")); err != nil {
		return fmt.Errorf("update orch's record %s: %w", RecordItem, err)
	}
	for _, it := range items {
		delete(f.Owned, it)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsItem(list []Item, it Item) bool {
	for _, x := range list {
		if x == it {
			return true
		}
	}
	return false
}

func appendNew(list []Item, it Item) []Item {
	if containsItem(list, it) {
		return list
	}
	return append(list, it)
}

// DB is a session through orch's own account (a pool: Exec pins one
// connection so that sql_log_bin = 0 covers every statement). Look, Claim
// and Unclaim take it or Socket: both run Exec with binary logging off.
type DB struct{ *dbsql.DB }

// Query implements sqlrows.Session.
func (d DB) Query(ctx context.Context, q string) ([][]string, error) {
	t, err := sqlrows.Query(ctx, d.DB, q)
	if err != nil {
		return nil, err
	}
	return t.Strings(), nil
}

// Exec implements sqlrows.Session, with binary logging off.
func (d DB) Exec(ctx context.Context, stmts ...string) error {
	c, err := d.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, s := range append(append([]string{"SET SESSION sql_log_bin = 0"}, stmts...), "SET SESSION sql_log_bin = 1") {
		if _, err := c.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// Socket is a session through root's unix socket on the host (a stock
// server, before orch has an account there).
type Socket struct{ Ex executor.Executor }

const queryScript = `if command -v mariadb >/dev/null 2>&1; then exec mariadb --batch --skip-column-names; fi; exec mysql --batch --skip-column-names`

// Query implements sqlrows.Session.
func (s Socket) Query(ctx context.Context, q string) ([][]string, error) {
	res, err := s.Ex.Run(ctx, executor.Command{Script: queryScript, Sudo: true, Stdin: strings.NewReader(q + ";\n")})
	if err != nil {
		return nil, socketErr(res, err)
	}
	var out [][]string
	for _, line := range strings.Split(strings.TrimRight(string(res.Stdout), "\n"), "\n") {
		if line != "" {
			out = append(out, strings.Split(line, "\t"))
		}
	}
	return out, nil
}

// Exec implements sqlrows.Session, with binary logging off.
func (s Socket) Exec(ctx context.Context, stmts ...string) error {
	script := "SET SESSION sql_log_bin = 0;\n" + strings.Join(stmts, ";\n") + ";\n"
	res, err := s.Ex.Run(ctx, executor.Command{Script: clientScript, Sudo: true, Stdin: strings.NewReader(script)})
	if err != nil {
		return socketErr(res, err)
	}
	return nil
}

func socketErr(res executor.Result, err error) error {
	if msg := string(bytes.TrimSpace(res.Stderr)); msg != "" {
		return fmt.Errorf("through root's unix socket: %s", msg)
	}
	return fmt.Errorf("through root's unix socket: %w", err)
}
