// Package runner holds the use cases the command line calls on clusters:
// Bench (orch run) and Collect, NewUp/Down/Status (updown.go), Check
// (check.go) and the inventory's checks and printing (inventory.go). The
// command line parses flags into their options and maps their errors to
// exit statuses; the work and what it prints are here.
//
// Bench runs a benchmark from the load box while the cluster is watched,
// and leaves everything in a run directory. The benchmark itself runs
// detached on the load box (its own session, output to files there), so a
// dropped SSH connection or a crash of the control machine does not stop
// it: orch follows its output and re-attaches.
package runner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/shell"
)

// Remote is one benchmark step started detached on a host. Its files live in
// Dir: NAME.sh (the step, no secrets), NAME.out (stdout and stderr), NAME.exit
// (the exit status, written when it ends) and NAME.pid.
type Remote struct {
	Exec executor.Executor
	Dir  string
	Name string
	PID  int
	// LongLines counts the output lines longer than MaxLine that Follow
	// handed on cut to their first MaxLine bytes (the file keeps them).
	LongLines int
}

// MaxLine bounds the memory one line of a client's output takes while it
// is followed, as in orch parse (bench's maxLine): the review saw a 1 GB
// line held whole (2.33 GB resident) where parse and report stay near
// 20 MB. The output file is written as it comes, whole.
const MaxLine = 64 << 10

func (r *Remote) file(ext string) string { return path.Join(r.Dir, r.Name+ext) }

// launcher starts $1 in its own session with all output in $2, writes its
// exit status to $3 when it ends, and prints the session leader's PID. The
// paths are arguments, never spliced into the text. The wrapper traps INT
// and TERM (a handled signal, unlike an ignored one, is not inherited), so
// stopping the session's process group stops the benchmark and still
// records its exit status. The leader writes its own PID file ($4) once it
// leads the session, and the launcher waits for that file: $! alone is
// known before setsid has run, and a stop sent to that group then finds
// none and misses the benchmark that starts a moment later.
const launcher = `rm -f "$4"
setsid sh -c 'echo $$ > "$4.tmp" && mv "$4.tmp" "$4"; trap : INT TERM; sh "$1" > "$2" 2>&1 < /dev/null; echo $? > "$3.tmp" && mv "$3.tmp" "$3"' orch-bench "$1" "$2" "$3" "$4" > /dev/null 2>&1 < /dev/null &
i=0
while [ ! -s "$4" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
cat "$4" 2>/dev/null`

// Launch uploads step's script into dir on the host (the run's private
// working directory, see makeWorkdir) and starts it detached.
// The MySQL password reaches the program through the environment (delivered
// on stdin by the executor), never through argv or a file.
func Launch(ctx context.Context, ex executor.Executor, dir string, step bench.Step) (*Remote, error) {
	return launch(ctx, ex, dir, step, "")
}

// launch is Launch with shell text run before the step (a barrier).
func launch(ctx context.Context, ex executor.Executor, dir string, step bench.Step, before string) (*Remote, error) {
	r := &Remote{Exec: ex, Dir: dir, Name: string(step.Phase)}
	if err := ex.Upload(ctx, strings.NewReader(before+step.Script()), r.file(".sh"), 0o700, false); err != nil {
		return nil, fmt.Errorf("%s: upload %s: %w", ex.Name(), r.file(".sh"), err)
	}
	// The benchmark runs in its private directory: how orch tells its
	// processes from others that copy its environment (pidsScript).
	script := "set -- " + shell.Join(r.file(".sh"), r.file(".out"), r.file(".exit"), r.file(".pid")) + "\nrm -f \"$3\"\ncd -- \"${1%/*}\" || exit 1\n" + launcher
	res, err := ex.Run(ctx, executor.Command{Script: script, Env: step.Env, SecretEnv: step.SecretEnv, Timeout: 30 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", ex.Name(), step.Name, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
	if err != nil || pid <= 1 {
		return nil, fmt.Errorf("%s: start %s: no PID in %q", ex.Name(), step.Name, res.Stdout)
	}
	r.PID = pid
	return r, nil
}

// Attach finds a step that an earlier orch started in dir (after a crash of
// the control machine), by its PID file.
func Attach(ctx context.Context, ex executor.Executor, dir string, phase bench.Phase) (*Remote, error) {
	r := &Remote{Exec: ex, Dir: dir, Name: string(phase)}
	var b bytes.Buffer
	if _, err := ex.Download(ctx, r.file(".pid"), &b, false); err != nil {
		return nil, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(b.String()))
	if err != nil {
		return nil, fmt.Errorf("%s: %s: bad PID file", ex.Name(), r.file(".pid"))
	}
	r.PID = pid
	return r, nil
}

// follow streams the output file from byte offset from until the step has
// ended and the file is read to its end (tail --pid), writing it to w and
// handing each complete line to onLine. It returns how many bytes it read,
// also when the connection breaks, so the caller can resume from there.
func (r *Remote) follow(ctx context.Context, from int64, w io.Writer, onLine func(string)) (int64, error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		// tail waits for the file to appear (-F) and exits once the step's
		// session leader is gone and everything is read.
		script := "tail -c +" + strconv.FormatInt(from+1, 10) + " --pid=" + strconv.Itoa(r.PID) + " -s 0.2 -F " + shell.Quote(r.file(".out")) + " 2>/dev/null"
		_, err := r.Exec.Run(ctx, executor.Command{Script: script, Stdout: pw})
		pw.CloseWithError(err)
		done <- err
	}()
	var n int64
	br := bufio.NewReaderSize(pr, MaxLine)
	var line []byte // the current line, at most MaxLine bytes of it
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if _, werr := w.Write(chunk); werr != nil {
				pr.CloseWithError(werr)
				<-done
				return n, &localWriteError{werr}
			}
			n += int64(len(chunk))
			keep := min(len(chunk), MaxLine-len(line))
			long = long || keep < len(chunk)
			line = append(line, chunk[:keep]...)
			if chunk[len(chunk)-1] == '\n' {
				if long {
					r.LongLines++
				}
				if onLine != nil {
					onLine(strings.TrimRight(string(line), "\r\n"))
				}
				line, long = line[:0], false
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			runErr := <-done
			if errors.Is(err, io.EOF) {
				return n, runErr
			}
			return n, err
		}
	}
}

// localWriteError is a failure to write the followed output on this side,
// as opposed to a broken connection.
type localWriteError struct{ err error }

func (e *localWriteError) Error() string { return e.err.Error() }
func (e *localWriteError) Unwrap() error { return e.err }

// Follow streams the step's output to w until it ends, re-attaching after a
// broken connection (the step goes on without us) until reattach runs out.
// It returns the step's exit status.
func (r *Remote) Follow(ctx context.Context, w io.Writer, onLine func(string), reattach time.Duration, logf func(string, ...any)) (int, error) {
	var off int64
	var lastErr error
	deadline := time.Time{}
	for {
		long := r.LongLines
		n, err := r.follow(ctx, off, w, onLine)
		off += n
		if r.LongLines > long && logf != nil {
			logf("%s: %d output line(s) longer than %d KiB were read cut to their first %d KiB (the output file keeps them whole)", r.Exec.Name(), r.LongLines-long, MaxLine>>10, MaxLine>>10)
		}
		if err == nil {
			return r.exitStatus(ctx)
		}
		if ctx.Err() != nil {
			return -1, ctx.Err()
		}
		var lw *localWriteError
		if errors.As(err, &lw) {
			// Our side cannot keep the output (a full disk): re-attaching
			// would fail the same way for the whole reattach time.
			return -1, fmt.Errorf("%s: keeping the benchmark's output here: %w", r.Exec.Name(), lw.err)
		}
		if n > 0 || deadline.IsZero() {
			deadline = time.Now().Add(reattach)
		}
		lastErr = err
		if time.Now().After(deadline) {
			return -1, fmt.Errorf("%s: lost the benchmark's output for %s (it may still be running; orch collect fetches it): %w", r.Exec.Name(), reattach, lastErr)
		}
		if logf != nil {
			logf("%s: connection lost (%v); re-attaching at byte %d", r.Exec.Name(), err, off)
		}
		select {
		case <-ctx.Done():
			return -1, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// exitStatus reads NAME.exit, waiting briefly for the wrapper to write it.
func (r *Remote) exitStatus(ctx context.Context) (int, error) {
	for i := 0; i < 50; i++ {
		var b bytes.Buffer
		if _, err := r.Exec.Download(ctx, r.file(".exit"), &b, false); err == nil {
			code, err := strconv.Atoi(strings.TrimSpace(b.String()))
			if err != nil {
				return -1, fmt.Errorf("%s: %s: %q", r.Exec.Name(), r.file(".exit"), b.String())
			}
			return code, nil
		}
		select {
		case <-ctx.Done():
			return -1, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return -1, fmt.Errorf("%s: %s ended without an exit status (killed?)", r.Exec.Name(), r.Name)
}

// Stop signals the step's whole session (the benchmark and its children):
// SIGINT first so the tool can print what it has, SIGTERM after grace, and
// SIGKILL as the last resort (the exit status is lost then). dash's kill
// takes no "--", so the negative process group follows the signal directly.
// Stop returns once the group is gone: a SIGKILL is delivered, and the
// killed processes reaped, a moment after kill returns, and a caller that
// checks right away (two benchmarks never at once) must not see them.
func (r *Remote) Stop(ctx context.Context, grace time.Duration) error {
	pg := "-" + strconv.Itoa(r.PID)
	ticks := strconv.Itoa(int(grace / (100 * time.Millisecond)))
	script := `stop() { kill -$1 ` + pg + ` 2>/dev/null || exit 0; i=0; while kill -0 ` + pg + ` 2>/dev/null && [ $i -lt $2 ]; do sleep 0.1; i=$((i+1)); done; }
stop INT ` + ticks + `
stop TERM 20
stop KILL 50
exit 0`
	_, err := r.Exec.Run(ctx, executor.Command{Script: script, Timeout: grace + 30*time.Second})
	return err
}
