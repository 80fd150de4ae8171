package dataset

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/sqlrows"
)

// DefaultTablePrefix is how sysbench names its tables: sbtest1, sbtest2, ...
const DefaultTablePrefix = "sbtest"

// Spec is the benchmark data a workload prepares.
type Spec struct {
	Database string
	// Tables is how many tables: <prefix>1 .. <prefix>N.
	Tables      int
	TablePrefix string // default DefaultTablePrefix
	// TableSize is the rows per table; 0 means the count does not matter,
	// unless ExactRows says it must be exactly TableSize (a prepare that
	// leaves empty tables, like oltp_insert with auto_inc off).
	TableSize int64
	ExactRows bool
	// Engine is the storage engine (innodb, rocksdb, tokudb; any case);
	// "" means any.
	Engine string
}

func (s Spec) prefix() string {
	if s.TablePrefix == "" {
		return DefaultTablePrefix
	}
	return s.TablePrefix
}

// TableNames lists the tables the spec describes, in order.
func (s Spec) TableNames() []string {
	out := make([]string, s.Tables)
	for i := range out {
		out[i] = s.prefix() + strconv.Itoa(i+1)
	}
	return out
}

func (s Spec) validate() error {
	switch {
	case s.Database == "":
		return errors.New("no database")
	case s.Tables < 1:
		return fmt.Errorf("%d tables: want at least 1", s.Tables)
	case s.TableSize < 0:
		return fmt.Errorf("table size %d: want 0 (any) or more", s.TableSize)
	}
	for _, r := range s.prefix() {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return fmt.Errorf("table prefix %q: want letters, digits and _", s.prefix())
		}
	}
	return nil
}

// tableInfo is one row of information_schema.TABLES.
type tableInfo struct {
	name, kind, engine string
}

// Matches reports whether the database holds exactly the spec's benchmark
// tables, with its engine and, when TableSize is set, its row count, so that
// prepare can be skipped. When it does not, the reason says what differs
// ("sbtest3 is missing; sbtest1 is InnoDB, want rocksdb"). Tables not named
// like benchmark tables are ignored. The error is for a server that could
// not be asked.
func Matches(ctx context.Context, db *sql.DB, spec Spec) (bool, string, error) {
	if err := spec.validate(); err != nil {
		return false, "", fmt.Errorf("dataset spec: %w", err)
	}
	_, rows, err := queryRows(ctx, db, StatementTimeout,
		"SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", spec.Database)
	if err != nil {
		return false, "", fmt.Errorf("look up database %s: %w", spec.Database, err)
	}
	if len(rows) == 0 {
		return false, fmt.Sprintf("database %s does not exist", spec.Database), nil
	}
	_, rows, err = queryRows(ctx, db, StatementTimeout,
		"SELECT TABLE_NAME, TABLE_TYPE, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", spec.Database)
	if err != nil {
		return false, "", fmt.Errorf("list tables of %s: %w", spec.Database, err)
	}
	var tables []tableInfo
	for _, r := range rows {
		tables = append(tables, tableInfo{name: str(r[0]), kind: str(r[1]), engine: str(r[2])})
	}
	if problems := compareTables(spec, tables); len(problems) > 0 {
		return false, spec.Database + ": " + strings.Join(problems, "; "), nil
	}
	if spec.TableSize > 0 || spec.ExactRows {
		for _, t := range spec.TableNames() {
			n, err := countRows(ctx, db, spec.Database, t)
			if err != nil {
				return false, "", err
			}
			if n != spec.TableSize {
				// One table is enough to know prepare must run.
				return false, fmt.Sprintf("%s.%s has %d rows, want %d", spec.Database, t, n, spec.TableSize), nil
			}
		}
	}
	return true, describe(spec), nil
}

// compareTables lists how the benchmark tables present differ from the
// spec's, in table order.
func compareTables(spec Spec, tables []tableInfo) []string {
	want := spec.TableNames()
	have := map[string]tableInfo{}
	var extra []int
	for _, t := range tables {
		n, ok := benchmarkIndex(spec.prefix(), t.name)
		if !ok {
			continue
		}
		have[t.name] = t
		// A view beyond the tables wanted is the user's: the client never
		// touches it, and DropBeyond leaves it (it drops only tables), so
		// counting it would make every run prepare again.
		if n > spec.Tables && t.kind == "BASE TABLE" {
			extra = append(extra, n)
		}
	}
	var problems, missing []string
	for _, name := range want {
		t, ok := have[name]
		switch {
		case !ok:
			missing = append(missing, name)
		case t.kind != "BASE TABLE":
			problems = append(problems, fmt.Sprintf("%s is a %s, not a table", name, strings.ToLower(t.kind)))
		case spec.Engine != "" && !strings.EqualFold(t.engine, spec.Engine):
			problems = append(problems, fmt.Sprintf("%s is %s, want %s", name, t.engine, spec.Engine))
		}
	}
	if len(missing) > 0 {
		problems = append([]string{fmt.Sprintf("%s missing (%d of %d tables present)",
			nameList(missing), spec.Tables-len(missing), spec.Tables)}, problems...)
	}
	if len(extra) > 0 {
		sort.Ints(extra)
		names := make([]string, len(extra))
		for i, n := range extra {
			names[i] = spec.prefix() + strconv.Itoa(n)
		}
		problems = append(problems, fmt.Sprintf("%s present beyond the %d tables wanted", nameList(names), spec.Tables))
	}
	return problems
}

// benchmarkIndex returns N for a name <prefix>N (N >= 1, no leading zero).
func benchmarkIndex(prefix, name string) (int, bool) {
	num, ok := strings.CutPrefix(name, prefix)
	// Digits only, no leading zero: the client names its tables sbtest1,
	// sbtest2, ...; Atoi alone would take sbtest+5 (or sbtest-0) for one
	// of them, and orch would drop a table it did not make.
	if !ok || num == "" || num[0] == '0' || strings.Trim(num, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// nameList keeps long lists short: "sbtest3", "sbtest3, sbtest4",
// "sbtest3, sbtest4, sbtest5 and 13 more".
func nameList(names []string) string {
	const show = 3
	if len(names) <= show {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:show], ", "), len(names)-show)
}

func describe(spec Spec) string {
	s := fmt.Sprintf("%s holds %s1..%s%d", spec.Database, spec.prefix(), spec.prefix(), spec.Tables)
	if spec.Engine != "" {
		s += " (" + strings.ToLower(spec.Engine) + ")"
	}
	if spec.TableSize > 0 || spec.ExactRows {
		s += fmt.Sprintf(" with %d rows each", spec.TableSize)
	}
	return s
}

// countRows is SELECT COUNT(*): exact, unlike TABLE_ROWS, which is an
// estimate on InnoDB and RocksDB.
func countRows(ctx context.Context, q sqlrows.Querier, database, table string) (int64, error) {
	name, err := qualified(database, table)
	if err != nil {
		return 0, err
	}
	v, err := queryValue(ctx, q, ScanTimeout, "SELECT COUNT(*) FROM "+name)
	if err != nil {
		return 0, fmt.Errorf("count rows of %s.%s: %w", database, table, err)
	}
	n, err := strconv.ParseInt(str(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("count rows of %s.%s: %w", database, table, err)
	}
	return n, nil
}
