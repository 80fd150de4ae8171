package executor

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/orch-bench/orch/topology"
)

// credentials are the ways to log in to a host (and its bastion): key
// files, the ssh-agent, a password. Keys are parsed once at Dial.
type credentials struct {
	signers  []ssh.Signer
	password string
	// notes explain keys that were skipped; they are added to an
	// authentication failure so the user sees why a key was not offered.
	notes []string
	logf  func(format string, args ...any)
}

// loadCredentials reads the identity files and secrets for h. An encrypted
// key without a passphrase is skipped with a note (the agent may hold it)
// unless no other way to log in remains, in which case that is the error.
func loadCredentials(h *topology.Host, ids []identityFile, logf func(string, ...any)) (*credentials, error) {
	c := &credentials{logf: logf}
	var passphrase *string // resolved only when an encrypted key needs it
	for _, id := range ids {
		raw, err := os.ReadFile(id.path)
		if err != nil {
			if !id.explicit && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("identity file: %w", err)
		}
		signer, err := parseKeyCached(id.path, raw, nil)
		var missing *ssh.PassphraseMissingError
		if errors.As(err, &missing) {
			if passphrase == nil && h.SSH.Passphrase.IsSet() {
				p, perr := h.SSH.Passphrase.Resolve()
				if perr != nil {
					return nil, fmt.Errorf("passphrase for %s: %w", id.path, perr)
				}
				passphrase = &p
			}
			if passphrase == nil {
				c.notes = append(c.notes, fmt.Sprintf("identity file %s is encrypted and no passphrase is set (ssh.passphrase)", id.path))
				continue
			}
			signer, err = parseKeyCached(id.path, raw, []byte(*passphrase))
			if err != nil {
				return nil, fmt.Errorf("identity file %s: cannot decrypt with the configured passphrase: %w", id.path, err)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("identity file %s: %w", id.path, err)
		}
		c.signers = append(c.signers, signer)
	}
	if h.SSH.Password.IsSet() {
		p, err := h.SSH.Password.Resolve()
		if err != nil {
			return nil, fmt.Errorf("ssh password: %w", err)
		}
		c.password = p
	}
	if len(c.signers) == 0 && c.password == "" && os.Getenv("SSH_AUTH_SOCK") == "" {
		if len(c.notes) > 0 {
			return nil, errors.New(strings.Join(c.notes, "; ") + ", and there is no ssh-agent or password to use instead")
		}
		return nil, errors.New("no way to log in: no identity file found, no ssh-agent (SSH_AUTH_SOCK) and no ssh.password")
	}
	return c, nil
}

// methods returns the auth methods for one handshake and a cleanup that
// closes the agent connection. All keys go into one publickey method:
// x/crypto/ssh tries each method type only once.
func (c *credentials) methods() ([]ssh.AuthMethod, func()) {
	var agentConn net.Conn
	if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" {
		conn, err := net.DialTimeout("unix", sock, 5*time.Second)
		if err != nil {
			c.logf("ssh-agent at %s unavailable: %v", sock, err)
		} else {
			agentConn = conn
		}
	}
	keys := func() ([]ssh.Signer, error) {
		signers := append([]ssh.Signer(nil), c.signers...)
		if agentConn != nil {
			more, err := agent.NewClient(agentConn).Signers()
			if err != nil {
				c.logf("ssh-agent: %v", err)
			}
			signers = append(signers, more...)
		}
		return signers, nil
	}
	m := []ssh.AuthMethod{ssh.PublicKeysCallback(keys)}
	if c.password != "" {
		pw := c.password
		m = append(m, ssh.Password(pw),
			ssh.KeyboardInteractive(func(_, _ string, questions []string, echos []bool) ([]string, error) {
				answers := make([]string, len(questions))
				for i := range questions {
					if !echos[i] {
						answers[i] = pw
					}
				}
				return answers, nil
			}))
	}
	return m, func() {
		if agentConn != nil {
			agentConn.Close()
		}
	}
}

// explain adds the skipped-key notes to an authentication error.
func (c *credentials) explain(err error) error {
	if len(c.notes) == 0 || !strings.Contains(err.Error(), "unable to authenticate") {
		return err
	}
	return fmt.Errorf("%w (%s)", err, strings.Join(c.notes, "; "))
}

// keyCache avoids re-parsing (and, for encrypted keys, re-running the
// deliberately slow KDF) the same key for every host of a large cluster.
var keyCache sync.Map // keyCacheKey -> ssh.Signer

type keyCacheKey struct {
	path, content string
}

func parseKeyCached(path string, raw, passphrase []byte) (ssh.Signer, error) {
	k := keyCacheKey{path, string(raw)}
	if s, ok := keyCache.Load(k); ok {
		return s.(ssh.Signer), nil
	}
	var (
		s   ssh.Signer
		err error
	)
	if passphrase == nil {
		s, err = ssh.ParsePrivateKey(raw)
	} else {
		s, err = ssh.ParsePrivateKeyWithPassphrase(raw, passphrase)
	}
	if err != nil {
		return nil, err
	}
	keyCache.Store(k, s)
	return s, nil
}
