package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/shell"
)

// The command lock: one orch command that changes a cluster (up, down, run,
// matrix) at a time. Two at once restart each other's servers and rewire
// each other's replication; both fail, or worse, one benchmarks a cluster
// the other is reconfiguring. The lock is flock(1) on a file in the SSH
// user's private ~/.orch on the master, held by a remote `cat` that reads
// the command's SSH session: when orch ends, however it ends, the session
// closes, cat sees end of input and the lock goes with it. A lock whose
// holder outlived orch (the link was down when orch died, so the session
// never closed) is found by its owner record and cleared when that orch
// ran on this machine and is gone.
//
// It is per SSH account; the benchmark lock (runner) guards the server
// itself against benchmarks from any account. It takes one of the master
// connection's sessions for the command's life.

// ErrLocked marks a cluster another orch command holds.
var ErrLocked = errors.New("the cluster is in use by another orch command")

// lockWait bounds taking the lock (one SSH command).
const lockWait = 30 * time.Second

const lockScript = `umask 077
command -v flock >/dev/null || { echo "flock(1) is not installed (Debian: util-linux)" >&2; exit 1; }
d=${HOME%/}/.orch
mkdir -p "$d" || exit 1
# A refusal also ends stdout's first line, which orch waits for.
if [ -L "$d" ] || [ ! -d "$d" ] || [ ! -O "$d" ]; then echo "$d is not a directory owned by $(id -un)" >&2; echo refused; exit 1; fi
# Only its owner may enter it: nobody else can plant a link to redirect
# the write below (the shell has no O_NOFOLLOW; this makes it moot).
if [ -n "$(find "$d" -maxdepth 0 -perm /077)" ]; then echo "$d has mode $(stat -c %a "$d"), which lets others in: chmod 700 $d" >&2; echo refused; exit 1; fi
f=$d/cluster.lock
if [ -L "$f" ] || { [ -e "$f" ] && { [ ! -f "$f" ] || [ ! -O "$f" ]; }; }; then echo "$f is not a plain file owned by $(id -un): remove it" >&2; echo refused; exit 1; fi
exec 9>>"$f" || exit 1
if ! flock -n 9; then echo "busy $(head -c 400 "$f" | tr -d '\n')"; exit 0; fi
printf '%s %s\n' "$$" "$ORCH_LOCK_OWNER" > "$f"
echo locked
exec cat >/dev/null
`

// clearScript ends a lock holder whose orch is gone, after checking it
// still holds this user's lock file (so a reused PID is never killed).
const clearScript = `f=${HOME%/}/.orch/cluster.lock
[ "$(readlink "/proc/$p/fd/9" 2>/dev/null)" = "$f" ] || exit 0
kill "$p"
for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || exit 0; sleep 0.2; done
echo "holder $p did not exit" >&2; exit 1
`

// hostLock is a held command lock: closing stdin releases it.
type hostLock struct {
	host  string
	stdin *io.PipeWriter
	done  chan error
}

// owner is an orch process as the lock records it: control machine (its
// host name, for people, and its identity, for orch), PID and start time
// (which tell it from a later process with the same PID), and what it
// does.
type owner struct {
	host    string
	machine string // machine-id.boot-id; "" when unknown
	pid     int
	start   uint64
	purpose string
}

// machinePrefix marks the identity field of a lock record.
const machinePrefix = "machine="

// Where this machine's identity is read: host names are shared by
// containers, CI runners and cloned VMs; machine-id and boot id are not
// (a clone that kept its machine-id still boots with its own boot id).
var (
	machineIDFile = "/etc/machine-id"
	bootIDFile    = "/proc/sys/kernel/random/boot_id"
)

// machineIdentity is machine-id.boot-id, or "" when either is unknown
// (then no lock is ever judged gone on the strength of it).
func machineIdentity() string {
	var parts []string
	for _, f := range []string{machineIDFile, bootIDFile} {
		b, err := os.ReadFile(f)
		id := strings.TrimSpace(string(b))
		if err != nil || id == "" || strings.ContainsAny(id, " \t\n") {
			return ""
		}
		parts = append(parts, id)
	}
	return strings.Join(parts, ".")
}

func self(purpose string) owner {
	me, _ := os.Hostname()
	start, _ := procStart(os.Getpid())
	return owner{host: strings.Join(strings.Fields(me), "-"), machine: machineIdentity(), pid: os.Getpid(), start: start, purpose: purpose}
}

func (o owner) String() string {
	return fmt.Sprintf("%s %d %d %s%s %s", o.host, o.pid, o.start, machinePrefix, o.machine, o.purpose)
}

// parseOwner reads a lock file's record: HOLDER_PID HOST PID START
// [machine=ID] PURPOSE... (an older orch wrote no identity).
func parseOwner(rec string) (holder int, o owner, ok bool) {
	f := strings.Fields(rec)
	if len(f) < 5 {
		return 0, owner{}, false
	}
	h, err1 := strconv.Atoi(f[0])
	p, err2 := strconv.Atoi(f[2])
	st, err3 := strconv.ParseUint(f[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, owner{}, false
	}
	o = owner{host: f[1], pid: p, start: st}
	rest := f[4:]
	if m, found := strings.CutPrefix(rest[0], machinePrefix); found {
		o.machine, rest = m, rest[1:]
	}
	o.purpose = strings.Join(rest, " ")
	return h, o, true
}

// goneHere reports whether o ran on this very machine, in this boot, and
// no longer runs. A record without an identity, or with another one
// (whatever its host name), is never judged gone.
func (o owner) goneHere() bool {
	if o.machine == "" || o.machine != machineIdentity() {
		return false
	}
	start, err := procStart(o.pid)
	return err != nil || start != o.start
}

// elsewhere words why a holder that looks gone is left alone.
func (o owner) elsewhere() string {
	me := self("")
	if o.host == me.host && o.machine != me.machine {
		return "; its machine has this one's host name but another identity (machine-id, boot id), so it is not cleared"
	}
	return ""
}

// procStart is a process's start time (clock ticks since boot), the 22nd
// field of /proc/PID/stat, counted after the command name, which may hold
// spaces and parentheses.
func procStart(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// Lock takes the command lock on the cluster's master for purpose (shown
// to whoever finds it held), until Close. A master that is not connected
// is not locked: nothing reaches it, and the command fails on it anyway.
func (c *Cluster) Lock(ctx context.Context, purpose string) error {
	m := c.Inventory.Master()
	if m == nil || c.index(m) < 0 {
		return nil
	}
	ex, err := c.Executor(m)
	if err != nil {
		return nil
	}
	l, err := lockHost(ctx, ex, self(purpose))
	if err != nil {
		return fmt.Errorf("%s: %w", m, err)
	}
	c.mu.Lock()
	c.locks = append(c.locks, l)
	c.mu.Unlock()
	return nil
}

func lockHost(ctx context.Context, ex executor.Executor, o owner) (*hostLock, error) {
	for attempt := 0; ; attempt++ {
		l, busy, err := tryLock(ctx, ex, o)
		if err != nil || l != nil {
			return l, err
		}
		holder, other, ok := parseOwner(busy)
		if !ok {
			return nil, fmt.Errorf("%w; wait for it to end", ErrLocked)
		}
		if attempt > 0 || !other.goneHere() {
			return nil, fmt.Errorf("%w (%s, pid %d on %s)%s; wait for it to end or stop it",
				ErrLocked, other.purpose, other.pid, other.host, other.elsewhere())
		}
		// The orch that took it died here while its session could not
		// close: end its remote holder and try once more.
		if _, err := ex.Run(ctx, executor.Command{Script: "p=" + shell.Quote(strconv.Itoa(holder)) + "\n" + clearScript,
			Timeout: lockWait}); err != nil {
			return nil, fmt.Errorf("clear the lock of orch pid %d, which is gone: %w", other.pid, err)
		}
	}
}

// tryLock runs the lock script: a held lock, or the record of who holds it.
func tryLock(ctx context.Context, ex executor.Executor, o owner) (*hostLock, string, error) {
	pr, pw := io.Pipe()
	first := newFirstLine()
	var stderr bytes.Buffer
	// The holder's session must outlive ctx's deadline: it is bounded by
	// the command, through Release.
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	l := &hostLock{host: ex.Name(), stdin: pw, done: make(chan error, 1)}
	go func() {
		_, err := ex.Run(run, executor.Command{Script: lockScript, Stdin: pr, Stdout: first, Stderr: &stderr,
			Env: map[string]string{"ORCH_LOCK_OWNER": o.String()}})
		first.end()
		cancel()
		l.done <- err
	}()
	wait := time.NewTimer(lockWait)
	defer wait.Stop()
	select {
	case line := <-first.c:
		switch {
		case line == "locked":
			return l, "", nil
		case strings.HasPrefix(line, "busy"):
			pw.Close()
			<-l.done
			return nil, strings.TrimSpace(strings.TrimPrefix(line, "busy")), nil
		}
		pw.Close()
		err := <-l.done
		return nil, "", fmt.Errorf("take the command lock: %w (%s)", errors.Join(err, errors.New(line)), strings.TrimSpace(stderr.String()))
	case <-ctx.Done():
		cancel()
		<-l.done
		return nil, "", ctx.Err()
	case <-wait.C:
		cancel()
		<-l.done
		return nil, "", fmt.Errorf("take the command lock: no answer in %s", lockWait)
	}
}

// release ends the holder's input and waits for it (bounded), which
// releases the lock on the host.
func (l *hostLock) release() error {
	l.stdin.Close()
	select {
	case err := <-l.done:
		if err != nil {
			return fmt.Errorf("%s: release the command lock: %w", l.host, err)
		}
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s: release the command lock: no answer in 10s (it goes when the connection closes)", l.host)
	}
}

// firstLine hands over the first line a command prints (or "" if it
// prints none) and discards the rest.
type firstLine struct {
	mu   sync.Mutex
	buf  []byte
	sent bool
	c    chan string
}

func newFirstLine() *firstLine { return &firstLine{c: make(chan string, 1)} }

func (f *firstLine) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sent {
		return len(p), nil
	}
	f.buf = append(f.buf, p...)
	if i := bytes.IndexByte(f.buf, '\n'); i >= 0 {
		f.sent = true
		f.c <- string(f.buf[:i])
	}
	return len(p), nil
}

// end sends what there is when the command ended without a full line.
func (f *firstLine) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.sent {
		f.sent = true
		f.c <- strings.TrimSpace(string(f.buf))
	}
}
