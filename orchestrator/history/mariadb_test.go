package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// privateMariaDB starts a MariaDB server of the machine's own binaries
// (the lab's packages) in a temporary directory, reachable only through
// its Unix socket, with a user orch (password in a 0600 file) and an
// empty database; it is stopped when the test ends. The server store is
// tested against it for real.
func privateMariaDB(t *testing.T) Config {
	t.Helper()
	server, err := exec.LookPath("mariadbd")
	if err != nil {
		server, err = exec.LookPath("/usr/sbin/mariadbd")
	}
	install, ierr := exec.LookPath("mariadb-install-db")
	client, cerr := exec.LookPath("mariadb")
	if err != nil || ierr != nil || cerr != nil {
		if os.Getenv("ORCH_REQUIRE_MARIADB") != "" {
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
	setup := "CREATE DATABASE orch_history; CREATE USER 'orch'@'localhost' IDENTIFIED BY 'h1st0ry-pw'; GRANT ALL ON orch_history.* TO 'orch'@'localhost';"
	deadline := time.Now().Add(60 * time.Second)
	for {
		cmd := exec.Command(client, "--no-defaults", "-S", sock, "-uroot")
		cmd.Stdin = strings.NewReader(setup) // the password never in argv
		out, err := cmd.CombinedOutput()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("MariaDB did not come up: %v %s\n%s", err, out, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	pw := filepath.Join(dir, "password")
	if err := os.WriteFile(pw, []byte("h1st0ry-pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return Config{Address: sock, User: "orch", Database: "orch_history", PasswordFile: pw}
}

// One MariaDB for the server store's tests (it takes seconds to start).
func TestMariaDBStore(t *testing.T) {
	c := privateMariaDB(t)
	ctx := context.Background()

	t.Run("created, recorded once, read back", func(t *testing.T) {
		s, err := Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.Version != SchemaVersion {
			t.Errorf("schema version %d, want %d", s.Version, SchemaVersion)
		}
		es := entries("m", 6, func(i int) float64 { return float64(1000 + i) })
		for i := 0; i < 2; i++ {
			n, err := s.Record(ctx, es)
			if err != nil || n != []int{6, 0}[i] {
				t.Fatalf("record %d: %d, %v", i+1, n, err)
			}
		}
		got, err := s.Entries(ctx, Filter{Workload: "pure-random-writes"})
		if err != nil || len(got) != 6 || got[5].Value != 1005 || got[5].Identity != es[5].Identity {
			t.Fatalf("read back %d: %v", len(got), err)
		}
	})

	t.Run("two writers at once lose nothing", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Open(ctx, c) // each its own connections, as two orch processes
				if err != nil {
					errs <- err
					return
				}
				defer s.Close()
				es := entries(fmt.Sprintf("w%d", w), 30, func(i int) float64 { return float64(i) })
				for i := range es {
					if _, err := s.Record(ctx, es[i:i+1]); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		s, err := Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got, _ := s.Entries(ctx, Filter{})
		if len(got) != 6+60 {
			t.Fatalf("%d runs, want 66", len(got))
		}
	})

	t.Run("a newer schema is refused and left alone", func(t *testing.T) {
		s, err := Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.Exec(`UPDATE orch_history_meta SET value = '7' WHERE name = 'schema_version'`); err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err = Open(ctx, c)
		if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "orch@"+c.Address+"/orch_history") {
			t.Fatalf("newer schema: %v", err)
		}
	})

	t.Run("a password file others can read is refused", func(t *testing.T) {
		loose := filepath.Join(t.TempDir(), "pw")
		os.WriteFile(loose, []byte("x"), 0o644)
		bad := c
		bad.PasswordFile = loose
		if _, err := Open(ctx, bad); err == nil || !strings.Contains(err.Error(), "readable by others") {
			t.Fatalf("loose password file: %v", err)
		}
	})
}
