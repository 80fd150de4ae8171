package flavor

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"

	"github.com/orch-bench/orch/orchestrator/sqlrows"
)

// Run executes statements in order on one session (a phase's statements
// must share it: SET SESSION sql_log_bin applies to the statements after
// it), skipping those whose OnlyIf guard returns no row, and stops at the first failure. Errors show
// the redacted statement; for a statement holding a secret the server's
// message is scrubbed and the driver error is not wrapped, so no chain
// from Run can print the password.
func Run(ctx context.Context, s sqlrows.Session, sts []Statement) error {
	for _, st := range sts {
		if st.OnlyIf != "" {
			rows, err := s.Query(ctx, st.OnlyIf)
			if err != nil {
				return fmt.Errorf("%s: check %s: %w", st.Redacted, st.OnlyIf, err)
			}
			if len(rows) == 0 {
				continue
			}
		}
		if err := s.Exec(ctx, st.SQL); err != nil {
			if st.Secret {
				return fmt.Errorf("%s: %s", st.Redacted, scrub(err.Error(), st.secrets))
			}
			return fmt.Errorf("%s: %w", st.Redacted, err)
		}
	}
	return nil
}

// nearFragment is the statement text a server quotes in a syntax error
// ("... near 'xyz' at line 1"); it may hold part of a secret.
var nearFragment = regexp.MustCompile(`(?s)near '.*' at line (\d+)`)

// quoted is a single-quoted fragment of a server message.
var quoted = regexp.MustCompile(`'[^']*'`)

// minQuotedPrefix is how long a quoted prefix of a secret must be, without
// the server's "...", to be taken for the secret cut short.
const minQuotedPrefix = 8

// scrub removes quoted statement text and every secret from a message,
// also a secret the server quoted only in part: MariaDB's error 1470
// ("String 'abc...' is too long for MASTER_PASSWORD") shows the first
// characters of a too-long password (68 on 10.11) and "...".
func scrub(msg string, secrets []string) string {
	msg = nearFragment.ReplaceAllString(msg, "near "+Redaction+" at line $1")
	for _, s := range secrets {
		if s == "" {
			continue
		}
		msg = strings.ReplaceAll(msg, QuoteString(s), Redaction)
		msg = strings.ReplaceAll(msg, s, Redaction)
	}
	return quoted.ReplaceAllStringFunc(msg, func(q string) string {
		body := q[1 : len(q)-1]
		cut := strings.TrimSuffix(body, "...")
		for _, s := range secrets {
			if cut != "" && strings.HasPrefix(s, cut) && (cut != body || len(cut) >= min(len(s), minQuotedPrefix)) {
				return "'" + Redaction + "'"
			}
		}
		return q
	})
}

// ConnSession adapts a *sql.Conn (one pinned connection) to a Session.
func ConnSession(c *sql.Conn) sqlrows.Session { return connSession{c} }

type connSession struct{ c *sql.Conn }

func (cs connSession) Exec(ctx context.Context, stmts ...string) error {
	for _, q := range stmts {
		if _, err := cs.c.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func (cs connSession) Query(ctx context.Context, q string) ([][]string, error) {
	t, err := sqlrows.Query(ctx, cs.c, q)
	return t.Strings(), err
}
