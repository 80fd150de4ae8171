package flavor

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// QuoteString returns s as one SQL string literal for MySQL and MariaDB.
//
// A single quote is written twice rather than backslash-escaped, because a
// doubled quote means one quote both in the default sql_mode and under
// NO_BACKSLASH_ESCAPES, so in neither can the literal end early. Backslash,
// NUL, CR, LF and Ctrl-Z are backslash-escaped, which is exact in the
// default sql_mode (orch's sessions use it); under NO_BACKSLASH_ESCAPES they
// would read back as two characters, a wrong value but never an injection.
//
// Invalid UTF-8 is replaced by U+FFFD: in multi-byte client charsets such
// as GBK a stray lead byte can swallow a following backslash, so only valid
// UTF-8 (over a utf8mb4 connection) is safe to quote. Params.Resolve
// rejects such values before they get here.
func QuoteString(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0x1a:
			b.WriteString(`\Z`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// quoteAccount renders 'user'@'host'.
func quoteAccount(user, host string) string {
	return QuoteString(user) + "@" + QuoteString(host)
}

// checkText rejects values that QuoteString could not carry faithfully or
// that no server accepts: invalid UTF-8 and NUL bytes.
func checkText(what, v string) error {
	if !utf8.ValidString(v) {
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	if strings.IndexByte(v, 0) >= 0 {
		return fmt.Errorf("%s contains a NUL byte", what)
	}
	return nil
}

// QuoteIdent quotes s as an identifier (`name`, backquotes doubled), on
// every flavour (ANSI_QUOTES is never assumed).
func QuoteIdent(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}
