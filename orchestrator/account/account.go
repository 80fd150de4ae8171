// Package account makes the MySQL accounts orch needs on a stock server,
// where the only way in is the server's root account on its unix socket
// (Debian's and Ubuntu's packages set root up so): the client runs as root
// over SSH (through sudo for a non-root login) and authenticates by socket,
// the statements and passwords travel on its stdin, never in argv, and
// binary logging is off for the session, so no account ever replicates.
package account

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// Account is one account to make or bring up to date.
type Account struct {
	User, Host string // 'orch'@'%'
	Password   string
	// Admin grants every privilege WITH GRANT OPTION; otherwise Grants
	// (e.g. "ALL PRIVILEGES ON sbtest.*") is given: trusted SQL from orch's
	// own code, never user input.
	Admin  bool
	Grants string
}

func (a Account) String() string { return a.User + "@" + a.Host }

// quoted is 'user'@'host', through the one SQL quoting helper.
func (a Account) quoted() string {
	return flavor.QuoteString(a.User) + "@" + flavor.QuoteString(a.Host)
}

// sql is the script for the server's client: binlog, general and slow
// log off for the session, then per account CREATE USER IF NOT EXISTS (which keeps an old password),
// ALTER USER (which sets the wanted one) and GRANT. Every statement is valid
// on MariaDB 10.2+, MySQL 5.7+ and Percona Server.
func sql(accounts []Account) (string, error) {
	var b strings.Builder
	// The passwords must not reach the server's general or slow log either.
	b.WriteString("SET SESSION sql_log_bin = 0;\n" + flavor.UnloggedStatements + ";\n")
	for _, a := range accounts {
		if a.User == "" || a.Host == "" || a.Password == "" {
			return "", fmt.Errorf("account %s: user, host and password are required", a)
		}
		grants := a.Grants
		if a.Admin {
			grants = "ALL PRIVILEGES ON *.*"
		}
		if grants == "" {
			return "", fmt.Errorf("account %s: no grants", a)
		}
		pw := flavor.QuoteString(a.Password)
		fmt.Fprintf(&b, "CREATE USER IF NOT EXISTS %s IDENTIFIED BY %s;\n", a.quoted(), pw)
		fmt.Fprintf(&b, "ALTER USER %s IDENTIFIED BY %s;\n", a.quoted(), pw)
		fmt.Fprintf(&b, "GRANT %s TO %s", grants, a.quoted())
		if a.Admin {
			b.WriteString(" WITH GRANT OPTION")
		}
		b.WriteString(";\n")
	}
	return b.String(), nil
}

// clientScript runs the server's own client as root, logging in by socket
// with the host's option files (which name the socket): mariadb where it
// exists, else mysql. --batch stops at the first failed statement.
const clientScript = `if command -v mariadb >/dev/null 2>&1; then exec mariadb --batch; fi; exec mysql --batch`

// EnsureBySocket makes or updates the accounts on the host's server through
// root's unix socket, in one client session. A server whose root cannot
// log in by socket is reported with what to set instead.
func EnsureBySocket(ctx context.Context, ex executor.Executor, accounts ...Account) error {
	script, err := sql(accounts)
	if err != nil {
		return fmt.Errorf("%s: %w", ex.Name(), err)
	}
	names := make([]string, len(accounts))
	for i, a := range accounts {
		names[i] = a.String()
	}
	res, err := ex.Run(ctx, executor.Command{Script: clientScript, Sudo: true, Stdin: strings.NewReader(script)})
	if err == nil {
		return nil
	}
	msg := string(bytes.TrimSpace(res.Stderr))
	var ee *executor.ExitError
	if errors.As(err, &ee) && msg == "" {
		msg = ee.Stderr
	}
	if !errors.As(err, &ee) {
		return fmt.Errorf("%s: make accounts %s through root's unix socket: %w", ex.Name(), strings.Join(names, ", "), err)
	}
	for _, a := range accounts {
		msg = strings.ReplaceAll(msg, a.Password, flavor.Redaction) // a server may echo a statement
	}
	hint := ""
	if strings.Contains(msg, "1698") || strings.Contains(msg, "1045") {
		hint = ": root cannot log in by unix socket on this server; set mysql.user and mysql.password in the inventory"
	}
	return fmt.Errorf("%s: make accounts %s through root's unix socket: %s%s", ex.Name(), strings.Join(names, ", "), msg, hint)
}

// PasswordFile returns the password kept in path, first making one (128
// random bits, hex) in a file only its owner can read, in a directory only
// its owner can enter. The file appears whole or not at all (written aside,
// then hard-linked into place), and when two orch processes race, both
// use the one that got there first. The password is never printed.
func PasswordFile(path string) (string, error) {
	if pw, err := readPassword(path); !errors.Is(err, fs.ErrNotExist) {
		return pw, err
	}
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("password: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("password file: %w", err)
	}
	if err := topology.CheckPrivateNoFollow("orch state directory", filepath.Dir(path)); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*") // mode 0600
	if err != nil {
		return "", fmt.Errorf("password file: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(hex.EncodeToString(raw) + "\n")
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		return "", fmt.Errorf("password file %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("password file %s: %w", path, err)
	}
	return readPassword(path)
}

func readPassword(path string) (string, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, c := range []struct{ what, path string }{{"orch state directory", filepath.Dir(path)}, {"password file", path}} {
		if err := topology.CheckPrivateNoFollow(c.what, c.path); err != nil {
			return "", err
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("password file: %w", err)
	}
	pw := strings.TrimSpace(string(b))
	if pw == "" {
		return "", fmt.Errorf("password file %s is empty", path)
	}
	return pw, nil
}
