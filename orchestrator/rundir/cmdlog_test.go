package rundir

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// readLines parses a command log, failing on any line that is not JSON.
func readLines(t *testing.T, p string) []CommandLine {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []CommandLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l CommandLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: line %d: %v: %s", p, len(out)+1, err, sc.Text())
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return out
}

// The statements below are written as the MariaDB and MySQL manuals write
// them (CREATE USER, ALTER USER, SET PASSWORD, CHANGE MASTER TO, CHANGE
// REPLICATION SOURCE TO, START REPLICA), each with its password literal.
var manualStatements = []struct{ sql, password string }{
	{`CREATE USER foo2@test IDENTIFIED BY 'mariadb';`, "mariadb"},
	{`ALTER USER 'bob'@'localhost' IDENTIFIED BY 'new_password';`, "new_password"},
	{`CREATE USER 'jeffrey'@'localhost' IDENTIFIED WITH caching_sha2_password BY 'passw0rd-sha2';`, "passw0rd-sha2"},
	{`CREATE USER safe@'%' IDENTIFIED VIA ed25519 USING PASSWORD('secret-ed');`, "secret-ed"},
	{`SET PASSWORD FOR 'bob'@'%.loc.gov' = PASSWORD('newpass');`, "newpass"},
	{`SET PASSWORD FOR 'jeffrey'@'localhost' = 'auth_string';`, "auth_string"},
	{`CHANGE MASTER TO MASTER_HOST='master.example.com', MASTER_USER='replication_user', MASTER_PASSWORD='bigs3cret', MASTER_PORT=3306, MASTER_CONNECT_RETRY=10;`, "bigs3cret"},
	{`CHANGE REPLICATION SOURCE TO SOURCE_HOST='source2.example.com', SOURCE_USER='replication', SOURCE_PASSWORD='src-pa55', SOURCE_LOG_FILE='source2-bin.001', SOURCE_LOG_POS=4;`, "src-pa55"},
	{`START REPLICA USER='user_name' PASSWORD='user_pass';`, "user_pass"},
	{`CREATE USER 'o''brien'@'%' IDENTIFIED BY 'it''s-a-s3cret';`, "s-a-s3cret"},
}

func TestCommandLogRedactsStatements(t *testing.T) {
	d, err := Create(t.TempDir(), "r", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	l := d.CommandLog("inventory-pw-1")
	for _, s := range manualStatements {
		l.Record(executor.Record{Start: time.Now(), Host: "master", Kind: executor.KindSQL, Text: s.sql, Duration: time.Millisecond})
	}
	zero := 0
	l.Record(executor.Record{Start: time.Now(), Host: "master", Kind: executor.KindShell, Exit: &zero,
		Text:    `mysql --user=root --password=inventory-pw-1 -e 'SELECT 1'`,
		Env:     map[string]string{"MYSQL_PWD": "env-pw-2", "LANG": "C"},
		Secrets: []string{"stdin-pw-3"}, Err: errors.New("master: command exited 1: denied for stdin-pw-3")})
	l.Record(executor.Record{Start: time.Now(), Host: "master", Kind: executor.KindUpload, Text: "/tmp/x.sh (mode 0700)",
		Content: "#!/bin/sh\nmysql -uroot -pcontent-pw-4 <<'E'\nSET PASSWORD = PASSWORD('content-pw-5');\nE\n"})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d.HostDir("master"), HostCommands)
	lines := readLines(t, p)
	if len(lines) != len(manualStatements)+2 {
		t.Fatalf("%d lines", len(lines))
	}
	raw, _ := os.ReadFile(p)
	for _, s := range manualStatements {
		if strings.Contains(string(raw), s.password) {
			t.Errorf("password %q of %s is in the log", s.password, s.sql)
		}
	}
	for _, sec := range []string{"inventory-pw-1", "env-pw-2", "stdin-pw-3", "content-pw-4", "content-pw-5"} {
		if strings.Contains(string(raw), sec) {
			t.Errorf("%s is in the log", sec)
		}
	}
	// What is not secret stays readable.
	if !strings.Contains(lines[6].Command, "MASTER_HOST='master.example.com'") || lines[0].Kind != "sql" || lines[0].DurationMS != 1 {
		t.Errorf("line: %+v", lines[6])
	}
	if up := lines[len(lines)-1]; !strings.Contains(up.Content, "SET PASSWORD = PASSWORD('***')") {
		t.Errorf("script: %q", up.Content)
	}
	if sh := lines[len(lines)-2]; sh.Env["LANG"] != "C" || sh.Exit == nil || *sh.Exit != 0 || !strings.Contains(sh.Error, "denied") {
		t.Errorf("shell line: %+v", sh)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v %v", st.Mode(), err)
	}
}

func TestCommandLogConcurrentHosts(t *testing.T) {
	d, err := Create(t.TempDir(), "r", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	l := d.CommandLog()
	hosts := []string{"master", "slave1", "slave2"}
	const each = 200
	var wg sync.WaitGroup
	for _, h := range hosts {
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each/4; i++ {
					l.Record(executor.Record{Start: time.Now(), Host: h, Kind: executor.KindSQL,
						Text: fmt.Sprintf("SELECT %d, '%s'", i, strings.Repeat("x", 5000))})
				}
			}()
		}
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		lines := readLines(t, filepath.Join(d.HostDir(h), HostCommands))
		if len(lines) != each {
			t.Errorf("%s: %d lines, want %d", h, len(lines), each)
		}
		for _, x := range lines {
			if x.Host != h {
				t.Errorf("%s's log has a line of %s", h, x.Host)
			}
		}
	}
}

func TestOpenCommandLog(t *testing.T) {
	p := filepath.Join(t.TempDir(), "up.jsonl")
	l, err := OpenCommandLog(p)
	if err != nil {
		t.Fatal(err)
	}
	// The file exists before anything is recorded: the path is checked.
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("%v %v", st, err)
	}
	l.Record(executor.Record{Host: "master", Kind: executor.KindShell, Text: "true"})
	l.Record(executor.Record{Host: "slave1", Kind: executor.KindShell, Text: "true"})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if lines := readLines(t, p); len(lines) != 2 || lines[1].Host != "slave1" {
		t.Errorf("%+v", lines)
	}
	if _, err := OpenCommandLog(filepath.Join(p, "no", "dir")); err == nil {
		t.Error("a log under a file opened")
	}
}

// The review's --log: a planted symlink was followed, and a 0666 file kept
// 0666. A symlink is refused (its target untouched), so is a file others
// may write or a fifo; a private existing file is appended to.
func TestOpenCommandLogRefusesPlanted(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCommandLog(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("symlink: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	open := filepath.Join(dir, "open.jsonl")
	if err := os.WriteFile(open, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCommandLog(open); err == nil || !strings.Contains(err.Error(), "lets others write it") {
		t.Errorf("0666 file: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Refused without blocking on the open (no reader: ENXIO; with one,
	// "not a regular file").
	if _, err := OpenCommandLog(fifo); err == nil {
		t.Error("fifo opened")
	}
	mine := filepath.Join(dir, "mine.jsonl")
	if err := os.WriteFile(mine, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := OpenCommandLog(mine)
	if err != nil {
		t.Fatalf("own private file: %v", err)
	}
	l.Close()
}

func TestCommandLogClipsHugeText(t *testing.T) {
	d, err := Create(t.TempDir(), "r", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	l := d.CommandLog()
	big := "INSERT INTO t VALUES " + strings.Repeat("('é'),", 40000)
	l.Record(executor.Record{Host: "master", Kind: executor.KindSQL, Text: big, BytesOut: int64(len(big))})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, filepath.Join(d.HostDir("master"), HostCommands))
	if len(lines) != 1 || len(lines[0].Command) > 70<<10 || !strings.HasSuffix(lines[0].Command, " more bytes)") ||
		lines[0].BytesOut != int64(len(big)) || !utf8.ValidString(lines[0].Command) {
		t.Errorf("%d bytes kept, ends %q", len(lines[0].Command), lines[0].Command[len(lines[0].Command)-30:])
	}
}
