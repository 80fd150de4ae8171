package dbinsert

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const archive = "../../../shared/prebuilt/perconaft-f85cba7e8-src.tar.zst"

// The archive's checksum is the one ../shared/prebuilt/SHA256SUMS lists.
func TestOpenSourceArchive(t *testing.T) {
	sums, err := os.ReadFile("../../../shared/prebuilt/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, line := range strings.Split(string(sums), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[1] == filepath.Base(archive) {
			want = f[0]
		}
	}
	s, err := OpenSource(archive)
	if err != nil {
		t.Fatal(err)
	}
	if want == "" || s.Sum != want || s.Ext != "tar.zst" {
		t.Errorf("sum %s ext %s, want %s tar.zst", s.Sum, s.Ext, want)
	}
}

// A directory is sent as a tar whose checksum depends on the content only.
func TestOpenSourceDir(t *testing.T) {
	mk := func(content string) string {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "examples"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "examples", "db-insert.c"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a, err := OpenSource(mk("int main(){}\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := OpenSource(mk("int main(){}\n"))
	c, _ := OpenSource(mk("int main(){return 1;}\n"))
	if a.Sum != b.Sum || a.Sum == c.Sum || a.Ext != "tar" {
		t.Errorf("sums %s %s %s", a.Sum, b.Sum, c.Sum)
	}
	if _, err := OpenSource(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no examples/db-insert.c") {
		t.Errorf("a tree without db-insert.c: %v", err)
	}
	f := filepath.Join(t.TempDir(), "src.zip")
	os.WriteFile(f, []byte("x"), 0o644)
	if _, err := OpenSource(f); err == nil || !strings.Contains(err.Error(), "not a directory or a .tar.zst, .tar.gz or .tar archive") {
		t.Errorf("a zip: %v", err)
	}
	if _, err := OpenSource(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing source opened")
	}
}
