// Package shell is the one place where values become text for a POSIX shell.
// Every command orch sends to a remote host is built from Quote or Join, so a
// hostile value (quotes, $(), newlines, ;) stays a single literal argument.
package shell

import "strings"

// Quote returns s as one single-quoted POSIX shell word. Single quotes inside
// s become: close quote, backslash-escaped quote, reopen quote. That is safe
// in every POSIX shell because nothing is special between single quotes.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	if isSafe(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each argument and joins them with spaces, producing a command
// line that a shell splits back into exactly args.
func Join(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// isSafe reports whether s needs no quoting: only characters that no shell
// treats specially. Keeping common words unquoted makes logs readable.
func isSafe(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("-_./:,+=@%", r):
		default:
			return false
		}
	}
	return true
}
