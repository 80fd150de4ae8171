package rundir

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/atomicfile"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/shell"
)

// PartSuffix marks a file Collect is still fetching. Its size is how much
// of the file has arrived, so the next Collect asks only for the rest.
const PartSuffix = ".part"

// fetchTimeout bounds one file's transfer; a log slice of a long run can be
// large, but a transfer that takes longer than this has stalled.
const fetchTimeout = 30 * time.Minute

// Exit codes of the fetch script for the cases Collect tells apart.
const (
	exitMissing    = 66 // no such file on the host
	exitShorter    = 65 // the file is shorter than where the slice starts
	exitUnreadable = 77 // exists, but the user cannot read it
	exitConfined   = 78 // outside what collect may read (a link, another user's)
)

// FileOutcome is what Collect did with one expected file.
type FileOutcome string

const (
	// Fetched: the file is now complete in the run directory.
	Fetched FileOutcome = "fetched"
	// Present: nothing to do, it was complete already.
	Present FileOutcome = "present"
	// Missing: the host has no such file (not an error: a run that
	// failed early never wrote its raw output).
	Missing FileOutcome = "missing"
	// Failed: the transfer failed; a partial file is kept for next time.
	Failed FileOutcome = "failed"
)

// CollectReport says what Collect did.
type CollectReport struct {
	Files []FileReport `json:"files"`
}

// FileReport is one expected file's collection.
type FileReport struct {
	Host    string      `json:"host"`
	Remote  string      `json:"remote"`
	Local   string      `json:"local"`
	Outcome FileOutcome `json:"outcome"`
	// ResumedAt is how many bytes a previous Collect had already fetched.
	ResumedAt int64 `json:"resumed_at,omitempty"`
	// WireBytes is what crossed the connection (gzip); Written is what
	// was appended to the local file.
	WireBytes int64  `json:"wire_bytes"`
	Written   int64  `json:"written"`
	Error     string `json:"error,omitempty"`
}

// Fetched returns the reports of the files this Collect transferred.
func (r *CollectReport) Fetched() []FileReport {
	var out []FileReport
	for _, f := range r.Files {
		if f.Outcome == Fetched {
			out = append(out, f)
		}
	}
	return out
}

// Collect fetches every expected file of the manifest that is not complete
// in d, through the executor of its host (keyed by inventory host name).
// Transfers are gzip-compressed and resumable: a file's bytes arrive in
// <local>.part, renamed to <local> once complete; a later Collect asks the
// host only for what follows the bytes the .part already has. Complete files
// are marked Done in the manifest, so a second Collect fetches nothing.
//
// A file the host does not have is reported Missing, not an error. The
// error aggregates real failures (no executor for the host, a transfer that
// broke, a log shorter than its recorded offset), each naming the host.
func Collect(ctx context.Context, d *Dir, hosts map[string]executor.Executor) (*CollectReport, error) {
	m, err := d.LoadManifest()
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	// One worker per host: files of one host go one after another over
	// its connection, hosts in parallel.
	byHost := map[string][]int{}
	var order []string
	for i, f := range m.Expected {
		if _, ok := byHost[f.Host]; !ok {
			order = append(order, f.Host)
		}
		byHost[f.Host] = append(byHost[f.Host], i)
	}
	rep := &CollectReport{Files: make([]FileReport, len(m.Expected))}
	var mu sync.Mutex // guards m.Expected[i].Done across workers
	errs := orchestrator.ForEach(ctx, 0, order, func(ctx context.Context, _ int, host string) error {
		var herrs []error
		for _, i := range byHost[host] {
			mu.Lock()
			f := m.Expected[i]
			mu.Unlock()
			fr, err := collectFile(ctx, d, hosts[host], f)
			rep.Files[i] = fr
			if err != nil {
				herrs = append(herrs, err)
				continue
			}
			if fr.Outcome == Fetched || fr.Outcome == Present {
				mu.Lock()
				m.Expected[i].Done = true
				mu.Unlock()
			}
		}
		return errors.Join(herrs...)
	})
	// Done flags are saved even when some files failed: the next Collect
	// then skips what this one completed.
	saveErr := d.UpdateManifest(func(cur *Manifest) error {
		for _, f := range m.Expected {
			if f.Done {
				cur.MarkDone(f.Local)
			}
		}
		return nil
	})
	errs = append(errs, saveErr)
	return rep, orchestrator.Aggregate(errs)
}

// collectFile brings one file up to date. The report is filled whatever
// happens; the error is set for the Failed outcome only.
func collectFile(ctx context.Context, d *Dir, ex executor.Executor, f ExpectedFile) (FileReport, error) {
	fr := FileReport{Host: f.Host, Remote: f.Remote, Local: f.Local}
	fail := func(err error) (FileReport, error) {
		fr.Outcome = Failed
		err = fmt.Errorf("collect %s:%s: %w", hostName(ex, f.Host), f.Remote, err)
		fr.Error = err.Error()
		return fr, err
	}
	final, err := d.Confined(f.Local)
	if err != nil {
		return fail(err)
	}
	if _, err := d.Confined(f.Local + PartSuffix); err != nil {
		return fail(err)
	}
	// A file marked done but deleted here since is fetched again.
	if exists(final) {
		fr.Outcome = Present
		return fr, nil
	}
	if ex == nil {
		return fail(errors.New("no connection to this host"))
	}
	part := final + PartSuffix
	have, err := partSize(part)
	if err != nil {
		return fail(err)
	}
	fr.ResumedAt = have
	start := f.Offset + have
	if f.End > 0 && start > f.End {
		return fail(fmt.Errorf("%s has %d bytes, more than the slice's %d: delete it to fetch again", part, have, f.End-f.Offset))
	}
	if f.End > 0 && start == f.End && have == 0 {
		// An empty slice (nothing was logged during the run) is complete
		// without asking the host.
		if err := atomicfile.Write(part, bytes.NewReader(nil), copyPerm); err != nil {
			return fail(err)
		}
	}
	if f.End == 0 || start < f.End {
		wire, written, err := fetch(ctx, ex, f, start, part)
		fr.WireBytes, fr.Written = wire, written
		if err != nil && have+written == 0 {
			os.Remove(part) // nothing arrived: leave no empty .part behind
		}
		var ee *executor.ExitError
		switch {
		case errors.As(err, &ee) && ee.ExitCode == exitMissing:
			fr.Outcome = Missing
			fr.Error = "not on the host"
			return fr, nil
		case errors.As(err, &ee):
			// The host is in fail's prefix already; keep the reason.
			return fail(fmt.Errorf("%s (exit %d)", ee.Stderr, ee.ExitCode))
		case err != nil:
			return fail(err)
		}
	}
	if err := os.Rename(part, final); err != nil {
		return fail(err)
	}
	fr.Outcome = Fetched
	return fr, nil
}

// fetch appends the file's bytes from start (to f.End, if set) to part.
// What arrives before a failure stays appended: a gzip stream decodes in
// order, so the part file always holds a prefix of the remote bytes.
func fetch(ctx context.Context, ex executor.Executor, f ExpectedFile, start int64, part string) (wire, written int64, err error) {
	if err := os.MkdirAll(filepath.Dir(part), dirPerm); err != nil {
		return 0, 0, err
	}
	out, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW, copyPerm)
	if err != nil {
		return 0, 0, err
	}
	pr, pw := io.Pipe()
	counted := &countingWriter{w: pw}
	decoded := make(chan error, 1)
	var n int64
	go func() {
		var derr error
		n, derr = gunzip(out, pr)
		// Drain on error, so the command never blocks writing to a pipe
		// nobody reads; its own exit status then explains what happened.
		_, _ = io.Copy(io.Discard, pr)
		decoded <- derr
	}()
	_, runErr := ex.Run(ctx, executor.Command{
		Script:  confine(f) + fetchScript(f.Remote, start, f.End),
		Sudo:    f.Sudo,
		Stdout:  counted,
		Timeout: fetchTimeout,
	})
	pw.Close()
	decErr := <-decoded
	syncErr := out.Sync()
	closeErr := out.Close()
	wire, written = counted.n, n
	switch {
	case runErr != nil:
		return wire, written, runErr
	case decErr != nil:
		return wire, written, fmt.Errorf("decompress: %w", decErr)
	}
	return wire, written, errors.Join(syncErr, closeErr)
}

// gunzip decodes a gzip stream from r into w. Bytes are written as they
// decode, so an interrupted stream still leaves a correct prefix.
func gunzip(w io.Writer, r io.Reader) (int64, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(w, zr)
	if err != nil {
		return n, err
	}
	return n, zr.Close()
}

// confine is the check before a fetch that keeps it to what the run
// itself wrote, whatever the manifest says: a benchmark output only inside
// the run's private working directory (its real path under the SSH user's
// home, the user's own, mode 0700) and never through a symlink; a log
// read as root never through a symlink (a *.err link in the datadir to
// /etc/shadow) and only a regular file.
func confine(f ExpectedFile) string {
	refuse := func(why string) string {
		return `{ echo "` + why + `: collect reads only what the run wrote" >&2; exit ` + strconv.Itoa(exitConfined) + "; }"
	}
	s := "f=" + shell.Quote(f.Remote) + "\n" +
		`if [ -L "$f" ]; then ` + refuse("$f is a symlink") + "; fi\n" +
		`if [ -e "$f" ] && [ ! -f "$f" ]; then ` + refuse("$f is not a regular file") + "; fi\n"
	if f.Sudo {
		return s
	}
	return s + `d=$(dirname -- "$f")` + "\n" +
		`if [ -e "$f" ]; then` + "\n" +
		`  r=$(cd -P -- "$d" && pwd -P) || exit 1` + "\n" +
		`  case "$r/" in "${HOME%/}/"?*) ;; *) ` + refuse("$d is not inside $HOME") + ";; esac\n" +
		`  if [ -L "$d" ] || [ ! -O "$d" ] || [ ! -O "$f" ]; then ` + refuse("$d or $f is not $(id -un)'s own") + "; fi\n" +
		`  if [ -n "$(find "$d" -maxdepth 0 -perm /077)" ]; then ` + refuse("$d is open to others") + "; fi\n" +
		"fi\n"
}

// fetchScript prints, gzip-compressed, the bytes of file from offset start
// up to end (0: to the end of the file). The checks before the transfer
// turn the cases Collect treats differently into distinct exit codes,
// because in a pipeline only gzip's status would survive.
func fetchScript(file string, start, end int64) string {
	q := shell.Quote(file)
	// The file must reach the end of what is asked: a log rotated or
	// truncated since the run started no longer holds the run's bytes.
	s := strconv.FormatInt(max(start, end), 10)
	script := "f=" + q + "\n" +
		// A file in a directory the user cannot search looks missing too.
		`if [ ! -e "$f" ]; then p=$f; while [ "$p" != / ] && [ "$p" != . ]; do p=$(dirname -- "$p"); ` +
		`if [ -d "$p" ] && [ ! -x "$p" ]; then echo "permission denied: cannot search $p (needs sudo?)" >&2; exit ` +
		strconv.Itoa(exitUnreadable) + "; fi; done\n" +
		`echo "no such file" >&2; exit ` + strconv.Itoa(exitMissing) + "; fi\n" +
		`if [ ! -r "$f" ]; then echo "permission denied (needs sudo?)" >&2; exit ` + strconv.Itoa(exitUnreadable) + "; fi\n" +
		`size=$(wc -c < "$f") || exit 1` + "\n" +
		`if [ "$size" -lt ` + s + ` ]; then echo "file has $size bytes, fewer than the ` + s +
		` expected: rotated or truncated since the run started" >&2; exit ` + strconv.Itoa(exitShorter) + "; fi\n" +
		`command -v gzip >/dev/null || { echo "gzip is not installed" >&2; exit 1; }` + "\n" +
		`tail -c +` + strconv.FormatInt(start+1, 10) + ` "$f"`
	if end > 0 {
		script += " | head -c " + strconv.FormatInt(end-start, 10)
	}
	return script + " | gzip -c\n"
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func partSize(p string) (int64, error) {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func hostName(ex executor.Executor, name string) string {
	if ex != nil {
		return ex.Name()
	}
	return name
}
