package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// passwordInventory is the lab's inventory for the user bench (password
// login, sudo with that password) and the password itself.
func (l *lab) passwordInventory(t *testing.T) (inv, password string) {
	t.Helper()
	doc := l.inventoryDoc(t, "lab-password.yaml")
	ssh := doc["defaults"].(map[string]any)["ssh"].(map[string]any)
	file := ssh["sudo_password"].(map[string]any)["file"].(string)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(filepath.Dir(l.inventory), "lab-password.yaml"), strings.TrimSpace(string(b))
}

// TestSudoPasswordNeverReachesTheCommand: with a sudoers rule that lets
// bench run /bin/sh without a password (and everything else with one),
// `orch exec --sudo -- cat` runs as root and prints nothing: before, orch
// chose sudo -S from a `sudo -n true` probe, sudo did not read the password
// line, and cat printed it. Without the rule, the password is read by sudo
// and, again, never by the command.
func TestSudoPasswordNeverReachesTheCommand(t *testing.T) {
	l := needLab(t)
	inv, pw := l.passwordInventory(t)
	const rule = "/etc/sudoers.d/zz-orch-test-nopasswd-sh"
	l.mustOK(t, "exec", "-i", l.inventory, "--role", "loadbox", "--",
		"printf 'bench ALL=(ALL) NOPASSWD: /bin/sh\\n' > "+rule+".tmp && chmod 0440 "+rule+".tmp && visudo -qcf "+rule+".tmp && mv "+rule+".tmp "+rule)
	removed := false
	remove := func() {
		if !removed {
			l.mustOK(t, "exec", "-i", l.inventory, "--role", "loadbox", "--", "rm -f "+rule+" "+rule+".tmp")
			removed = true
		}
	}
	t.Cleanup(remove)

	for _, phase := range []string{"NOPASSWD: /bin/sh", "password for everything"} {
		r := l.mustOK(t, "exec", "-i", inv, "--role", "loadbox", "--sudo", "--", "cat; echo uid=$(id -u)")
		if strings.Contains(r.stdout+r.stderr, pw) {
			t.Fatalf("%s: the sudo password reached the command's output", phase)
		}
		if strings.TrimSpace(r.stdout) != "loadbox | uid=0" {
			t.Fatalf("%s: output %q, want only loadbox | uid=0 (cat had nothing to read)", phase, r.stdout)
		}
		remove()
	}
}

// TestTooLongReplicationPasswordScrubbed: MariaDB refuses a replication
// password over 96 characters with error 1470, quoting its first 64
// characters and "..."; orch knows the limit (the flavour table) and
// refuses it before any host when the inventory names the flavour, after
// connecting but before any restart when it does not, and the password
// never reaches orch's output. The cluster is brought back with the lab's
// own inventory afterwards.
func TestTooLongReplicationPasswordScrubbed(t *testing.T) {
	l := needLab(t)
	dir := t.TempDir()
	pw := strings.Repeat("Zq8-long-repl-pw-", 8) // 136 characters
	pwFile := filepath.Join(dir, "repl-password")
	if err := os.WriteFile(pwFile, []byte(pw+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	doc := l.inventoryDoc(t, "lab.yaml")
	repl, _ := doc["replication"].(map[string]any)
	if repl == nil {
		repl = map[string]any{}
		doc["replication"] = repl
	}
	repl["password"] = map[string]any{"file": pwFile}
	inv := filepath.Join(dir, "lab.yaml")
	writeYAML(t, inv, doc)
	t.Cleanup(func() { l.mustOK(t, "up", "-i", l.inventory, "--engine", "innodb") })
	// up leaves working replication alone: unwire slave1 so that up wires
	// it again, with the new password.
	l.mustOK(t, "exec", "-i", l.inventory, "--role", "slave1", "--", `mariadb -e "STOP SLAVE; RESET SLAVE ALL"`)

	r := l.orch(t, "up", "-i", inv, "--engine", "innodb")
	if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 ||
		!strings.Contains(r.stderr, "the replication password is 136 characters; MariaDB 10.11") || !strings.Contains(r.stderr, "takes at most 96") {
		t.Fatalf("exit %d; want 2 and one line with the limit, before any host:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, pw[:12]) {
		t.Fatal("the replication password's first characters are in orch's output")
	}
	// Without the flavour in the inventory the server says what it is:
	// refused after connecting, before any restart.
	mysqlDefaults := doc["defaults"].(map[string]any)["mysql"].(map[string]any)
	delete(mysqlDefaults, "flavor")
	writeYAML(t, inv, doc)
	r = l.orch(t, "up", "-i", inv, "--engine", "innodb")
	if r.code == 0 || !strings.Contains(r.stderr, "takes at most 96") || !strings.Contains(r.stderr, "nothing was restarted") || strings.Contains(r.stderr, " restart (") {
		t.Fatalf("exit %d; want the limit before any restart:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, pw[:12]) {
		t.Fatal("the replication password's first characters are in orch's output")
	}
}

// TestBenchmarkWorkdirPrivate: the benchmark's working directory on the
// load box is the run's own (made by the SSH user in their home, mode
// 0700, recorded in the manifest), the benchmark runs with that user's
// rights, and the directory goes once everything is collected. Before, it
// was /var/tmp/orch/<run>, predictable and shared by every user.
func TestBenchmarkWorkdirPrivate(t *testing.T) {
	l := needLab(t)
	pwInv, _ := l.passwordInventory(t)
	l.mustOK(t, "up", "-i", l.inventory, "--engine", "innodb")
	runs := t.TempDir()
	short := []string{"--workload", "pure-random-writes", "--no-up", "--tables", "1", "--table-size", "100",
		"--threads", "1", "--time", "2", "--runs", runs}

	// As bench, kept: look at it on the load box.
	r := l.mustOK(t, append([]string{"run", "-i", pwInv, "--keep-remote"}, short...)...)
	dir := runDir(t, r)
	rem, _ := readJSON(t, filepath.Join(dir, "manifest.json"))["remote"].(map[string]any)
	wd, _ := rem["dir"].(string)
	if !strings.HasPrefix(wd, "/home/bench/orch-run-"+filepath.Base(dir)+".") || rem["removed"] != nil {
		t.Fatalf("manifest remote %v: want a kept directory /home/bench/orch-run-%s.XXXXXXXXXX", rem, filepath.Base(dir))
	}
	st := l.mustOK(t, "exec", "-i", l.inventory, "--role", "loadbox", "--", "stat -c '%a %U %F' "+wd+" "+wd+"/run.out")
	if want := "loadbox | 700 bench directory\nloadbox | 600 bench regular file\n"; st.stdout != want &&
		st.stdout != strings.Replace(want, "600", "644", 1) {
		t.Fatalf("on the load box:\n%s\nwant the directory 0700 and the benchmark's output owned by bench", st.stdout)
	}

	// A manifest edited to name other files is refused before any host is
	// contacted, and nothing is fetched.
	manifest := filepath.Join(dir, "manifest.json")
	orig := mustRead(t, manifest)
	before := listFiles(t, dir)
	for name, entry := range map[string]string{
		"/etc/shadow as root": `{"host": "master", "remote": "/etc/shadow", "local": "hosts/master/error.log", "kind": "log-slice", "sudo": true}`,
		"local:/etc/hostname": `{"host": "local", "remote": "/etc/hostname", "local": "benchmark/cleanup.txt", "kind": "file"}`,
	} {
		edited := strings.Replace(string(orig), `"expected": [`, `"expected": [`+entry+",", 1)
		if edited == string(orig) {
			t.Fatal("manifest has no expected files to edit")
		}
		os.WriteFile(manifest, []byte(edited), 0o644)
		r := l.orch(t, "collect", "-i", pwInv, dir)
		if r.code != 2 || !strings.Contains(r.stderr, "refused") || strings.Contains(r.stdout, "fetched") {
			t.Errorf("%s: collect exit %d, stderr %q: want exit 2, refused, nothing fetched", name, r.code, r.stderr)
		}
		os.WriteFile(manifest, orig, 0o644)
		if after := listFiles(t, dir); after != before {
			t.Errorf("%s: the run directory changed:\n%s\nwas\n%s", name, after, before)
		}
	}

	// A complete collect removes it.
	r = l.mustOK(t, "collect", "-i", pwInv, dir)
	if !strings.Contains(r.stdout, "removed the benchmark's working directory") {
		t.Errorf("collect did not remove %s:\n%s", wd, r.stdout)
	}
	l.mustOK(t, "exec", "-i", l.inventory, "--role", "loadbox", "--", "test ! -e "+wd)

	// As root, not kept: a directory in /root, gone at the end of the run.
	r = l.mustOK(t, append([]string{"run", "-i", l.inventory}, short...)...)
	dir2 := runDir(t, r)
	rem2, _ := readJSON(t, filepath.Join(dir2, "manifest.json"))["remote"].(map[string]any)
	wd2, _ := rem2["dir"].(string)
	if !strings.HasPrefix(wd2, "/root/orch-run-") || rem2["removed"] != true {
		t.Fatalf("manifest remote %v: want a removed directory in /root", rem2)
	}
	l.mustOK(t, "exec", "-i", l.inventory, "--role", "loadbox", "--", "test ! -e "+wd2+" && test ! -e /var/tmp/orch/"+filepath.Base(dir2))
}

// listFiles lists a directory tree's files with their sizes.
func listFiles(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			fmt.Fprintf(&b, "%s %d\n", strings.TrimPrefix(p, dir), fi.Size())
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestBenchmarkLockOfAnotherAccount (N7): a session of another account
// (here root's, on the master's socket) holding the cluster's benchmark
// lock (orch.benchmark.<inventory name>) stops a run, which names that
// account and does not call it an orch run.
func TestBenchmarkLockOfAnotherAccount(t *testing.T) {
	l := needLab(t)
	name, _ := l.inventoryDoc(t, filepath.Base(l.inventory))["name"].(string)
	if name == "" {
		t.Fatal("lab inventory: no name")
	}
	lock := "orch.benchmark." + name
	kill := `id=$(mariadb -N -e "SELECT IS_USED_LOCK('` + lock + `')"); [ "$id" = NULL ] || mariadb -e "KILL $id"`
	t.Cleanup(func() { l.cleanup(t, "exec", "-i", l.inventory, "--role", "master", "--", kill) })
	l.mustOK(t, "exec", "-i", l.inventory, "--role", "master", "--",
		`setsid sh -c "mariadb -e \"SELECT GET_LOCK('`+lock+`', 0), SLEEP(60)\"" >/dev/null 2>&1 < /dev/null &
for i in 1 2 3 4 5 6 7 8 9 10; do [ "$(mariadb -N -e "SELECT IS_USED_LOCK('`+lock+`')")" != NULL ] && exit 0; sleep 0.3; done; exit 1`)
	r := l.orch(t, "run", "-i", l.inventory, "--workload", "pure-random-writes", "--tables", "1", "--table-size", "100",
		"--threads", "1", "--time", "2", "--runs", t.TempDir())
	if r.code == 0 || !strings.Contains(r.stderr, "is held by root@localhost (connection ") || !strings.Contains(r.stderr, "not an orch run") {
		t.Errorf("run beside another account's lock: exit %d, stderr %q", r.code, r.stderr)
	}
}
