package executor

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/orch-bench/orch/orchestrator/shell"
)

// prepared is a Command turned into the shell text to run and the bytes that
// must reach the shell's stdin before the caller's Stdin.
type prepared struct {
	script string
	prefix []byte
}

// prepare builds the shell text for cmd. Env values are quoted inline; each
// SecretEnv value travels as one stdin line that a prelude reads back with
// `IFS= read -r`, so secrets never appear in argv or in the command text.
// The shell reads a pipe byte by byte, so the caller's stdin is left intact
// for the script.
func prepare(cmd Command) (prepared, error) {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(cmd.Env)) {
		v := cmd.Env[k]
		if err := checkEnv(k, v); err != nil {
			return prepared{}, err
		}
		fmt.Fprintf(&b, "export %s=%s\n", k, shell.Quote(v))
	}
	var prefix bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(cmd.SecretEnv)) {
		v := cmd.SecretEnv[k]
		if err := checkEnv(k, v); err != nil {
			return prepared{}, fmt.Errorf("secret %w", err)
		}
		if strings.ContainsAny(v, "\n\r") {
			return prepared{}, fmt.Errorf("secret env %s: value contains a newline, which stdin delivery cannot carry", k)
		}
		fmt.Fprintf(&b, "IFS= read -r %s || { echo 'orch: secret %s missing on stdin' >&2; exit 125; }; export %s\n", k, k, k)
		prefix.WriteString(v)
		prefix.WriteByte('\n')
	}
	b.WriteString(cmd.Script)
	return prepared{script: b.String(), prefix: prefix.Bytes()}, nil
}

// stdin is what the shell reads: the secret lines, then the caller's Stdin.
// It is nil when there is nothing to send, so the remote side sees EOF.
func (p prepared) stdin(user io.Reader) io.Reader {
	switch {
	case len(p.prefix) == 0:
		return user
	case user == nil:
		return bytes.NewReader(p.prefix)
	}
	return io.MultiReader(bytes.NewReader(p.prefix), user)
}

// checkEnv rejects names that would not be a single shell word and values
// that cannot exist in an environment.
func checkEnv(name, value string) error {
	if !validName(name) {
		return fmt.Errorf("env %q: not a valid variable name", name)
	}
	if strings.IndexByte(value, 0) >= 0 {
		return fmt.Errorf("env %s: value contains a NUL byte", name)
	}
	return nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// stderrTailLines is how many trailing stderr lines an ExitError carries.
const stderrTailLines = 5

// tailWriter keeps the last bytes written to it, enough for the last few
// lines of a command's stderr even when the output is streamed elsewhere.
type tailWriter struct {
	buf []byte
}

const tailKeep = 4096

func (t *tailWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= tailKeep {
		p = p[len(p)-tailKeep:]
		t.buf = t.buf[:0]
	}
	if over := len(t.buf) + len(p) - tailKeep; over > 0 {
		t.buf = t.buf[over:]
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// lastLines returns the last few non-empty lines of b, trimmed.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			keep = append(keep, l)
		}
	}
	slices.Reverse(keep)
	return strings.Join(keep, "\n")
}

// outputs wires a command's stdout and stderr: the caller's writers or
// capture buffers, plus a stderr tail for ExitError. Writes are serialised
// (callers often pass one writer for both streams) and can be switched off
// once Run has returned, so an abandoned session never writes into a
// caller's writer afterwards.
type outputs struct {
	mu             sync.Mutex
	off            bool
	stdout, stderr io.Writer
	capOut, capErr *bytes.Buffer
	tail           tailWriter

	// scanPGID strips the pgidPrelude line from the start of stderr and
	// records the process group it reports; head holds the bytes seen so
	// far while they still match.
	scanPGID bool
	head     []byte
	pgid     int
}

// pgidMarker starts the line pgidPrelude prints.
const pgidMarker = "\x1eorch-pgid:"

func newOutputs(cmd Command) *outputs {
	o := &outputs{stdout: cmd.Stdout, stderr: cmd.Stderr}
	if o.stdout == nil {
		o.capOut = new(bytes.Buffer)
		o.stdout = o.capOut
	}
	if o.stderr == nil {
		o.capErr = new(bytes.Buffer)
		o.stderr = o.capErr
	}
	return o
}

func (o *outputs) Stdout() io.Writer { return guarded{o, false} }
func (o *outputs) Stderr() io.Writer { return guarded{o, true} }

// disable drops all further writes.
func (o *outputs) disable() {
	o.mu.Lock()
	o.off = true
	o.mu.Unlock()
}

// fill copies captured output into r.
func (o *outputs) fill(r *Result) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.capOut != nil {
		r.Stdout = o.capOut.Bytes()
	}
	if o.capErr != nil {
		r.Stderr = o.capErr.Bytes()
	}
}

func (o *outputs) stderrTail() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return lastLines(o.tail.buf, stderrTailLines)
}

type guarded struct {
	o      *outputs
	stderr bool
}

func (g guarded) Write(p []byte) (int, error) {
	g.o.mu.Lock()
	defer g.o.mu.Unlock()
	if g.o.off {
		return len(p), nil
	}
	if !g.stderr {
		return g.o.stdout.Write(p)
	}
	n := len(p)
	if g.o.scanPGID {
		if p = g.o.scanMarker(p); len(p) == 0 {
			return n, nil
		}
	}
	g.o.tail.Write(p)
	if _, err := g.o.stderr.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// scanMarker consumes the marker line from the start of stderr and returns
// what follows it. Bytes that turn out not to be a marker are returned for
// normal output.
func (o *outputs) scanMarker(p []byte) []byte {
	for len(p) > 0 {
		c := p[0]
		switch {
		case len(o.head) < len(pgidMarker) && c == pgidMarker[len(o.head)],
			len(o.head) >= len(pgidMarker) && c >= '0' && c <= '9' && len(o.head) < len(pgidMarker)+10:
			o.head = append(o.head, c)
			p = p[1:]
		case len(o.head) > len(pgidMarker) && c == '\n':
			o.pgid, _ = strconv.Atoi(string(o.head[len(pgidMarker):]))
			o.scanPGID, o.head = false, nil
			return p[1:]
		default:
			held := o.head
			o.scanPGID, o.head = false, nil
			return append(held, p...)
		}
	}
	return nil
}

// flush releases stderr bytes still held by the marker scan.
func (o *outputs) flush() {
	o.mu.Lock()
	held := o.head
	o.scanPGID, o.head = false, nil
	o.mu.Unlock()
	if len(held) > 0 {
		guarded{o, true}.Write(held)
	}
}

// processGroup is the remote process group, or 0 if not reported yet.
func (o *outputs) processGroup() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.pgid
}
