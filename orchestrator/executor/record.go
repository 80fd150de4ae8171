package executor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"
)

// Kinds of what a Record says orch sent.
const (
	KindShell    = "shell"
	KindUpload   = "upload"
	KindDownload = "download"
	KindSQL      = "sql"
)

// Record is one thing orch sent to a host, for the host's command log.
// Text is as sent, secrets included: the Recorder redacts it before it
// is kept anywhere, so that no caller can forget to.
type Record struct {
	Start time.Time
	Host  string // the inventory name
	Kind  string
	// Text is the script, the remote path of a transfer, or the statement.
	Text string
	// Content is what an executable upload (a script orch runs next)
	// held, up to MaxRecordedContent bytes: the command it runs.
	Content string
	Sudo    bool
	// Env is exported ahead of the script (its values are in the remote
	// argv anyway); SecretEnv's values are never recorded, only masked
	// wherever they appear, with Secrets.
	Env     map[string]string
	Secrets []string
	// Args is how many values were bound to a statement (never the values:
	// one may be a password).
	Args     int
	Duration time.Duration
	// Exit is the command's exit status when it ran (nil otherwise: a
	// transfer, a statement, a command that never started).
	Exit *int
	Err  error
	// BytesOut went to the host (stdin, an upload, a statement on the
	// wire); BytesIn came back (output, a download, result rows).
	BytesOut, BytesIn int64
}

// Recorder keeps Records. It must be safe for concurrent use: hosts and
// the sessions of one host send in parallel.
type Recorder interface {
	Record(Record)
}

// RecorderFunc adapts a function to a Recorder.
type RecorderFunc func(Record)

// Record calls f(r).
func (f RecorderFunc) Record(r Record) { f(r) }

// Recorded returns ex with everything sent through it recorded on rec
// under host's name. The result can still dial (mysqlconn.Dialer), and a
// pool opened through it records its statements too (RecorderOf).
func Recorded(ex Executor, host string, rec Recorder) Executor {
	if ex == nil || rec == nil {
		return ex
	}
	return &recorded{Executor: ex, host: host, rec: rec}
}

// Unwrap returns the executor Recorded wrapped (ex itself otherwise), for
// code that needs the concrete type, such as a test's simulated link.
func Unwrap(ex Executor) Executor {
	if r, ok := ex.(*recorded); ok {
		return r.Executor
	}
	return ex
}

// RecorderOf reports the host name and Recorder of an executor made by
// Recorded, so that a database pool opened through it records as well.
func RecorderOf(v any) (host string, rec Recorder, ok bool) {
	r, ok := v.(*recorded)
	if !ok {
		return "", nil, false
	}
	return r.host, r.rec, true
}

type recorded struct {
	Executor
	host string
	rec  Recorder
}

func (r *recorded) Run(ctx context.Context, cmd Command) (Result, error) {
	out, in := &countingReader{r: cmd.Stdin}, &counter{}
	if cmd.Stdin != nil {
		cmd.Stdin = out
	}
	if cmd.Stdout != nil {
		cmd.Stdout = countingWriter{cmd.Stdout, in}
	}
	if cmd.Stderr != nil {
		cmd.Stderr = countingWriter{cmd.Stderr, in}
	}
	secrets := make([]string, 0, len(cmd.SecretEnv))
	for _, v := range cmd.SecretEnv {
		secrets = append(secrets, v)
	}
	start := time.Now()
	res, err := r.Executor.Run(ctx, cmd)
	rec := Record{Start: start, Host: r.host, Kind: KindShell, Text: cmd.Script, Sudo: cmd.Sudo,
		Env: cmd.Env, Secrets: secrets, Duration: time.Since(start), Err: err,
		BytesOut: int64(len(cmd.Script)) + out.n.Load(),
		BytesIn:  in.Load() + int64(len(res.Stdout)+len(res.Stderr))}
	var exit *ExitError
	if err == nil || errors.As(err, &exit) {
		code := res.ExitCode
		rec.Exit = &code
	}
	r.rec.Record(rec)
	return res, err
}

// MaxRecordedContent bounds how much of an executable upload is recorded.
const MaxRecordedContent = 64 << 10

func (r *recorded) Upload(ctx context.Context, src io.Reader, path string, mode os.FileMode, sudo bool) error {
	cr := &countingReader{r: src}
	var script *bytes.Buffer
	if mode&0o111 != 0 {
		// Only scripts: a data file (a config, a dataset) is not a command.
		script = &bytes.Buffer{}
		cr.r = io.TeeReader(src, limitedWriter{script, MaxRecordedContent})
	}
	start := time.Now()
	err := r.Executor.Upload(ctx, cr, path, mode, sudo)
	rec := Record{Start: start, Host: r.host, Kind: KindUpload, Text: fmt.Sprintf("%s (mode %#o)", path, mode),
		Sudo: sudo, Duration: time.Since(start), Err: err, BytesOut: cr.n.Load()}
	if script != nil {
		rec.Content = script.String()
	}
	r.rec.Record(rec)
	return err
}

// limitedWriter keeps the first max bytes and drops the rest silently, so
// that it never fails the copy it listens to.
type limitedWriter struct {
	b   *bytes.Buffer
	max int
}

func (w limitedWriter) Write(p []byte) (int, error) {
	if room := w.max - w.b.Len(); room > 0 {
		w.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (r *recorded) Download(ctx context.Context, path string, w io.Writer, sudo bool) (os.FileMode, error) {
	n := &counter{}
	start := time.Now()
	mode, err := r.Executor.Download(ctx, path, countingWriter{w, n}, sudo)
	r.rec.Record(Record{Start: start, Host: r.host, Kind: KindDownload, Text: path,
		Sudo: sudo, Duration: time.Since(start), Err: err, BytesIn: n.Load()})
	return mode, err
}

// DialContext forwards to the wrapped executor's tunnel: the SSH and local
// executors both have one.
func (r *recorded) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d, ok := r.Executor.(interface {
		DialContext(ctx context.Context, network, addr string) (net.Conn, error)
	})
	if !ok {
		return nil, fmt.Errorf("%s: executor %T cannot open connections", r.Name(), r.Executor)
	}
	return d.DialContext(ctx, network, addr)
}

type counter struct{ atomic.Int64 }

type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// countingWriter counts what passes; stdout and stderr may be written from
// two goroutines, hence the atomic counter.
type countingWriter struct {
	w io.Writer
	n *counter
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}
