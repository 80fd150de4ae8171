package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Mask is what a secret reads as in a run directory.
const Mask = "***"

// Redact replaces each non-empty secret in s with Mask: everywhere for a
// strong secret, only where it stands as a whole word for a Weak one, so
// the password "1" does not turn "cell 01-innodb-r1" into "cell 0***-innodb-r***".
// Longer secrets go first, so a secret containing another is masked whole.
func Redact(s string, secrets ...string) string {
	for _, sec := range bySize(secrets) {
		if Weak(sec) {
			s = replaceTokens(s, sec)
		} else {
			s = strings.ReplaceAll(s, sec, Mask)
		}
	}
	return s
}

// bySize returns the non-empty secrets, longest first, without duplicates.
func bySize(secrets []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range secrets {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// secretWords mark an option or variable name as holding a secret.
var secretWords = []string{"password", "passwd", "pwd", "passphrase", "secret"}

// referenceSuffixes mark a name whose value only says where a secret is
// (--password-file=/path, password_env=NAME): kept, it helps reproduce.
var referenceSuffixes = []string{"file", "env", "path"}

// secretName reports whether an option or variable name (dashes allowed)
// names a secret value.
func secretName(name string) bool {
	n := strings.ToLower(strings.TrimLeft(name, "-"))
	if n == "" {
		return false
	}
	for _, suf := range referenceSuffixes {
		if strings.HasSuffix(n, suf) && n != suf {
			return false
		}
	}
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// RedactArgs returns a copy of an argv with secret values masked, for the
// manifest's command line:
//
//	--mysql-password=x   -> --mysql-password=***
//	--password x         -> --password ***   (the next word, unless a flag)
//	-px                  -> -p***            (the mysql client's form)
//	MYSQL_PWD=x          -> MYSQL_PWD=***
//
// Words that hold text (SQL, DSNs) go through RedactLine, and every literal
// secret given is masked wherever it appears.
func RedactArgs(args []string, secrets ...string) []string {
	out := make([]string, len(args))
	maskNext := false
	for i, a := range args {
		switch {
		case maskNext:
			a = Mask
			maskNext = false
		case strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && secretName(a):
			maskNext = i+1 < len(args) && !strings.HasPrefix(args[i+1], "-")
		case strings.Contains(a, "=") && secretName(strings.SplitN(a, "=", 2)[0]):
			a = strings.SplitN(a, "=", 2)[0] + "=" + Mask
		case len(a) > 2 && strings.HasPrefix(a, "-p") && !strings.HasPrefix(a, "--") && !notShortP[a]:
			a = "-p" + Mask
		default:
			a = RedactLine(a)
		}
		out[i] = Redact(a, secrets...)
	}
	return out
}

// Pieces of the patterns below: a value as a shell or SQL writes it (quoted,
// or one word), and a name holding a secret word (checked again by
// secretName, which lets references such as password_file through).
const (
	sqlString    = `('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")`
	valuePattern = `('[^']*'|"[^"]*"|[^\s'"]+)`
	namePattern  = `([a-z0-9_.-]*(?:password|passwd|pwd|passphrase|secret)[a-z0-9_.-]*)`
)

var (
	// name=value, name: value, "name": "value"; the name may be a flag.
	assignRE = regexp.MustCompile(`(?i)` + namePattern + `(["']?\s*[=:]\s*)` + valuePattern)
	// --password value (a flag followed by its value as the next word).
	flagRE = regexp.MustCompile(`(?i)((?:^|\s)-{1,2})` + namePattern + `(\s+)('[^']*'|"[^"]*"|[^\s'"-][^\s'"]*)`)
	// -pvalue, the mysql client's short form.
	shortPRE = regexp.MustCompile(`((?:^|\s)-p)` + valuePattern)
	// A password literal in SQL: IDENTIFIED BY 'x', IDENTIFIED WITH plugin
	// BY 'x' (MySQL), IDENTIFIED VIA plugin USING 'x' (MariaDB),
	// PASSWORD('x'), SET PASSWORD [FOR account] = 'x'. A literal may hold
	// its quote doubled or backslash-escaped.
	sqlRE = regexp.MustCompile(`(?i)(identified\s+(?:(?:with|via)\s+\S+\s+)?(?:by|using|as)\s+|password\s*\(\s*|set\s+password\s+(?:for\s+\S+\s*)?=\s*)` + sqlString)
	// scheme://user:password@host
	dsnRE = regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*://[^\s:/@]+:)([^\s@]+)(@)`)
)

// notShortP are words that start with -p and are no -pPASSWORD: find's
// primaries, in the scripts orch sends (find DIR -perm /077 read as
// "-p*** /077" in the command log). A password that happens to read as one
// of them is still masked as a literal: orch passes every secret it knows
// to Redact.
var notShortP = map[string]bool{"-perm": true, "-path": true, "-print": true, "-print0": true, "-printf": true, "-prune": true}

// RedactLine masks secret values in one line of text, such as a shell
// command or a log line: the forms RedactArgs knows, in running text, plus
// SQL's IDENTIFIED BY '...' and a password in a URL. Then every literal
// secret given is masked.
func RedactLine(line string, secrets ...string) string {
	if !mayHoldSecret(line) {
		return Redact(line, secrets...)
	}
	line = replaceNamed(assignRE, line, 1)
	line = replaceNamed(flagRE, line, 2)
	line = shortPRE.ReplaceAllStringFunc(line, func(m string) string {
		g := shortPRE.FindStringSubmatch(m)
		if notShortP["-p"+g[2]] {
			return m
		}
		return g[1] + maskValue(g[2])
	})
	line = sqlRE.ReplaceAllString(line, "${1}'"+Mask+"'")
	line = dsnRE.ReplaceAllString(line, "${1}"+Mask+"${3}")
	return Redact(line, secrets...)
}

// mayHoldSecret reports whether any pattern of RedactLine can match: each
// needs a secret word, IDENTIFIED, -p or ://. The patterns backtrack, and
// the command log runs every script and statement orch sends through them.
func mayHoldSecret(line string) bool {
	l := strings.ToLower(line)
	for _, w := range secretWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return strings.Contains(l, "identified") || strings.Contains(l, "-p") || strings.Contains(l, "://")
}

// replaceNamed masks the value (the last group) of each match of re whose
// group nameGroup is a secret name.
func replaceNamed(re *regexp.Regexp, s string, nameGroup int) string {
	return re.ReplaceAllStringFunc(s, func(match string) string {
		m := re.FindStringSubmatch(match)
		// A value that opens a call (PASSWORD = PASSWORD('x')) is not the
		// secret: its quoted argument is, and sqlRE masks that.
		if !secretName(m[nameGroup]) || strings.HasSuffix(m[len(m)-1], "(") {
			return match
		}
		return strings.Join(m[1:len(m)-1], "") + maskValue(m[len(m)-1])
	})
}

// maskValue replaces a value, keeping its quotes so the text stays well
// formed (JSON, shell).
func maskValue(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') {
		return string(v[0]) + Mask + string(v[0])
	}
	return Mask
}

// ScanForSecrets walks a run directory and returns, sorted, the relative
// paths of the files whose name or content holds any of the secrets. Empty
// secrets are ignored; symlinks (latest) are not followed. Weak secrets are
// not looked for: as words they are in any run directory ("root" is the
// SSH user, "1" a value in every status file), so a hit would prove nothing
// and fail every run; commands warn about such a password instead.
func ScanForSecrets(dir string, secrets []string) ([]string, error) {
	secs := strongOnly(secrets)
	if len(secs) == 0 {
		return nil, nil
	}
	needles := make([][]byte, len(secs))
	for i, s := range secs {
		needles[i] = []byte(s)
	}
	var found []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if rel != "." && containsAny([]byte(rel), needles) {
			found = append(found, rel)
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() {
			return nil
		}
		hit, err := fileContainsAny(p, needles)
		if err != nil {
			return err
		}
		if hit {
			found = append(found, rel)
		}
		return nil
	})
	if err != nil {
		return found, fmt.Errorf("scan %s for secrets: %w", dir, err)
	}
	sort.Strings(found)
	return found, nil
}

func containsAny(b []byte, needles [][]byte) bool {
	for _, n := range needles {
		if bytes.Contains(b, n) {
			return true
		}
	}
	return false
}

// fileContainsAny reads p in chunks, carrying the last len(longest)-1 bytes
// over so that a secret split across two reads is still found.
func fileContainsAny(p string, needles [][]byte) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	keep := len(needles[0]) - 1 // needles are longest first
	buf := make([]byte, 0, 64<<10+keep)
	chunk := make([]byte, 64<<10)
	for {
		n, err := f.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if containsAny(buf, needles) {
			return true, nil
		}
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if len(buf) > keep {
			buf = append(buf[:0], buf[len(buf)-keep:]...)
		}
	}
}
