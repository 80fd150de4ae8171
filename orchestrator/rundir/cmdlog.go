package rundir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// HostCommands is the per-host command log: one JSON object per line for
// every command, transfer and SQL statement orch sent to the host.
const HostCommands = "commands.jsonl"

// CommandLine is one line of a command log.
type CommandLine struct {
	Time    time.Time `json:"time"`
	Host    string    `json:"host"`
	Kind    string    `json:"kind"` // shell, upload, download, sql
	Command string    `json:"command"`
	// Content is an uploaded script's text.
	Content string            `json:"content,omitempty"`
	Sudo    bool              `json:"sudo,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Args is how many values were bound to a statement (not the values).
	Args       int     `json:"args,omitempty"`
	DurationMS float64 `json:"duration_ms"`
	Exit       *int    `json:"exit,omitempty"`
	Error      string  `json:"error,omitempty"`
	BytesOut   int64   `json:"bytes_out"`
	BytesIn    int64   `json:"bytes_in"`
}

// CommandLog is an executor.Recorder writing redacted CommandLines: to
// hosts/<name>/commands.jsonl in a run directory, or to one file for all
// hosts (up and down's --log). Each line is one write on a file opened for
// appending, so a line recorded is on disk whatever happens next; the
// files are the invoking user's only. Safe for concurrent use.
type CommandLog struct {
	mu      sync.Mutex
	file    func(host string) string
	files   map[string]*os.File
	secrets []string
	err     error
}

// CommandLog returns the run directory's per-host command log; every
// literal secret given is masked, besides what RedactLine knows.
func (d *Dir) CommandLog(secrets ...string) *CommandLog {
	return &CommandLog{file: func(host string) string { return filepath.Join(d.HostDir(host), HostCommands) },
		files: map[string]*os.File{}, secrets: secrets}
}

// OpenCommandLog returns a command log writing every host's lines to path,
// appended to what it holds. The file is opened (created 0600) here, so
// that a path that cannot be written fails before anything is sent. A
// symlink is not followed (one planted at the path would send the log, run
// as root, wherever it points), and an existing file another user owns or
// anyone else may write is refused: what orch appends there could be
// rewritten or forged by them.
func OpenCommandLog(path string, secrets ...string) (*CommandLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, copyPerm)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link: give the file itself", path)
		}
		return nil, err
	}
	if err := privateFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &CommandLog{file: func(string) string { return path }, files: map[string]*os.File{path: f}, secrets: secrets}, nil
}

// privateFile refuses an opened file that is not a regular file, belongs
// to another user, or that group or others may write.
func privateFile(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("owned by uid %d, not by this user: others could rewrite the log", sys.Uid)
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("mode %#o lets others write it: chmod go-w it, or give a new file", st.Mode().Perm())
	}
	return nil
}

// Record writes r as one redacted line. A failure to write does not stop
// the command that was recorded: the first one is kept for Close.
func (l *CommandLog) Record(r executor.Record) {
	secrets := append(append([]string{}, l.secrets...), r.Secrets...)
	line := CommandLine{Time: r.Start.UTC(), Host: r.Host, Kind: r.Kind, Command: clip(RedactLine(r.Text, secrets...)),
		Sudo: r.Sudo, Args: r.Args, DurationMS: float64(r.Duration.Microseconds()) / 1000,
		Exit: r.Exit, BytesOut: r.BytesOut, BytesIn: r.BytesIn}
	if r.Content != "" {
		line.Content = clip(RedactLine(r.Content, secrets...))
	}
	if r.Err != nil {
		line.Error = RedactLine(r.Err.Error(), secrets...)
	}
	if len(r.Env) > 0 {
		line.Env = make(map[string]string, len(r.Env))
		for k, v := range r.Env {
			if secretName(k) {
				v = Mask
			}
			line.Env[k] = RedactLine(v, secrets...)
		}
	}
	// Shell text is full of < > &: kept as they are, not \u003c.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(line)
	if err == nil {
		err = l.write(r.Host, buf.Bytes())
	}
	if err != nil {
		l.mu.Lock()
		if l.err == nil {
			l.err = fmt.Errorf("command log: %s: %w", r.Host, err)
		}
		l.mu.Unlock()
	}
}

// maxCommandText bounds a line's text: a statement can carry a whole
// batch of rows, and bytes_out still says how big it was.
const maxCommandText = 64 << 10

// clip cuts text (already redacted, so no secret is cut in two) to
// maxCommandText bytes on a character boundary, saying how much is gone.
func clip(text string) string {
	if len(text) <= maxCommandText {
		return text
	}
	cut := maxCommandText
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d more bytes)", text[:cut], len(text)-cut)
}

func (l *CommandLog) write(host string, data []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.file(host)
	f := l.files[p]
	if f == nil {
		if err := os.MkdirAll(filepath.Dir(p), dirPerm); err != nil {
			return err
		}
		var err error
		if f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, copyPerm); err != nil {
			return err
		}
		l.files[p] = f
	}
	_, err := f.Write(data)
	return err
}

// Close closes the files and returns the first error met writing them.
func (l *CommandLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	paths := make([]string, 0, len(l.files))
	for p := range l.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	errs := []error{l.err}
	for _, p := range paths {
		errs = append(errs, l.files[p].Close())
	}
	l.files = map[string]*os.File{}
	return errors.Join(errs...)
}
