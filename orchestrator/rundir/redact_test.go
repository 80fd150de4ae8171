package rundir

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	got := Redact("user=orch pass=s3cret s3cret-long s3cret", "s3cret", "", "s3cret-long")
	if got != "user=orch pass=*** *** ***" {
		t.Fatalf("Redact = %q", got)
	}
	if got := Redact("nothing here"); got != "nothing here" {
		t.Fatalf("Redact without secrets = %q", got)
	}
}

func TestRedactArgs(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{
			[]string{"sysbench", "--mysql-host=10.0.0.1", "--mysql-password=x y'z", "oltp_insert", "run"},
			[]string{"sysbench", "--mysql-host=10.0.0.1", "--mysql-password=***", "oltp_insert", "run"},
		},
		{
			[]string{"mysql", "-uroot", "-phunter2", "-P3306", "-p"},
			[]string{"mysql", "-uroot", "-p***", "-P3306", "-p"},
		},
		{
			[]string{"find", "/d", "-perm", "/077", "-print"},
			[]string{"find", "/d", "-perm", "/077", "-print"},
		},
		{
			[]string{"orch", "run", "--password", "hunter2", "--threads", "8"},
			[]string{"orch", "run", "--password", "***", "--threads", "8"},
		},
		{ // a flag whose value is omitted does not swallow the next flag
			[]string{"mysql", "--password", "--host=h"},
			[]string{"mysql", "--password", "--host=h"},
		},
		{
			[]string{"env", "MYSQL_PWD=hunter2", "ssh_passphrase=abc", "knob=innodb_flush_log_at_trx_commit=1"},
			[]string{"env", "MYSQL_PWD=***", "ssh_passphrase=***", "knob=innodb_flush_log_at_trx_commit=1"},
		},
		{ // references to secrets are kept: they help reproduce the run
			[]string{"orch", "--password-file=/etc/orch/pw", "--secret-env", "ORCH_PW"},
			[]string{"orch", "--password-file=/etc/orch/pw", "--secret-env", "ORCH_PW"},
		},
		{
			[]string{"mariadb", "-e", "CREATE USER 'repl'@'%' IDENTIFIED BY 'r3pl'", "mysql://orch:pa55@10.0.0.1:3306/db"},
			[]string{"mariadb", "-e", "CREATE USER 'repl'@'%' IDENTIFIED BY '***'", "mysql://orch:***@10.0.0.1:3306/db"},
		},
	} {
		if got := RedactArgs(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("RedactArgs(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	// Literal secrets are masked wherever they appear, and the input is
	// not modified.
	in := []string{"orch", "run", "--note=uses hunter2 twice: hunter2"}
	got := RedactArgs(in, "hunter2")
	if got[2] != "--note=uses *** twice: ***" || in[2] != "--note=uses hunter2 twice: hunter2" {
		t.Fatalf("literal secret: %q (input now %q)", got, in)
	}
}

func TestRedactLine(t *testing.T) {
	for in, want := range map[string]string{
		"sysbench --mysql-user=sb --mysql-password='a b' --threads=8 oltp_insert run":   "sysbench --mysql-user=sb --mysql-password='***' --threads=8 oltp_insert run",
		`mysql -uroot -p"x y" -h 10.0.0.1`:                                              `mysql -uroot -p"***" -h 10.0.0.1`,
		"orch run --password hunter2 --threads 8":                                       "orch run --password *** --threads 8",
		`{"user": "orch", "password": "hunter2", "port": 3306}`:                         `{"user": "orch", "password": "***", "port": 3306}`,
		"x: --mysql-password=hunter2":                                                   "x: --mysql-password=***",
		"SET PASSWORD FOR 'a'@'%' = PASSWORD('hunter2')":                                "SET PASSWORD FOR 'a'@'%' = PASSWORD('***')",
		"CHANGE MASTER TO MASTER_USER='repl', MASTER_PASSWORD='r3pl', MASTER_PORT=3306": "CHANGE MASTER TO MASTER_USER='repl', MASTER_PASSWORD='***', MASTER_PORT=3306",
		"ssh -p 2222 host":                        "ssh -p 2222 host",
		"--password-file /etc/orch/pw -P3306 ok":  "--password-file /etc/orch/pw -P3306 ok",
		"postgres://u:pw@h/db and mysql://u@h/db": "postgres://u:***@h/db and mysql://u@h/db",
		// find's primaries are no -pPASSWORD; sshpass's -p is.
		"find /tmp/x -perm /077 -path '*/a' -prune -o -print0": "find /tmp/x -perm /077 -path '*/a' -prune -o -print0",
		"sshpass -phunter2 ssh h; find . -printf '%p'":         "sshpass -p*** ssh h; find . -printf '%p'",
	} {
		if got := RedactLine(in); got != want {
			t.Errorf("RedactLine(%q)\n got %q\nwant %q", in, got, want)
		}
	}
	if got := RedactLine("connected with token-7f3e", "token-7f3e"); got != "connected with ***" {
		t.Fatalf("literal: %q", got)
	}
}

func TestScanForSecrets(t *testing.T) {
	dir := t.TempDir()
	secret := "Zq8-hunter2-Zq8"
	write := func(rel string, data []byte) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("manifest.json", []byte(`{"command":["orch","--mysql-password=***"]}`))
	write("hosts/master/error.log", []byte("Access denied for user 'orch' (using password: "+secret+")\n"))
	// Straddling the 64 KiB read boundary: found only if reads overlap.
	big := bytes.Repeat([]byte("."), 64<<10-5)
	write("timeseries/master-mysql.csv", append(big, []byte(secret+"\n")...))
	write("benchmark/run.txt", []byte(strings.Repeat("clean line\n", 10000)))
	write("hosts/"+secret+"/config.cnf", []byte("no secret inside"))
	// A symlink pointing at a file with the secret is not followed.
	outside := filepath.Join(t.TempDir(), "outside")
	os.WriteFile(outside, []byte(secret), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "latest")); err != nil {
		t.Fatal(err)
	}

	got, err := ScanForSecrets(dir, []string{"", "other-secret", secret})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hosts/" + secret, "hosts/master/error.log", "timeseries/master-mysql.csv"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ScanForSecrets = %q, want %q", got, want)
	}
	if got, err := ScanForSecrets(dir, []string{""}); err != nil || got != nil {
		t.Fatalf("no secrets: %q %v", got, err)
	}
	if _, err := ScanForSecrets(filepath.Join(dir, "nope"), []string{"a-strong-secret"}); err == nil {
		t.Fatal("scanning a missing directory succeeded")
	}
}
