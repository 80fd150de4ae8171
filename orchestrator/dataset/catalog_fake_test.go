package dataset

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"

	"github.com/orch-bench/orch/orchestrator/internal/sqlfake"
)

// mariaCatalog is one MariaDB 10.11 server as a client sees its catalogue,
// written from the manual: information_schema.SCHEMATA and .TABLES (a view
// has TABLE_TYPE 'VIEW' and NULL for ENGINE and every length),
// SELECT COUNT(*), CHECKSUM TABLE (NULL for a table that does not exist),
// ANALYZE TABLE (its failures are rows, Msg_type Error), DROP TABLE IF
// EXISTS, SELECT @@var, SHOW GLOBAL VARIABLES LIKE and SET GLOBAL. The
// lengths it reports are the statistics' (InnoDB's are brought up to date
// by ANALYZE; MyRocks' memtable counts only once flushed). A statement it
// does not know fails with error 1064, so a test sees every new one.
type mariaCatalog struct {
	mu      sync.Mutex
	schemas map[string]bool
	tables  []*mariaTable // the order information_schema happens to list them in
	vars    map[string]string
	myrocks bool // the ROCKSDB plugin is loaded (its variables exist)
	// readOnly: ANALYZE is refused with 1290, as on a read-only replica.
	readOnly bool
	// refuse, when set, fails the statements it returns an error for.
	refuse func(q string) error
	// hang: no statement is ever answered (a stalled server).
	hang bool
	// log is every statement received; binlog those written to the
	// binary log (replayed by the slaves); counted the tables a COUNT(*)
	// read in full, as schema.table.
	log, binlog, counted []string
}

type mariaTable struct {
	schema, name, kind, engine string
	count                      int64  // SELECT COUNT(*)
	checksum                   string // CHECKSUM TABLE
	estimate                   int64  // TABLE_ROWS
	data, index, free          int64  // as the statistics say
	// onDisk are DATA_LENGTH and INDEX_LENGTH once the statistics are
	// current (after ANALYZE, and for MyRocks a memtable flush).
	onDisk  [2]int64
	flushed bool
	crashed bool // ANALYZE reports it marked as crashed
}

func newMariaCatalog() *mariaCatalog {
	c := &mariaCatalog{schemas: map[string]bool{}, vars: map[string]string{
		"datadir": "/var/lib/mysql/", "log_bin_basename": "/var/lib/mysql/mysql-bin",
		"relay_log_basename": "/var/lib/mysql/db1-relay-bin", "version": "10.11.6-MariaDB-log",
	}}
	// Every server has the mysql schema; since 10.4 mysql.user is a view
	// over mysql.global_priv, an Aria table.
	c.add(&mariaTable{schema: "mysql", name: "global_priv", engine: "Aria", count: 5, estimate: 5, data: 4096, index: 8192})
	c.add(&mariaTable{schema: "mysql", name: "user", kind: "VIEW"})
	return c
}

// add creates a table (BASE TABLE unless kind says otherwise) and its schema.
func (c *mariaCatalog) add(t *mariaTable) *mariaTable {
	if t.kind == "" {
		t.kind = "BASE TABLE"
	}
	c.schemas[t.schema] = true
	c.tables = append(c.tables, t)
	return t
}

// sbtest adds n InnoDB tables <name>1..<name>n of rows rows each to schema.
func (c *mariaCatalog) sbtest(schema, name string, n int, rows int64) {
	for i := 1; i <= n; i++ {
		c.add(&mariaTable{schema: schema, name: name + strconv.Itoa(i), engine: "InnoDB", count: rows, estimate: rows,
			checksum: strconv.Itoa(1000003 * i), data: 16384 * (rows/64 + 1), index: 16384})
	}
}

func (c *mariaCatalog) find(schema, name string) *mariaTable {
	for _, t := range c.tables {
		if t.schema == schema && t.name == name {
			return t
		}
	}
	return nil
}

// names lists schema's tables, sorted.
func (c *mariaCatalog) names(schema string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, t := range c.tables {
		if t.schema == schema {
			out = append(out, t.name)
		}
	}
	sort.Strings(out)
	return out
}

// scanned lists the tables counted in full, as schema.table.
func (c *mariaCatalog) scanned() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.counted...)
}

// received lists the statements received that begin with prefix.
func (c *mariaCatalog) received(prefix string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, q := range c.log {
		if strings.HasPrefix(q, prefix) {
			out = append(out, q)
		}
	}
	return out
}

func mariaError(num uint16, msg string) error { return &mysql.MySQLError{Number: num, Message: msg} }

// errLostConnection is client error 2013, as the driver reports a server
// that went away in the middle of a statement.
var errLostConnection = mariaError(2013, "Lost connection to server during query")

var (
	reSchemata  = regexp.MustCompile(`^SELECT SCHEMA_NAME FROM information_schema\.SCHEMATA WHERE SCHEMA_NAME = ('(?:[^'\\]|\\.|'')*')$`)
	reISTables  = regexp.MustCompile(`^SELECT (.+?) FROM information_schema\.TABLES(?: WHERE (.+?))?(?: ORDER BY (\w+))?$`)
	reCondition = regexp.MustCompile(`^(\w+) = ('(?:[^'\\]|\\.|'')*')$`)
	reSum       = regexp.MustCompile(`^COALESCE\(SUM\((\w+) \+ (\w+)\), 0\)$`)
	reCount     = regexp.MustCompile("^SELECT COUNT\\(\\*\\) FROM (`(?:[^`]|``)+`)\\.(`(?:[^`]|``)+`)$")
	reChecksum  = regexp.MustCompile("^CHECKSUM TABLE (`(?:[^`]|``)+`)\\.(`(?:[^`]|``)+`)$")
	reAnalyze   = regexp.MustCompile("^ANALYZE (NO_WRITE_TO_BINLOG |LOCAL )?TABLE (`(?:[^`]|``)+`)\\.(`(?:[^`]|``)+`)$")
	reDrop      = regexp.MustCompile("^DROP TABLE IF EXISTS (`(?:[^`]|``)+`)\\.(`(?:[^`]|``)+`)$")
	reSelectVar = regexp.MustCompile(`^SELECT @@(?:GLOBAL\.)?(\w+)$`)
	reShowLike  = regexp.MustCompile(`^SHOW GLOBAL VARIABLES LIKE ('(?:[^'\\]|\\.|'')*')$`)
	reSetGlobal = regexp.MustCompile(`^SET GLOBAL (\w+) = (\w+)$`)
)

// literal reads a quoted string literal: doubled quotes and backslash
// escapes.
func literal(s string) string {
	s = s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case s[i] == '\'' && i+1 < len(s):
			i++
			b.WriteByte('\'')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// ident reads a backquoted identifier.
func ident(s string) string { return strings.ReplaceAll(s[1:len(s)-1], "``", "`") }

// column is one information_schema.TABLES column of t; nil is NULL.
func (t *mariaTable) column(name string) (any, bool) {
	num := func(v int64) any {
		if t.kind != "BASE TABLE" {
			return nil
		}
		return strconv.FormatInt(v, 10)
	}
	switch strings.ToUpper(name) {
	case "TABLE_SCHEMA":
		return t.schema, true
	case "TABLE_NAME":
		return t.name, true
	case "TABLE_TYPE":
		return t.kind, true
	case "ENGINE":
		if t.kind != "BASE TABLE" {
			return nil, true
		}
		return t.engine, true
	case "TABLE_ROWS":
		return num(t.estimate), true
	case "DATA_LENGTH":
		return num(t.data), true
	case "INDEX_LENGTH":
		return num(t.index), true
	case "DATA_FREE":
		if t.engine == "ROCKSDB" { // MyRocks does not report free space
			return nil, true
		}
		return num(t.free), true
	}
	return nil, false
}

func (c *mariaCatalog) Handle(ctx context.Context, q string) (sqlfake.Result, error) {
	c.mu.Lock()
	c.log = append(c.log, q)
	hang, refuse := c.hang, c.refuse
	c.mu.Unlock()
	if hang {
		<-ctx.Done()
		return sqlfake.Result{}, ctx.Err()
	}
	if refuse != nil {
		if err := refuse(q); err != nil {
			return sqlfake.Result{}, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	one := func(col string, v any) sqlfake.Result {
		return sqlfake.Result{Cols: []string{col}, Rows: [][]any{{v}}}
	}
	if m := reSchemata.FindStringSubmatch(q); m != nil {
		r := sqlfake.Result{Cols: []string{"SCHEMA_NAME"}}
		if name := literal(m[1]); c.schemas[name] {
			r.Rows = append(r.Rows, []any{name})
		}
		return r, nil
	}
	if m := reISTables.FindStringSubmatch(q); m != nil {
		return c.selectTables(selectList(m[1]), m[2], m[3])
	}
	if m := reCount.FindStringSubmatch(q); m != nil {
		t := c.find(ident(m[1]), ident(m[2]))
		if t == nil {
			return sqlfake.Result{}, mariaError(1146, fmt.Sprintf("Table '%s.%s' doesn't exist", ident(m[1]), ident(m[2])))
		}
		c.counted = append(c.counted, t.schema+"."+t.name)
		return one("COUNT(*)", strconv.FormatInt(t.count, 10)), nil
	}
	if m := reChecksum.FindStringSubmatch(q); m != nil {
		r := sqlfake.Result{Cols: []string{"Table", "Checksum"}, Rows: [][]any{{ident(m[1]) + "." + ident(m[2]), nil}}}
		if t := c.find(ident(m[1]), ident(m[2])); t != nil {
			r.Rows[0][1] = t.checksum
		}
		return r, nil
	}
	if m := reAnalyze.FindStringSubmatch(q); m != nil {
		if c.readOnly {
			return sqlfake.Result{}, mariaError(1290, "The MariaDB server is running with the --read-only option so it cannot execute this statement")
		}
		name := ident(m[2]) + "." + ident(m[3])
		r := sqlfake.Result{Cols: []string{"Table", "Op", "Msg_type", "Msg_text"}}
		switch t := c.find(ident(m[2]), ident(m[3])); {
		case t == nil:
			r.Rows = [][]any{{name, "analyze", "Error", fmt.Sprintf("Table '%s' doesn't exist", name)}, {name, "analyze", "status", "Operation failed"}}
		case t.crashed:
			r.Rows = [][]any{{name, "analyze", "Error", fmt.Sprintf("Table './%s/%s' is marked as crashed and should be repaired", t.schema, t.name)},
				{name, "analyze", "status", "Operation failed"}}
		default:
			if t.engine != "ROCKSDB" || t.flushed {
				t.data, t.index = t.onDisk[0], t.onDisk[1]
			}
			r.Rows = [][]any{{name, "analyze", "status", "Engine-independent statistics collected"}, {name, "analyze", "status", "OK"}}
		}
		if m[1] == "" {
			c.binlog = append(c.binlog, q)
		}
		return r, nil
	}
	if m := reDrop.FindStringSubmatch(q); m != nil {
		for i, t := range c.tables {
			if t.schema == ident(m[1]) && t.name == ident(m[2]) {
				c.tables = append(c.tables[:i], c.tables[i+1:]...)
				break
			}
		}
		c.binlog = append(c.binlog, q)
		return sqlfake.Result{}, nil
	}
	if m := reSelectVar.FindStringSubmatch(q); m != nil {
		v, ok := c.vars[strings.ToLower(m[1])]
		if !ok {
			return sqlfake.Result{}, mariaError(1193, "Unknown system variable '"+m[1]+"'")
		}
		return one(q[len("SELECT "):], v), nil
	}
	if m := reShowLike.FindStringSubmatch(q); m != nil {
		pat := regexp.QuoteMeta(literal(m[1]))
		pat = strings.NewReplacer("%", ".*", "_", ".").Replace(pat)
		re := regexp.MustCompile("(?i)^" + pat + "$")
		r := sqlfake.Result{Cols: []string{"Variable_name", "Value"}}
		var names []string
		for k := range c.vars {
			if re.MatchString(k) {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		for _, k := range names {
			r.Rows = append(r.Rows, []any{k, c.vars[k]})
		}
		return r, nil
	}
	if m := reSetGlobal.FindStringSubmatch(q); m != nil {
		if m[1] == "rocksdb_force_flush_memtable_now" && c.myrocks {
			for _, t := range c.tables {
				t.flushed = t.flushed || t.engine == "ROCKSDB"
			}
			return sqlfake.Result{}, nil
		}
		return sqlfake.Result{}, mariaError(1193, "Unknown system variable '"+m[1]+"'")
	}
	return sqlfake.Result{}, mariaError(1064, "You have an error in your SQL syntax (fake server does not know: "+q+")")
}

// selectList splits a select list at the commas outside parentheses.
func selectList(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, ch := range s {
		switch ch {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// selectTables answers SELECT cols FROM information_schema.TABLES [WHERE
// col = 'v' AND ...] [ORDER BY col].
func (c *mariaCatalog) selectTables(cols []string, where, order string) (sqlfake.Result, error) {
	conds := map[string]string{}
	if where != "" {
		for _, part := range strings.Split(where, " AND ") {
			m := reCondition.FindStringSubmatch(part)
			if m == nil {
				return sqlfake.Result{}, mariaError(1064, "fake server: condition "+part)
			}
			conds[strings.ToUpper(m[1])] = literal(m[2])
		}
	}
	var match []*mariaTable
	for _, t := range c.tables {
		ok := true
		for col, want := range conds {
			v, known := t.column(col)
			if !known {
				return sqlfake.Result{}, mariaError(1054, "Unknown column '"+col+"' in 'where clause'")
			}
			ok = ok && v == want
		}
		if ok {
			match = append(match, t)
		}
	}
	if order != "" {
		sort.SliceStable(match, func(i, j int) bool {
			a, _ := match[i].column(order)
			b, _ := match[j].column(order)
			return fmt.Sprint(a) < fmt.Sprint(b)
		})
	}
	r := sqlfake.Result{Cols: cols}
	if len(cols) == 1 {
		if m := reSum.FindStringSubmatch(cols[0]); m != nil {
			var sum int64
			for _, t := range match {
				a, _ := t.column(m[1])
				b, _ := t.column(m[2])
				if a != nil && b != nil { // NULL + x is NULL, which SUM skips
					x, _ := strconv.ParseInt(a.(string), 10, 64)
					y, _ := strconv.ParseInt(b.(string), 10, 64)
					sum += x + y
				}
			}
			r.Rows = [][]any{{strconv.FormatInt(sum, 10)}}
			return r, nil
		}
	}
	for _, t := range match {
		row := make([]any, len(cols))
		for i, col := range cols {
			v, known := t.column(col)
			if !known {
				return sqlfake.Result{}, mariaError(1054, "Unknown column '"+col+"' in 'field list'")
			}
			row[i] = v
		}
		r.Rows = append(r.Rows, row)
	}
	return r, nil
}
