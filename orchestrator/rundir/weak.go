package rundir

import (
	"strings"
	"unicode/utf8"
)

// MinStrongLen is the length from which a secret is matched anywhere: a
// random string this long does not occur in a run directory by chance.
const MinStrongLen = 8

// commonPasswords are passwords that are also ordinary words of a run
// directory (user names, service names, values), whatever their length.
var commonPasswords = map[string]bool{
	"root": true, "mysql": true, "mariadb": true, "percona": true, "password": true, "passw0rd": true,
	"secret": true, "admin": true, "test": true, "bench": true, "orch": true, "repl": true,
	"changeme": true, "letmein": true, "qwerty": true, "123456": true, "12345678": true,
	"sysbench": true, "innodb": true, "rocksdb": true, "tokudb": true, "master": true, "slave": true,
}

// Weak reports whether a secret is too short or too common to be told
// from ordinary text: "1" is in every status file, "root" in every
// inventory. Such a secret is redacted only where it stands as a whole
// word, and the run directory's scan cannot prove it absent (see
// ScanForSecrets), so commands warn about it once.
func Weak(secret string) bool {
	return utf8.RuneCountInString(secret) < MinStrongLen || commonPasswords[strings.ToLower(secret)]
}

// WeakSecrets returns how many of the non-empty secrets are Weak.
func WeakSecrets(secrets []string) int {
	n := 0
	for _, s := range bySize(secrets) {
		if Weak(s) {
			n++
		}
	}
	return n
}

// wordByte reports whether b continues a word: a secret next to one is
// part of a longer word ("01" is not the password "1", nor is
// "r1-innodb"), not the secret.
func wordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '.' || b >= utf8.RuneSelf
}

// tokenAt reports whether sec at s[i:] stands as a whole word: the bytes
// around it do not continue it. A secret that starts or ends with a
// non-word byte bounds itself on that side.
func tokenAt(s string, i int, sec string) bool {
	j := i + len(sec)
	left := i == 0 || !wordByte(s[i-1]) || !wordByte(sec[0])
	right := j == len(s) || !wordByte(s[j]) || !wordByte(sec[len(sec)-1])
	return left && right
}

// replaceTokens replaces the whole-word occurrences of sec in s with Mask.
func replaceTokens(s, sec string) string {
	var b strings.Builder
	last := 0
	for i := 0; i+len(sec) <= len(s); {
		k := strings.Index(s[i:], sec)
		if k < 0 {
			break
		}
		at := i + k
		if tokenAt(s, at, sec) {
			b.WriteString(s[last:at])
			b.WriteString(Mask)
			last = at + len(sec)
			i = last
			continue
		}
		i = at + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// strongOnly returns the secrets that are not Weak, longest first.
func strongOnly(secrets []string) []string {
	var out []string
	for _, s := range bySize(secrets) {
		if !Weak(s) {
			out = append(out, s)
		}
	}
	return out
}
