package flavor

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Redaction is what a secret reads as in anything printed or saved.
const Redaction = "<redacted>"

// Statement is one SQL statement to send to a server.
//
// SQL is the exact text and may hold a password; every printing path
// (String, GoString, JSON) shows Redacted instead, so a Statement can be
// logged or saved with %v without leaking.
type Statement struct {
	SQL string
	// Redacted is SQL with each secret literal replaced by '<redacted>'.
	Redacted string
	// Secret is set when SQL holds a secret.
	Secret bool
	// OnlyIf, when set, is a query that must return at least one row for
	// SQL to run: it makes a statement such as INSTALL PLUGIN, which has
	// no IF NOT EXISTS, safe to repeat. It never holds a secret.
	OnlyIf string
	// secrets are the secret values in SQL, for scrubbing server messages.
	secrets []string
}

// String is the redacted statement.
func (s Statement) String() string { return s.Redacted }

// GoString keeps %#v from printing SQL.
func (s Statement) GoString() string {
	return fmt.Sprintf("flavor.Statement{Redacted: %q, Secret: %t, OnlyIf: %q}", s.Redacted, s.Secret, s.OnlyIf)
}

// MarshalJSON writes the redacted form only.
func (s Statement) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		SQL    string `json:"sql"`
		Secret bool   `json:"secret,omitempty"`
		OnlyIf string `json:"only_if,omitempty"`
	}{s.Redacted, s.Secret, s.OnlyIf})
}

// plain is a statement without values.
func plain(sql string) Statement { return Statement{SQL: sql, Redacted: sql} }

// stmtBuilder writes the real and the redacted text side by side, so the
// two can never drift apart.
type stmtBuilder struct {
	sql, red strings.Builder
	secrets  []string
}

// raw appends trusted SQL text (keywords and names from the rule table).
func (b *stmtBuilder) raw(parts ...string) *stmtBuilder {
	for _, p := range parts {
		b.sql.WriteString(p)
		b.red.WriteString(p)
	}
	return b
}

// str appends v as a string literal.
func (b *stmtBuilder) str(v string) *stmtBuilder { return b.raw(QuoteString(v)) }

// secretStr appends v as a string literal that prints as '<redacted>'.
func (b *stmtBuilder) secretStr(v string) *stmtBuilder {
	b.sql.WriteString(QuoteString(v))
	b.red.WriteString(QuoteString(Redaction))
	b.secrets = append(b.secrets, v)
	return b
}

func (b *stmtBuilder) done() Statement {
	return Statement{SQL: b.sql.String(), Redacted: b.red.String(), Secret: len(b.secrets) > 0, secrets: b.secrets}
}

// Setting is one server variable and its value, as written in a config
// file (name=value) or set with SET GLOBAL.
type Setting struct {
	Name, Value string
}

func (s Setting) String() string { return s.Name + "=" + s.Value }

// SetGlobal renders SET GLOBAL for a setting. Numbers and ON/OFF go bare;
// anything else is a string literal (enum values such as AFTER_SYNC are
// accepted either way).
func SetGlobal(st Setting) Statement {
	b := new(stmtBuilder).raw("SET GLOBAL ", st.Name, " = ")
	if isBareValue(st.Value) {
		b.raw(st.Value)
	} else {
		b.str(st.Value)
	}
	return b.done()
}

func isBareValue(v string) bool {
	if v == "ON" || v == "OFF" {
		return true
	}
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// parseSettings reads a rule value of space-separated name=value pairs.
func parseSettings(v string) []Setting {
	var out []Setting
	for _, f := range strings.Fields(v) {
		name, val, _ := strings.Cut(f, "=")
		out = append(out, Setting{Name: name, Value: val})
	}
	return out
}

// Targets of a phase, spelled like the inventory's host selectors.
const (
	TargetMaster = "master"
	TargetSlaves = "slave" // each slave
	TargetDB     = "db"    // master and every slave
)

// Phase is a named statement sequence for one kind of host.
//
// A phase's statements must run in order on ONE session: some of them
// (SET SESSION sql_log_bin) change the session for the statements after.
type Phase struct {
	Name   string
	Target string
	// Statements run in order; the first failure stops the phase.
	Statements []Statement
	// Expect, when set, lists the (Variable_name, Value) rows that the
	// phase's single SHOW GLOBAL VARIABLES statement must return.
	Expect []Setting
}

func targetLabel(target string) string {
	if target == TargetDB {
		return "master and slaves"
	}
	return target
}

// Render prints phases as readable SQL, secrets redacted: the format of
// the golden files and of dry runs.
func Render(phases []Phase) string {
	var b strings.Builder
	for i, ph := range phases {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "-- phase: %s (%s)\n", ph.Name, targetLabel(ph.Target))
		for _, st := range ph.Statements {
			if st.OnlyIf != "" {
				fmt.Fprintf(&b, "-- only if: %s\n", st.OnlyIf)
			}
			b.WriteString(st.Redacted)
			b.WriteString(";\n")
		}
		if len(ph.Expect) > 0 {
			exp := make([]string, len(ph.Expect))
			for j, e := range ph.Expect {
				exp[j] = e.String()
			}
			fmt.Fprintf(&b, "-- expect: %s\n", strings.Join(exp, ", "))
		}
	}
	return b.String()
}
