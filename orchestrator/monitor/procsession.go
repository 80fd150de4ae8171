package monitor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// procSource reads /proc on a host through one long-lived shell that
// prints a sample for every line it is sent (procLoop): per tick the host
// runs shell builtins only, where a session per sample would cost sshd a
// fork and a shell start every second (about 5 ms of CPU per host per
// second, measured on the lab). The ticker stays on the control machine,
// so sampling keeps the stream's grid and skip rules. A session that
// stops answering is killed, and a new one started on a later tick once
// the old one has ended: at most one per host is ever in flight.
type procSource struct {
	ex    executor.Executor
	proc  *osProc
	ctx   context.Context // the monitor's: sessions outlive a sample
	wg    *sync.WaitGroup // Stop waits for sessions to end
	cur   *procSession    // the live session
	dying *procSession    // a killed session not yet ended

	// sudo runs the session as root: /proc/PID/io is the owner's or root's.
	sudo bool
	// pidFile, when set, finds the server's pid file (asked when a session
	// opens); nil on a host without a server. noPid counts the samples of
	// a session opened without it (the server did not answer): after
	// pidRetry of them the session is replaced by one that asks again.
	pidFile func(ctx context.Context) (string, error)
	noPid   int
	box     bool // sample the host's processes (a load box)
}

// pidRetry is how many samples a session without the server's pid file
// runs before it is replaced by one that asks again.
const pidRetry = 30

// procEnd ends each sample in the session's output.
const procEnd = "@end"

// procLoop is the session's script: the datadir's device once, if still
// wanted, then one sample per line read.
func procLoop(datadir string) string { return procLoopFor(datadir, "", false) }

// procLoopFor is the session's script, run by the host's sh. Not under
// bash: its read builtin reads a block and seeks back to the line's end,
// and a /proc file seeked back is generated anew with newer counters, so
// the next line of a while-read loop can start mid-line or empty (a
// sampled "io" line came out empty in CI). dash reads byte by byte.
func procLoopFor(datadir, pidFile string, box bool) string {
	return procLoopBody(datadir, pidFile, box)
}

// procLoopBody adds the clock rate once, then per sample the sampler's own
// CPU, the server's own counters (pidFile set) or the host's processes (box).
func procLoopBody(datadir, pidFile string, box bool) string {
	var b strings.Builder
	if datadir != "" {
		b.WriteString(procDevScript(datadir))
	}
	// The clock rate turns the sampler's own ticks (and the server's, the
	// box's) into CPU time.
	b.WriteString(procHzScript)
	extra := procSelfScript
	if pidFile != "" {
		extra += procServerScript(pidFile)
	}
	if box {
		extra += procBoxSample()
	}
	b.WriteString("while read -r _; do\n" + procSampleScript + extra + "echo " + procEnd + "\ndone\n")
	return b.String()
}

// procSession is one run of procLoop.
type procSession struct {
	cancel  context.CancelFunc
	feed    chan struct{} // one token per sample wanted
	samples chan string
	done    chan struct{} // closed when the command has returned
	err     error         // why it returned, set before done closes
}

func (p *procSource) fetch(ctx context.Context) (string, error) {
	if p.dying != nil {
		select {
		case <-p.dying.done:
			p.dying = nil
		default:
			return "", errors.New("the last /proc session is still being stopped")
		}
	}
	if p.cur != nil {
		select {
		case <-p.cur.done:
			p.cur = nil // ended (the host restarted sshd?): open another
		default:
		}
	}
	if p.cur != nil && p.noPid > 0 {
		if p.noPid++; p.noPid > pidRetry {
			p.kill() // a new session asks the server again
			return "", errors.New("/proc session restarted to find the server's pid file")
		}
	}
	if p.cur == nil {
		p.open(ctx)
	}
	s := p.cur
	select {
	case s.feed <- struct{}{}:
	default:
		p.kill()
		return "", errors.New("/proc session stopped reading its requests")
	}
	select {
	case out := <-s.samples:
		return out, nil
	case <-s.done:
		p.cur = nil
		return "", fmt.Errorf("/proc session ended: %w", s.err)
	case <-ctx.Done():
		p.kill()
		return "", ctx.Err()
	}
}

func (p *procSource) open(ctx context.Context) {
	datadir := ""
	if !p.proc.picked {
		datadir = p.proc.datadir
	}
	pidFile := ""
	if p.pidFile != nil {
		// Without it the server_* columns stay empty until a later
		// session finds it; the host's own figures go on.
		pidFile, _ = p.pidFile(ctx)
		p.noPid = 0
		if pidFile == "" {
			p.noPid = 1
		}
	}
	ctx, cancel := context.WithCancel(p.ctx)
	s := &procSession{cancel: cancel, feed: make(chan struct{}, 2), samples: make(chan string, 1), done: make(chan struct{})}
	p.cur = s
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		stderr := &tail{max: 512}
		_, err := p.ex.Run(ctx, executor.Command{Script: procLoopFor(datadir, pidFile, p.box), Sudo: p.sudo, Stdin: &feedReader{feed: s.feed, ctx: ctx},
			Stdout: &sampleSplitter{samples: s.samples}, Stderr: stderr})
		switch {
		case err != nil:
			s.err = err
		case len(stderr.b) > 0:
			s.err = fmt.Errorf("exited: %s", bytes.TrimSpace(stderr.b))
		default:
			s.err = errors.New("exited")
		}
		close(s.done)
	}()
}

// kill cancels the live session; its command ends in the background.
func (p *procSource) kill() {
	if p.cur != nil {
		p.cur.cancel()
		p.dying, p.cur = p.cur, nil
	}
}

// feedReader is the session's stdin: a newline per token, EOF when the
// session is cancelled.
type feedReader struct {
	feed <-chan struct{}
	ctx  context.Context
}

func (r *feedReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	select {
	case <-r.feed:
		b[0] = '\n'
		return 1, nil
	case <-r.ctx.Done():
		return 0, io.EOF
	}
}

// sampleSplitter cuts the session's output at procEnd lines and hands
// each sample over; it never holds more than one sample's text.
type sampleSplitter struct {
	buf     bytes.Buffer
	samples chan<- string
}

// maxSample bounds a sample's text; real ones are a few KiB.
const maxSample = 256 << 10

func (w *sampleSplitter) Write(b []byte) (int, error) {
	w.buf.Write(b)
	for {
		data := w.buf.Bytes()
		i := bytes.Index(data, []byte("\n"+procEnd+"\n"))
		if i < 0 {
			if w.buf.Len() > maxSample {
				return 0, errors.New("/proc sample too large")
			}
			return len(b), nil
		}
		text := string(data[:i+1])
		w.buf.Next(i + len(procEnd) + 2)
		select {
		case w.samples <- text:
		default: // nobody waits (a request that timed out): drop it
		}
	}
}

// tail keeps the last bytes of stderr for error messages.
type tail struct {
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}
