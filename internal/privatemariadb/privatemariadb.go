// Package privatemariadb starts a MariaDB server of the machine's own
// binaries (the lab's packages) in a temporary directory, for tests of
// what orch keeps in a MariaDB/MySQL database (the shared results store):
// reachable only through its Unix socket, with a user orch (its password
// in a 0600 file) and an empty database, stopped when the test ends. It
// touches no server orch did not start.
package privatemariadb

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is a running private server: its socket, and the account and
// database a store uses.
type Server struct {
	Socket, User, Database, PasswordFile string
}

// Start starts one. Without the binaries the test is skipped, unless
// required (make test sets ORCH_REQUIRE_MARIADB, and lab tests require it):
// then it fails.
func Start(t testing.TB, required bool) Server {
	t.Helper()
	server, err := exec.LookPath("mariadbd")
	if err != nil {
		server, err = exec.LookPath("/usr/sbin/mariadbd")
	}
	install, ierr := exec.LookPath("mariadb-install-db")
	client, cerr := exec.LookPath("mariadb")
	if err != nil || ierr != nil || cerr != nil {
		if required || os.Getenv("ORCH_REQUIRE_MARIADB") != "" {
			t.Fatalf("MariaDB server binaries not found (./scripts/lab-deps.sh --test installs them): %v %v %v", err, ierr, cerr)
		}
		t.Skip("no MariaDB server binaries (make test requires them: ORCH_REQUIRE_MARIADB)")
	}
	// A short path: a Unix socket's path is limited to 107 bytes.
	dir, err := os.MkdirTemp("", "orch-mdb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	user := []string{}
	if os.Geteuid() == 0 {
		user = []string{"--user=root"}
	}
	out, err := exec.Command(install, append([]string{"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=socket", "--skip-test-db"}, user...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	srv := exec.Command(server, append([]string{"--no-defaults", "--datadir=" + data, "--socket=" + sock, "--skip-networking",
		"--pid-file=" + filepath.Join(dir, "pid"), "--log-error=" + filepath.Join(dir, "error.log"), "--innodb-buffer-pool-size=32M"}, user...)...)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Signal(syscall.SIGTERM) // mariadbd's clean shutdown
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			srv.Process.Kill()
			<-done
		}
	})
	root := func(sql string) error {
		cmd := exec.Command(client, "--no-defaults", "-S", sock, "-uroot")
		cmd.Stdin = strings.NewReader(sql) // a password never in argv
		if out, err := cmd.CombinedOutput(); err != nil {
			return &sqlError{err: err, out: string(out)}
		}
		return nil
	}
	setup := "CREATE DATABASE orch_history; CREATE USER 'orch'@'localhost' IDENTIFIED BY 'h1st0ry-pw'; GRANT ALL ON orch_history.* TO 'orch'@'localhost';"
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := root(setup)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("MariaDB did not come up: %v\n%s", err, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	pw := filepath.Join(dir, "password")
	if err := os.WriteFile(pw, []byte("h1st0ry-pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return Server{Socket: sock, User: "orch", Database: "orch_history", PasswordFile: pw}
}

type sqlError struct {
	err error
	out string
}

func (e *sqlError) Error() string { return e.err.Error() + ": " + strings.TrimSpace(e.out) }
