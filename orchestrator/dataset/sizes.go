package dataset

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/shell"
)

// SizeOptions say how Sizes measures.
type SizeOptions struct {
	// Exec runs du -sb on the server's host (with sudo: the datadir
	// belongs to the server's user). Nil: the datadir size is the sum of
	// every table's data and index length, which leaves out logs.
	Exec executor.Executor
	// Refresh brings the catalogue up to date first: MyRocks memtables are
	// flushed to disk (until then its tables read as 0 bytes) and each
	// table is analysed, without binary logging (ANALYZE NO_WRITE_TO_BINLOG),
	// so InnoDB's lengths are current after a write-heavy run.
	Refresh bool
}

// erOptionPreventsStatement is MySQL's ER_OPTION_PREVENTS_STATEMENT (1290):
// a replica's super_read_only refuses ANALYZE TABLE, which writes the
// persistent statistics tables.
const erOptionPreventsStatement = 1290

// errReadOnlyStats: the server's statistics could not be refreshed; its
// lengths are those of InnoDB's last automatic statistics update.
var errReadOnlyStats = errors.New("catalogue not refreshed: the server is read-only for ANALYZE TABLE (super_read_only); lengths are from InnoDB's last automatic statistics update")

// Sizes reports the data and index length of every base table of database,
// per table and per engine, and the datadir's size on disk.
func Sizes(ctx context.Context, db *sql.DB, database string, opts SizeOptions) (*SizeReport, error) {
	stale := ""
	if opts.Refresh {
		if err := refresh(ctx, db, database); errors.Is(err, errReadOnlyStats) {
			stale = err.Error()
		} else if err != nil {
			return nil, err
		}
	}
	_, rows, err := queryRows(ctx, db, StatementTimeout,
		"SELECT TABLE_NAME, ENGINE, TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH, DATA_FREE FROM information_schema.TABLES "+
			"WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME", database)
	if err != nil {
		return nil, fmt.Errorf("table sizes of %s: %w", database, err)
	}
	rep := &SizeReport{Database: database, Note: stale}
	engines := map[string]*EngineSize{}
	for _, r := range rows {
		t := TableSize{Table: str(r[0]), Engine: strings.ToLower(str(r[1]))}
		for i, p := range []*int64{&t.Rows, &t.DataBytes, &t.IndexBytes, &t.FreeBytes} {
			if r[2+i] == nil {
				continue
			}
			var wrapped bool
			if *p, wrapped, err = catalogCount(*r[2+i]); err != nil {
				return nil, fmt.Errorf("table sizes of %s.%s: %w", database, t.Table, err)
			}
			if wrapped {
				col := []string{"TABLE_ROWS", "DATA_LENGTH", "INDEX_LENGTH", "DATA_FREE"}[i]
				rep.Note = strings.TrimPrefix(rep.Note+"; "+fmt.Sprintf("%s.%s: the %s catalogue's %s is a negative estimate (%s read as unsigned): counted as 0",
					database, t.Table, t.Engine, col, *r[2+i]), "; ")
			}
		}
		rep.Tables = append(rep.Tables, t)
		rep.DataBytes += t.DataBytes
		rep.IndexBytes += t.IndexBytes
		e := engines[t.Engine]
		if e == nil {
			e = &EngineSize{Engine: t.Engine}
			engines[t.Engine] = e
		}
		e.Tables++
		e.DataBytes += t.DataBytes
		e.IndexBytes += t.IndexBytes
	}
	for _, e := range engines {
		rep.Engines = append(rep.Engines, *e)
	}
	sort.Slice(rep.Engines, func(i, j int) bool { return rep.Engines[i].Engine < rep.Engines[j].Engine })

	v, err := queryValue(ctx, db, StatementTimeout, "SELECT @@datadir")
	if err != nil {
		return nil, fmt.Errorf("datadir: %w", err)
	}
	rep.Datadir = strings.TrimSuffix(str(v), "/")
	if opts.Exec != nil {
		logs, err := readLogBasenames(ctx, db)
		if err == nil {
			err = duSizes(ctx, opts.Exec, rep, logs)
		}
		if err == nil {
			return rep, nil
		}
		rep.Note = strings.TrimPrefix(rep.Note+"; du failed, datadir size from "+SourceCatalog+": "+err.Error(), "; ")
	}
	return rep, catalogDatadir(ctx, db, rep)
}

// refresh makes the catalogue describe what is on disk now.
func refresh(ctx context.Context, db *sql.DB, database string) error {
	_, rows, err := queryRows(ctx, db, StatementTimeout,
		"SELECT TABLE_NAME, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'", database)
	if err != nil {
		return fmt.Errorf("table sizes of %s: %w", database, err)
	}
	used := map[string]bool{}
	var names []string
	for _, r := range rows {
		n, err := qualified(database, str(r[0]))
		if err != nil {
			return err
		}
		engine := strings.ToLower(str(r[1]))
		used[engine] = true
		if e, ok := flavor.LookupEngine(engine); ok && e.NoAnalyze != "" {
			continue // its sizes come from its files (EngineDiskBytes)
		}
		names = append(names, n)
	}
	for _, e := range flavor.EngineSpecs() {
		if e.FlushStmt == "" || !used[e.Name] {
			continue
		}
		fctx, cancel := context.WithTimeout(ctx, StatementTimeout)
		_, err := db.ExecContext(fctx, e.FlushStmt)
		cancel()
		if err != nil {
			return fmt.Errorf("flush %s: %s: %w", e.Display, e.FlushStmt, err)
		}
	}
	for _, n := range names {
		// ANALYZE reports failures as rows (Msg_type error), not errors.
		_, rows, err := queryRows(ctx, db, ScanTimeout, "ANALYZE NO_WRITE_TO_BINLOG TABLE "+n)
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == erOptionPreventsStatement {
			return fmt.Errorf("%w (analyze %s: %s)", errReadOnlyStats, n, me.Message)
		}
		if err != nil {
			return fmt.Errorf("analyze %s: %w", n, err)
		}
		for _, r := range rows {
			if len(r) >= 4 && strings.EqualFold(str(r[2]), "error") {
				return fmt.Errorf("analyze %s: %s", n, str(r[3]))
			}
		}
	}
	return nil
}

// logBasenames are the binary and relay logs' file name stems ("" when the
// server writes none), as the server resolved them.
type logBasenames struct{ binlog, relay string }

func readLogBasenames(ctx context.Context, db *sql.DB) (logBasenames, error) {
	var out logBasenames
	for _, q := range []struct {
		v    *string
		name string
	}{{&out.binlog, "log_bin_basename"}, {&out.relay, "relay_log_basename"}} {
		_, rows, err := queryRows(ctx, db, StatementTimeout, "SHOW GLOBAL VARIABLES LIKE '"+q.name+"'")
		if err != nil {
			return out, fmt.Errorf("%s: %w", q.name, err)
		}
		if len(rows) == 1 && len(rows[0]) == 2 {
			*q.v = str(rows[0][1])
		}
	}
	return out, nil
}

// Labels duScript prints for totals of several files: duFiles + an engine
// name, or one of the logs.
const (
	duFiles  = "files:"
	duBinlog = duFiles + "binlog"
	duRelay  = duFiles + "relay"
)

// duScript prints "bytes<TAB>path" for the datadir ("."), the engines'
// directories and the database's that exist, then "bytes<TAB>files:KIND"
// totals of the database's table files of each engine that keeps them
// apart (InnoDB's .ibd, TokuDB's .tokudb) and of the binary and relay logs.
func duScript(datadir, database string, logs logBasenames) string {
	database = fileName(database)
	dirs := []string{}
	for _, e := range flavor.EngineSpecs() {
		if e.DataDir != "" {
			dirs = append(dirs, e.DataDir)
		}
	}
	var b strings.Builder
	b.WriteString("cd " + shell.Quote(datadir) + " || exit 1\n" +
		"for p in . " + shell.Join(append(dirs, database)...) + "; do\n" +
		`  if [ -e "$p" ]; then du -sb -- "$p" || exit 1; fi` + "\ndone\n" +
		// total LABEL FILE...: the files' bytes, when there is any.
		"total() { l=$1; shift; [ -e \"$1\" ] || return 0; printf '%s\\t%s\\n' \"$(du -cb -- \"$@\" | tail -n 1 | cut -f 1)\" \"$l\"; }\n")
	for _, e := range flavor.EngineSpecs() {
		if g := e.TableFiles; !g.IsZero() {
			b.WriteString("total " + duFiles + e.Name + " " + g.Before + shell.Quote(database) + g.After + "\n")
		}
	}
	for _, l := range []struct{ label, base string }{{duBinlog, logs.binlog}, {duRelay, logs.relay}} {
		if l.base != "" {
			b.WriteString("total " + l.label + " " + shell.Quote(l.base) + ".[0-9]*\n")
		}
	}
	return b.String()
}

func duSizes(ctx context.Context, ex executor.Executor, rep *SizeReport, logs logBasenames) error {
	res, err := ex.Run(ctx, executor.Command{Script: duScript(rep.Datadir, rep.Database, logs), Sudo: true, Timeout: StatementTimeout})
	if err != nil {
		return err
	}
	sizes, err := parseDu(string(res.Stdout))
	if err != nil {
		return err
	}
	total, ok := sizes["."]
	if !ok {
		return fmt.Errorf("du printed no size for %s", rep.Datadir)
	}
	delete(sizes, ".")
	rep.DatadirBytes, rep.DatadirSource = total, SourceDu
	applyFileTotals(rep, sizes)
	if len(sizes) > 0 {
		rep.Paths = sizes
	}
	return nil
}

// applyFileTotals moves duScript's file totals out of the path sizes into
// the engine and log figures.
func applyFileTotals(rep *SizeReport, sizes map[string]int64) {
	rep.EngineDiskBytes = map[string]int64{}
	take := func(key string) (int64, bool) {
		v, ok := sizes[key]
		delete(sizes, key)
		return v, ok
	}
	for _, e := range flavor.EngineSpecs() {
		if v, ok := take(duFiles + e.Name); ok && !e.TableFiles.IsZero() {
			rep.EngineDiskBytes[e.Name] = v
		}
		if v, ok := sizes[e.DataDir]; ok && e.DataDir != "" {
			rep.EngineDiskBytes[e.Name] = v
		}
	}
	rep.BinlogBytes, _ = take(duBinlog)
	rep.RelayLogBytes, _ = take(duRelay)
	if len(rep.EngineDiskBytes) == 0 {
		rep.EngineDiskBytes = nil
	}
}

// fileName is database as the server names its directory and files: every
// character but an ASCII letter, digit or '_' as '@' and four hex digits
// of its code (MySQL and MariaDB manuals, "Identifier Mapping to File
// Names": a schema bench$1 is the directory bench@00241). Workloads allow
// only ASCII letters, digits, '_' and '$' in a database name
// (bench.Workload's check); the manual's shorter codes for some non-ASCII
// letters are therefore never needed.
func fileName(database string) string {
	var b strings.Builder
	for _, r := range database {
		switch {
		case r == '_', r >= '0' && r <= '9', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "@%04x", r)
		}
	}
	return b.String()
}

// parseDu reads du -sb lines: "bytes<TAB>path".
func parseDu(out string) (map[string]int64, error) {
	sizes := map[string]int64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		n, p, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			return nil, fmt.Errorf("du output %q: want bytes<TAB>path", sc.Text())
		}
		b, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("du output %q: %w", sc.Text(), err)
		}
		sizes[p] = b
	}
	return sizes, nil
}

// catalogDatadir sums every table's lengths, for a host without du.
func catalogDatadir(ctx context.Context, db *sql.DB, rep *SizeReport) error {
	v, err := queryValue(ctx, db, StatementTimeout,
		"SELECT COALESCE(SUM(DATA_LENGTH + INDEX_LENGTH), 0) FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE'")
	if err != nil {
		return fmt.Errorf("datadir size from %s: %w", SourceCatalog, err)
	}
	n, err := strconv.ParseInt(str(v), 10, 64)
	if err != nil {
		return fmt.Errorf("datadir size from %s: %w", SourceCatalog, err)
	}
	rep.DatadirBytes, rep.DatadirSource = n, SourceCatalog
	return nil
}

// DropBeyond drops the benchmark tables numbered beyond the spec's table
// count (sbtest3 and sbtest4 left by a wider earlier workload when this
// one wants two), so that they are neither counted in the footprint nor
// make every later dataset check fail: the client's own cleanup drops only
// the tables it was told about. The drops are binary-logged, so the slaves
// drop them too. It returns the tables dropped.
func DropBeyond(ctx context.Context, db *sql.DB, spec Spec) ([]string, error) {
	if err := spec.validate(); err != nil {
		return nil, fmt.Errorf("dataset spec: %w", err)
	}
	_, rows, err := queryRows(ctx, db, StatementTimeout,
		"SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'", spec.Database)
	if err != nil {
		return nil, fmt.Errorf("list tables of %s: %w", spec.Database, err)
	}
	var dropped []string
	for _, r := range rows {
		name := str(r[0])
		if n, ok := benchmarkIndex(spec.prefix(), name); !ok || n <= spec.Tables {
			continue
		}
		q, err := qualified(spec.Database, name)
		if err != nil {
			return dropped, err
		}
		dctx, cancel := context.WithTimeout(ctx, StatementTimeout)
		_, err = db.ExecContext(dctx, "DROP TABLE IF EXISTS "+q)
		cancel()
		if err != nil {
			return dropped, fmt.Errorf("drop %s: %w", q, err)
		}
		dropped = append(dropped, name)
	}
	sort.Strings(dropped)
	return dropped, nil
}

// catalogCount reads an information_schema count. An engine's estimate
// can go below zero and the catalogue shows it as an unsigned 64-bit
// number (MariaDB 10.5's TokuDB, DATA_FREE after a write run on the lab:
// 18446744073704469278): wrapped is then true and the count 0.
func catalogCount(s string) (n int64, wrapped bool, err error) {
	u, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		n, err = strconv.ParseInt(s, 10, 64)
		return n, false, err
	}
	if u > math.MaxInt64 {
		return 0, true, nil
	}
	return int64(u), false, nil
}
