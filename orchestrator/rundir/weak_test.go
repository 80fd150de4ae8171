package rundir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWeak(t *testing.T) {
	for s, want := range map[string]bool{
		"1": true, "root": true, "mysql": true, "Password": true, "12345678": true, "s3cret": true,
		"Zq8-hunter2-Zq8": false, "correct horse": false, "8charsXY": false,
	} {
		if got := Weak(s); got != want {
			t.Errorf("Weak(%q) = %v, want %v", s, got, want)
		}
	}
}

// A weak password is masked where it stands as a word, never inside other
// words: the password "1" leaves a cell id alone.
func TestRedactWeakByWholeWord(t *testing.T) {
	for _, c := range []struct{ in, secret, want string }{
		{"cell 01-innodb-r1 failed", "1", "cell 01-innodb-r1 failed"},
		{"MYSQL_PWD=1 sysbench '1' \"1\" 1", "1", "MYSQL_PWD=*** sysbench '***' \"***\" ***"},
		{"user root, home /root, mysqld-root.sock", "root", "user ***, home /***, mysqld-root.sock"},
		{"innodb_buffer_pool_size mysqld mysql", "mysql", "innodb_buffer_pool_size mysqld ***"},
		{"x!pw y", "!pw", "x*** y"}, // a secret with punctuation bounds itself
		{"hunter2-pw-x.pw pw", "pw", "hunter2-pw-x.pw ***"},
		// strong secrets stay masked anywhere, even glued to a flag
		{"-pZq8-hunter2-Zq8 xZq8-hunter2-Zq8x", "Zq8-hunter2-Zq8", "-p*** x***x"},
	} {
		if got := Redact(c.in, c.secret); got != c.want {
			t.Errorf("Redact(%q, %q) = %q, want %q", c.in, c.secret, got, c.want)
		}
	}
}

// A run with a weak password does not fail its secret scan on words that
// merely equal it; a strong password is still found.
func TestScanIgnoresWeakSecrets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"ssh":{"user":"root"},"threads":1}`), 0o644)
	os.WriteFile(filepath.Join(dir, "status.tsv"), []byte("Slave_running\t1\nmysql\troot\n"), 0o644)
	got, err := ScanForSecrets(dir, []string{"1", "root", "mysql"})
	if err != nil || len(got) != 0 {
		t.Fatalf("weak secrets: %q, %v; want no hit", got, err)
	}
	os.WriteFile(filepath.Join(dir, "leak.txt"), []byte("pw=Zq8-hunter2-Zq8\n"), 0o644)
	if got, err := ScanForSecrets(dir, []string{"1", "Zq8-hunter2-Zq8"}); err != nil || len(got) != 1 || got[0] != "leak.txt" {
		t.Fatalf("strong secret: %q, %v; want leak.txt", got, err)
	}
	if WeakSecrets([]string{"1", "", "root", "Zq8-hunter2-Zq8", "1"}) != 2 {
		t.Error("WeakSecrets should count 1 and root once each")
	}
}
