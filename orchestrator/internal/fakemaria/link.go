package fakemaria

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// errLinkLost is what a command or a MySQL connection over a dead SSH
// connection gets.
var errLinkLost = errors.New("ssh: connection lost")

// errNoSocket is what sshd answers a tunnel to a socket file that is gone.
var errNoSocket = errors.New(`ssh: rejected: connect failed ("open failed")`)

// RemoveSocket deletes the server's socket file: the server runs on, its
// open connections work, new ones fail.
func (h *Host) RemoveSocket() {
	h.mu.Lock()
	h.noSocket = true
	h.mu.Unlock()
}

// link is one SSH connection to a host: a cut of the host's link kills it
// for good, as it does a TCP connection; a new Dial after the link is back
// works again.
type link struct {
	*Host
	gen int
}

func (l *link) alive() bool {
	l.Host.mu.Lock()
	defer l.Host.mu.Unlock()
	return !l.Host.cut && l.Host.gen == l.gen
}

func (l *link) Run(ctx context.Context, c executor.Command) (executor.Result, error) {
	if !l.alive() {
		return executor.Result{}, errLinkLost
	}
	return l.Host.Run(ctx, c)
}

func (l *link) Upload(ctx context.Context, r io.Reader, p string, mode os.FileMode, sudo bool) error {
	if !l.alive() {
		return errLinkLost
	}
	return l.Host.Upload(ctx, r, p, mode, sudo)
}

func (l *link) Download(ctx context.Context, p string, w io.Writer, sudo bool) (os.FileMode, error) {
	if !l.alive() {
		return 0, errLinkLost
	}
	return l.Host.Download(ctx, p, w, sudo)
}

// CutLink drops the host's network link: its connections die, new ones
// are refused until RestoreLink.
func (h *Host) CutLink() {
	h.mu.Lock()
	h.cut = true
	h.gen++
	h.mu.Unlock()
}

// RestoreLink brings the link back (old connections stay dead).
func (h *Host) RestoreLink() {
	h.mu.Lock()
	h.cut = false
	h.mu.Unlock()
}

// Dials is how many SSH connections were made to the host.
func (h *Host) Dials() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dials
}
