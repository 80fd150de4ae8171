package executor

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestPrepare(t *testing.T) {
	p, err := prepare(Command{
		Script:    "run it",
		Env:       map[string]string{"B": "two words", "A": "1"},
		SecretEnv: map[string]string{"S2": "second", "S1": "first"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"export A=1\nexport B='two words'\n", "read -r S1", "read -r S2", "\nrun it"} {
		if !strings.Contains(p.script, want) {
			t.Errorf("script %q lacks %q", p.script, want)
		}
	}
	if strings.Index(p.script, "S1") > strings.Index(p.script, "S2") {
		t.Error("secrets not read in sorted order")
	}
	in, _ := io.ReadAll(p.stdin(strings.NewReader("user")))
	if string(in) != "first\nsecond\nuser" {
		t.Errorf("stdin %q", in)
	}
	if p.stdin(nil) == nil {
		t.Error("no stdin although secrets must be sent")
	}
	if p, _ := prepare(Command{Script: "x"}); p.stdin(nil) != nil {
		t.Error("stdin without secrets or input")
	}

	for _, bad := range []Command{
		{Env: map[string]string{"": "x"}},
		{Env: map[string]string{"1A": "x"}},
		{Env: map[string]string{"A B": "x"}},
		{Env: map[string]string{"A": "nul\x00"}},
		{SecretEnv: map[string]string{"A": "a\rb"}},
		{SecretEnv: map[string]string{"A-B": "x"}},
	} {
		if _, err := prepare(bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

func TestMarkerScan(t *testing.T) {
	write := func(chunks ...string) (*outputs, string) {
		var errBuf bytes.Buffer
		o := newOutputs(Command{Stderr: &errBuf})
		o.scanPGID = true
		for _, c := range chunks {
			o.Stderr().Write([]byte(c))
		}
		o.flush()
		return o, errBuf.String()
	}
	// Split anywhere, the marker is removed and the group read.
	o, got := write("\x1eorch-p", "gid:12", "34\nreal ", "stderr\n")
	if o.processGroup() != 1234 || got != "real stderr\n" {
		t.Errorf("pgid %d, stderr %q", o.processGroup(), got)
	}
	// Anything else passes through untouched.
	for _, in := range []string{"plain\n", "\x1eorch-x\n", "\x1eorch-pgid:\n", "\x1eorch-pgid:12a\n", "\x1eorch"} {
		o, got := write(in[:len(in)/2], in[len(in)/2:])
		if o.processGroup() != 0 || got != in {
			t.Errorf("%q: pgid %d, stderr %q", in, o.processGroup(), got)
		}
	}
}

func TestTail(t *testing.T) {
	var tw tailWriter
	for i := 0; i < 1000; i++ {
		tw.Write([]byte("line " + strings.Repeat("x", i%7) + "\n"))
	}
	tw.Write([]byte("\n\nlast one\n  \n"))
	if len(tw.buf) > tailKeep {
		t.Errorf("kept %d bytes", len(tw.buf))
	}
	if got := lastLines(tw.buf, 2); got != "line xxxxx\nlast one" {
		t.Errorf("lastLines %q", got)
	}
	tw.Write(bytes.Repeat([]byte("y"), 3*tailKeep))
	if len(tw.buf) != tailKeep {
		t.Errorf("kept %d bytes after a huge write", len(tw.buf))
	}
}
