package account

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// The statements, written by hand from the MariaDB and MySQL manuals
// (CREATE USER, ALTER USER, GRANT; a quote inside a string doubled, a
// backslash escaped), with a value that needs quoting.
func TestSQL(t *testing.T) {
	got, err := sql([]Account{
		{User: "orch", Host: "%", Password: `p'w\x`, Admin: true},
		{User: "sbtest", Host: "10.0.0.14", Password: "b", Grants: "ALL PRIVILEGES ON sbtest.*"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `SET SESSION sql_log_bin = 0;
SET SESSION sql_log_off = 1; SET SESSION long_query_time = 31536000;
CREATE USER IF NOT EXISTS 'orch'@'%' IDENTIFIED BY 'p''w\\x';
ALTER USER 'orch'@'%' IDENTIFIED BY 'p''w\\x';
GRANT ALL PRIVILEGES ON *.* TO 'orch'@'%' WITH GRANT OPTION;
CREATE USER IF NOT EXISTS 'sbtest'@'10.0.0.14' IDENTIFIED BY 'b';
ALTER USER 'sbtest'@'10.0.0.14' IDENTIFIED BY 'b';
GRANT ALL PRIVILEGES ON sbtest.* TO 'sbtest'@'10.0.0.14';
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []Account{
		{User: "orch", Host: "%", Admin: true},
		{User: "orch", Host: "%", Password: "x"},
		{Host: "%", Password: "x", Admin: true},
	} {
		if _, err := sql([]Account{bad}); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestPasswordFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "cluster", "admin-password")
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pw, err := PasswordFile(path)
			if err != nil {
				t.Error(err)
			}
			got[i] = pw
		}()
	}
	wg.Wait()
	for _, pw := range got {
		if pw != got[0] || len(pw) != 32 {
			t.Fatalf("racing callers got different or short passwords: %q", got)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("password file mode %v, %v; want 0600", fi.Mode(), err)
	}
	if di, err := os.Stat(filepath.Dir(path)); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("password dir mode %v, %v; want 0700", di.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if again, err := PasswordFile(path); err != nil || again != got[0] {
		t.Errorf("second call: %q, %v", again, err)
	}
	os.WriteFile(path, []byte("\n"), 0o600)
	if _, err := PasswordFile(path); err == nil {
		t.Error("an empty password file was accepted")
	}
}

// A client that fails echoes what it was fed, as a server's syntax error
// quotes the statement: the password must not reach the error, and a
// refused socket login says what to set instead.
func TestEnsureBySocketErrorHidesPassword(t *testing.T) {
	bin := t.TempDir()
	client := "#!/bin/sh\ncat >&2\necho \"ERROR 1698 (28000): Access denied for user 'root'@'localhost'\" >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "mariadb"), []byte(client), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	err := EnsureBySocket(context.Background(), executor.NewLocal("db1"),
		Account{User: "orch", Host: "%", Password: "s3cret-value", Admin: true})
	if err == nil {
		t.Fatal("a failed client reported success")
	}
	msg := err.Error()
	if strings.Contains(msg, "s3cret-value") {
		t.Errorf("password in error: %s", msg)
	}
	for _, want := range []string{"db1 localhost", "orch@%", "1698", "set mysql.user and mysql.password"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q: %s", want, msg)
		}
	}
}

// TestPlantedPasswordFileRefused (N3): with the state directory on a
// shared path, a password file another user planted there (0644, theirs)
// is refused naming the path instead of being used, and so is a cluster
// directory they made.
func TestPlantedPasswordFileRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("planting as another user needs root")
	}
	shared := t.TempDir()
	os.Chmod(shared, 0o1777)
	dir := filepath.Join(shared, "lab-0123abcd")
	os.Mkdir(dir, 0o755)
	os.Chown(dir, 65534, 65534)
	path := filepath.Join(dir, AdminPasswordFile)
	os.WriteFile(path, []byte("attacker-knows-this\n"), 0o644)
	os.Chown(path, 65534, 65534)
	_, err := PasswordFile(path)
	if err == nil || !strings.Contains(err.Error(), dir+" is owned by uid 65534") {
		t.Fatalf("planted directory: %v", err)
	}
	os.Chown(dir, 0, 0)
	os.Chmod(dir, 0o700)
	if _, err := PasswordFile(path); err == nil || !strings.Contains(err.Error(), path+" is owned by uid 65534") {
		t.Fatalf("planted file: %v", err)
	}
}

// TestRememberKeepsACopy: what orch records on a server of a cluster whose
// accounts it manages is copied, 0600, into the cluster's state directory.
func TestRememberKeepsACopy(t *testing.T) {
	t.Setenv(EnvStateDir, t.TempDir())
	inv := &topology.Inventory{Name: "c", Hosts: []*topology.Host{{Name: "m", Role: topology.RoleMaster, Address: "10.0.0.1"}}}
	inv.Hosts[0].MySQL.Managed = true
	dir, _ := StateDir(inv)
	Resolve(inv, dir)
	if err := Remember(inv, "m", []Item{AccountItem("orch", "localhost"), {KindSchema, "sbtest"}}); err != nil {
		t.Fatal(err)
	}
	if err := Remember(inv, "m", []Item{AccountItem("orch", "localhost")}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, OwnedFile)
	b, err := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if err != nil || string(b) != "m account orch@localhost\nm schema sbtest\n" || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: %q %v", p, b, err)
	}
}
