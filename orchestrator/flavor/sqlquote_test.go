package flavor

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// readLiteral reads one single-quoted string literal at the start of sql
// the way the MySQL/MariaDB lexer does, and returns its value and the text
// after it. With noBackslashEscapes the backslash is an ordinary character
// (sql_mode NO_BACKSLASH_ESCAPES).
func readLiteral(t *testing.T, sql string, noBackslashEscapes bool) (value, rest string) {
	t.Helper()
	if !strings.HasPrefix(sql, "'") {
		t.Fatalf("literal %q does not start with a quote", sql)
	}
	var b strings.Builder
	for i := 1; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '\\' && !noBackslashEscapes:
			if i+1 == len(sql) {
				t.Fatalf("literal %q ends inside an escape", sql)
			}
			i++
			switch e := sql[i]; e {
			case '0':
				b.WriteByte(0)
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case 'Z':
				b.WriteByte(0x1a)
			case '%', '_': // kept with the backslash (LIKE patterns)
				b.WriteByte('\\')
				b.WriteByte(e)
			default:
				b.WriteByte(e)
			}
		case c == '\'' && i+1 < len(sql) && sql[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == '\'':
			return b.String(), sql[i+1:]
		default:
			b.WriteByte(c)
		}
	}
	t.Fatalf("literal %q is not terminated", sql)
	return "", ""
}

var hostileValues = []string{
	"",
	"plain",
	"it's",
	"'",
	"''",
	`\`,
	`\'`,
	`\\'`,
	`'; DROP TABLE mysql.user; -- `,
	`' OR '1'='1`,
	"x\\'; SELECT 1; #",
	"line1\nline2\r\n",
	"nul\x00byte",
	"ctrl-z\x1aend",
	"tab\tand backspace\b",
	`%_ like wildcards \% \_`,
	"$(reboot) `id` ${HOME}",
	"double \" quotes \"\"",
	"ünïcödé ✓ 密码",
	"ends with backslash \\",
	"\xbf\\' gbk lead byte before a backslash", // invalid UTF-8
}

func TestQuoteStringRoundTripsHostileValues(t *testing.T) {
	for _, v := range hostileValues {
		q := QuoteString(v)
		want := v
		if !utf8.ValidString(v) {
			want = strings.ToValidUTF8(v, "\uFFFD")
		}
		// Default sql_mode: the exact value comes back, nothing follows.
		got, rest := readLiteral(t, q, false)
		if got != want || rest != "" {
			t.Errorf("QuoteString(%q) = %s: reads back %q with %q after it", v, q, got, rest)
		}
		// NO_BACKSLASH_ESCAPES: the value may differ, but the literal must
		// still end exactly where QuoteString ended it.
		if _, rest := readLiteral(t, q, true); rest != "" {
			t.Errorf("QuoteString(%q) = %s: under NO_BACKSLASH_ESCAPES %q escapes the literal", v, q, rest)
		}
		if strings.ContainsAny(q, "\x00\n\r\x1a") {
			t.Errorf("QuoteString(%q) = %q: raw control character in output", v, q)
		}
	}
}

func TestQuoteStringExactForms(t *testing.T) {
	for v, want := range map[string]string{
		"":          `''`,
		"repl":      `'repl'`,
		"it's":      `'it''s'`,
		`a\b`:       `'a\\b'`,
		"a\nb\x00c": `'a\nb\0c'`,
	} {
		if got := QuoteString(v); got != want {
			t.Errorf("QuoteString(%q) = %s, want %s", v, got, want)
		}
	}
}

func TestCheckText(t *testing.T) {
	if err := checkText("password", "fine 'value' \\ ✓"); err != nil {
		t.Errorf("valid text rejected: %v", err)
	}
	for _, bad := range []string{"a\x00b", "\xff\xfe"} {
		if err := checkText("password", bad); err == nil {
			t.Errorf("checkText(%q) accepted", bad)
		}
	}
}

func FuzzQuoteString(f *testing.F) {
	for _, v := range hostileValues {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		q := QuoteString(v)
		want := strings.ToValidUTF8(v, "\uFFFD")
		if got, rest := readLiteral(t, q, false); got != want || rest != "" {
			t.Fatalf("QuoteString(%q) = %s: reads back %q, rest %q", v, q, got, rest)
		}
		if _, rest := readLiteral(t, q, true); rest != "" {
			t.Fatalf("QuoteString(%q) = %s: NO_BACKSLASH_ESCAPES rest %q", v, q, rest)
		}
	})
}
