package dataset

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/sqlrows"
)

// Timeouts.
const (
	// StatementTimeout bounds catalogue queries and status reads.
	StatementTimeout = 30 * time.Second
	// ScanTimeout bounds one statement that reads a whole table
	// (CHECKSUM TABLE, COUNT(*)): long enough for tens of millions of rows
	// on a slow disk, short of forever.
	ScanTimeout = time.Hour
)

// quoteIdent returns name as one backquoted SQL identifier.
func quoteIdent(name string) (string, error) {
	if name == "" || !utf8.ValidString(name) || strings.IndexByte(name, 0) >= 0 {
		return "", fmt.Errorf("identifier %q: want non-empty UTF-8 without NUL", name)
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`", nil
}

// qualified returns `db`.`table`.
func qualified(database, table string) (string, error) {
	d, err := quoteIdent(database)
	if err != nil {
		return "", err
	}
	t, err := quoteIdent(table)
	if err != nil {
		return "", err
	}
	return d + "." + t, nil
}

// queryRows runs q under timeout d and returns every row as strings (NULL
// as nil) with the column names.
func queryRows(ctx context.Context, q sqlrows.Querier, d time.Duration, query string, args ...any) ([]string, [][]*string, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	t, err := sqlrows.Query(ctx, q, query, args...)
	if err != nil {
		return nil, nil, timeoutErr(ctx, start, err)
	}
	out := make([][]*string, len(t.Rows))
	for i, r := range t.Rows {
		out[i] = make([]*string, len(r))
		for j, v := range r {
			if v.Valid {
				s := v.String
				out[i][j] = &s
			}
		}
	}
	return t.Cols, out, nil
}

// queryValue returns the first column of the single row q returns; nil for
// NULL. No row is an error.
func queryValue(ctx context.Context, q sqlrows.Querier, d time.Duration, query string, args ...any) (*string, error) {
	_, rows, err := queryRows(ctx, q, d, query, args...)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || len(rows[0]) == 0 {
		return nil, errors.New("no row")
	}
	return rows[0][0], nil
}

// timeoutErr says "no answer within 30s" rather than the driver's bare
// "context deadline exceeded".
func timeoutErr(ctx context.Context, start time.Time, err error) error {
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s: %w", time.Since(start).Round(100*time.Millisecond), err)
	}
	return err
}

// str dereferences a nullable value, NULL reading as "NULL".
func str(v *string) string {
	if v == nil {
		return "NULL"
	}
	return *v
}

func checkNodes(master *server.Node, slaves []*server.Node) error {
	for i, n := range append([]*server.Node{master}, slaves...) {
		what := "master"
		if i > 0 {
			what = fmt.Sprintf("slave %d", i)
		}
		if n == nil || n.Host == nil || n.DB == nil {
			return fmt.Errorf("%s: no host or no connection", what)
		}
	}
	return nil
}
