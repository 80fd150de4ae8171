package shell

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "''"},
		{"plain", "plain"},
		{"/var/lib/mysql", "/var/lib/mysql"},
		{"-_./:,+=@%", "-_./:,+=@%"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{"'", `''\'''`},
		{"$(id)", "'$(id)'"},
		{"a\nb", "'a\nb'"},
		{"ü", "'ü'"},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if got := Join("mysql", "-e", "SELECT 'x'"); got != `mysql -e 'SELECT '\''x'\'''` {
		t.Errorf("Join = %s", got)
	}
}

// hostile values: if quoting failed, the injected commands print INJECTED
// or the argument count changes.
var hostile = []string{
	"", " ", "  lead and trail  ", "two words", "it's", "''", `"`, `\`, `\'`, `a\`,
	"$(echo INJECTED)", "`echo INJECTED`", "${IFS}", "$0", "$@", "a;echo INJECTED",
	"a&&echo INJECTED", "a||echo INJECTED", "a|cat", "a\necho INJECTED", "\n", "\r\n",
	"\t", "*", "/*", "?", "[!a]", "~", "~/x", "#", "a #b", "-e", "--", "!", "!!",
	"{a,b}", "<x", ">x", "2>&1", "a=b c", "ünïcödé ✓ 日本語", "\x01\x1b[31m", "%s%n",
}

// shells lists the POSIX shells present; orch's commands must survive all.
func shells(t *testing.T) []string {
	var out []string
	for _, sh := range []string{"/bin/sh", "/bin/dash", "/bin/bash", "/bin/busybox"} {
		if _, err := os.Stat(sh); err == nil {
			out = append(out, sh)
		}
	}
	if len(out) == 0 {
		t.Skip("no shell found")
	}
	return out
}

func runShell(t *testing.T, sh, script string) string {
	t.Helper()
	args := []string{"-c", script}
	if strings.HasSuffix(sh, "busybox") {
		args = append([]string{"sh"}, args...)
	}
	out, err := exec.Command(sh, args...).Output()
	if err != nil {
		t.Fatalf("%s -c %q: %v", sh, script, err)
	}
	return string(out)
}

func TestJoinRoundTripsThroughRealShells(t *testing.T) {
	for _, sh := range shells(t) {
		out := runShell(t, sh, Join(append([]string{"printf", `%s\0`}, hostile...)...))
		got := strings.Split(out, "\x00")
		got = got[:len(got)-1]
		if len(got) != len(hostile) {
			t.Fatalf("%s: %d args, want %d: %q", sh, len(got), len(hostile), got)
		}
		for i := range got {
			if got[i] != hostile[i] {
				t.Errorf("%s: arg %d = %q, want %q", sh, i, got[i], hostile[i])
			}
		}
	}
}

// Quoted text nested inside another quoted command (sudo -- sh -c QUOTED)
// still yields the original arguments.
func TestNestedQuoting(t *testing.T) {
	inner := Join(append([]string{"printf", `%s\0`}, hostile...)...)
	for _, sh := range shells(t) {
		out := runShell(t, sh, Join("sh", "-c", inner))
		if got := strings.Split(out, "\x00"); len(got) != len(hostile)+1 || got[4] != hostile[4] || got[10] != hostile[10] {
			t.Errorf("%s: nested quoting broke: %q", sh, got)
		}
	}
}

func FuzzQuote(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			t.Skip("NUL cannot be an argument")
		}
		out, err := exec.Command("/bin/sh", "-c", "printf %s "+Quote(s)).Output()
		if err != nil {
			t.Fatalf("Quote(%q) = %s: %v", s, Quote(s), err)
		}
		if string(out) != s {
			t.Errorf("Quote(%q) = %s came back as %q", s, Quote(s), out)
		}
	})
}
