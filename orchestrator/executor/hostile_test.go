package executor

import (
	"context"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/shell"
)

// hostileArgs must each come back as exactly one literal argument. If
// quoting broke, the injected commands print INJECTED instead.
var hostileArgs = []string{
	"",
	" ",
	"two words",
	"it's",
	`"double"`,
	`'single'`,
	"'",
	`\`,
	`back\slash\n`,
	"$(echo INJECTED)",
	"`echo INJECTED`",
	"${HOME}",
	"$HOME",
	"a;echo INJECTED",
	"a && echo INJECTED",
	"a | cat",
	"line1\nline2",
	"trailing newline\n",
	"\ttab",
	"*",
	"?",
	"[a-z]",
	"~",
	"~root",
	"#comment",
	"-n",
	"--",
	"a=b",
	"!event",
	"{a,b}",
	"<in >out 2>&1",
	"%s %d",
	"ünïcödé ✓ 日本語",
	"\x01\x7f",
}

// roundTrip runs printf with the quoted args on e and checks every
// argument arrives unchanged, and as an environment value too.
func roundTrip(t *testing.T, e Executor) {
	t.Helper()
	ctx := context.Background()
	script := shell.Join(append([]string{"printf", `%s\0`}, hostileArgs...)...)
	res, err := e.Run(ctx, Command{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(string(res.Stdout), "\x00")
	got = got[:len(got)-1]
	if len(got) != len(hostileArgs) {
		t.Fatalf("%d args came back, want %d: %q", len(got), len(hostileArgs), got)
	}
	for i := range got {
		if got[i] != hostileArgs[i] {
			t.Errorf("arg %d: got %q, want %q", i, got[i], hostileArgs[i])
		}
	}
	for _, v := range hostileArgs {
		res, err := e.Run(ctx, Command{Script: `printf '%s' "$V"`, Env: map[string]string{"V": v}})
		if err != nil || string(res.Stdout) != v {
			t.Errorf("env value %q came back as %q (%v)", v, res.Stdout, err)
		}
	}
}

func TestHostileArgsLocal(t *testing.T) {
	roundTrip(t, NewLocal("control"))
}

func TestHostileArgsSSH(t *testing.T) {
	f := newFixture(t)
	_, s := f.connect()
	roundTrip(t, s)
}
