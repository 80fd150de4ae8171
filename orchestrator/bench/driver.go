package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/shell"
)

// Phase is one stage of a benchmark run.
type Phase string

const (
	PhasePrepare Phase = "prepare"
	PhaseRun     Phase = "run"
	PhaseCleanup Phase = "cleanup"
)

// Driver builds a workload's commands and reads their output. There is one
// implementation per DriverKind, made by its entry in Drivers.
type Driver interface {
	// Workload is the (validated) workload the driver was made for.
	Workload() *Workload
	// Step builds the command for one phase against target t. Phases the
	// tool does not have (mysqlslap's prepare) are an error; a phase the
	// workload leaves out (cleanup: false) can still be built, e.g. to
	// clear a dataset that does not match before preparing it again.
	Step(p Phase, t Target) (Step, error)
	// Parse reads a run step's complete output (see the package's parsers
	// for the result types and their error semantics).
	Parse(name string, r io.Reader) (Result, error)
	// Progress parses one line of a running step's output for live
	// display; false for lines that are not progress reports (and for
	// tools that print none).
	Progress(line string) (Interval, bool)
	// Dataset describes the tables prepare creates, for deciding whether
	// prepare can be skipped; false when the driver cannot tell.
	Dataset() (DatasetSpec, bool)
}

// NewDriver returns the driver for w's tool, after validating w (a
// workload built in code gets the same checks as a file). The driver keeps
// w: apply overrides first.
func NewDriver(w *Workload) (Driver, error) {
	if err := w.validate(); err != nil {
		return nil, err
	}
	return w.spec().New(w), nil
}

// Target is the server a benchmark connects to, as the host running the
// benchmark reaches it.
type Target struct {
	Host string // address; "" leaves the tool's default (local socket)
	Port int    // 0 leaves the tool's default (3306)
	User string // "" leaves the tool's default
	// Password is delivered only as the MYSQL_PWD secret env var: never in
	// argv, the script text or Env. It cannot hold a newline.
	Password string
}

func (t Target) check() error {
	switch {
	case t.Port < 0 || t.Port > 65535:
		return fmt.Errorf("target port %d is out of range 1..65535", t.Port)
	case strings.ContainsAny(t.Password, "\n\r\x00"):
		return fmt.Errorf("target password holds a newline or NUL, which MYSQL_PWD cannot carry")
	case strings.ContainsRune(t.Host+t.User, 0):
		return fmt.Errorf("target host or user holds a NUL byte")
	}
	return nil
}

// secretEnv carries the password the one way every MySQL client library
// reads it without a command-line flag.
func (t Target) secretEnv() map[string]string {
	if t.Password == "" {
		return nil
	}
	return map[string]string{"MYSQL_PWD": t.Password}
}

// Step is one command of a benchmark: what to run, kept apart from how it is
// launched (the runner may run it in the foreground through an executor or
// detach it on the load box with its output sent to a file).
type Step struct {
	Phase Phase
	// Name labels the step in logs: "sysbench oltp_insert run".
	Name string
	// Dir is the working directory ("" for the login directory).
	Dir string
	// Argv is the command; Argv[0] is the program.
	Argv []string
	// Fallbacks are programs tried, in order, in place of Argv[0] when the
	// host has no Argv[0] (mariadb-slap, then mysqlslap).
	Fallbacks []string
	// Env is exported to the program. Never secret: values travel in the
	// command text.
	Env map[string]string
	// SecretEnv (MYSQL_PWD) must reach the program through
	// executor.Command.SecretEnv, which sends values on stdin.
	SecretEnv map[string]string
	// Output is the file name for the step's raw output, stdout and stderr
	// together (the parsers accept both interleaved): "run.out".
	Output string
	// Missing, when set, makes the script check that Argv[0] is an
	// executable file first and, when it is not, say so with this hint
	// (exit 127): a program orch built or the workload names by path.
	Missing string
	// After is shell text run once the program has ended (the program is
	// then a child of the shell, not exec'd; the runner stops the whole
	// process group). The step's exit status stays the program's.
	After string
}

// Script is the step as POSIX shell text, every value quoted through
// package shell. The program is started with exec, so it replaces the shell:
// a launcher's PID (setsid sh -c SCRIPT) is the benchmark's own, and its
// signals reach the benchmark directly. Env and SecretEnv are not in the
// text: the caller gives them to its executor (SecretEnv on stdin).
func (s Step) Script() string {
	if len(s.Argv) == 0 {
		return "echo 'orch: empty benchmark command' >&2; exit 127\n"
	}
	var b strings.Builder
	if s.Dir != "" {
		b.WriteString("cd " + shell.Quote(s.Dir) + " || exit\n")
	}
	args := shell.Join(s.Argv[1:]...)
	if args != "" {
		args = " " + args
	}
	if len(s.Fallbacks) == 0 {
		prog := programWord(s.Argv[0])
		if s.Missing != "" {
			msg := "orch: " + s.Argv[0] + " is not an executable program on this host: " + s.Missing
			fmt.Fprintf(&b, "[ -f %s ] && [ -x %s ] || { echo %s >&2; exit 127; }\n", prog, prog, shell.Quote(msg))
		}
		if s.After == "" {
			b.WriteString("exec " + prog + args + "\n")
			return b.String()
		}
		b.WriteString(prog + args + "\norch_status=$?\n" + s.After + "\nexit $orch_status\n")
		return b.String()
	}
	progs := append([]string{s.Argv[0]}, s.Fallbacks...)
	lookups := make([]string, len(progs))
	for i, p := range progs {
		lookups[i] = "command -v " + shell.Quote(p)
	}
	msg := "orch: none of " + strings.Join(progs, ", ") + " found in PATH"
	fmt.Fprintf(&b, "orch_prog=$(%s) || { echo %s >&2; exit 127; }\n", strings.Join(lookups, " || "), shell.Quote(msg))
	b.WriteString(`exec "$orch_prog"` + args + "\n")
	return b.String()
}

// programWord is the program as a shell word: quoted, except that a
// leading "~/" is the user's home directory on the host that runs it.
func programWord(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && rest != "" {
		return `"$HOME"/` + shell.Quote(rest)
	}
	return shell.Quote(p)
}

// String is the step's command line for logs (never holds the password).
func (s Step) String() string {
	cmd := shell.Join(s.Argv...)
	if s.Dir != "" {
		cmd = "cd " + shell.Quote(s.Dir) + " && " + cmd
	}
	return cmd
}

// newStep fills what every driver's step shares.
func newStep(w *Workload, p Phase, name string, argv []string, t Target) Step {
	s := Step{
		Phase:     p,
		Name:      name,
		Dir:       w.Workdir,
		Argv:      argv,
		SecretEnv: t.secretEnv(),
		Output:    p.Output(),
	}
	if len(w.Env) > 0 {
		s.Env = make(map[string]string, len(w.Env))
		for k, v := range w.Env {
			s.Env[k] = v
		}
	}
	return s
}

// flags collects "--name=value" arguments, skipping unset values.
type flags []string

func (f *flags) add(name, value string) {
	if value != "" {
		*f = append(*f, "--"+name+"="+value)
	}
}

func (f *flags) int(name string, v *int) {
	if v != nil {
		f.add(name, strconv.Itoa(*v))
	}
}

// onOff writes a sysbench boolean (on/off).
func (f *flags) onOff(name string, v *bool) {
	switch {
	case v == nil:
	case *v:
		f.add(name, "on")
	default:
		f.add(name, "off")
	}
}

// set writes a bare mysqlslap switch when v is true; false is the default.
func (f *flags) set(name string, v *bool) {
	if v != nil && *v {
		*f = append(*f, "--"+name)
	}
}

func port(p int) string {
	if p == 0 {
		return ""
	}
	return strconv.Itoa(p)
}
