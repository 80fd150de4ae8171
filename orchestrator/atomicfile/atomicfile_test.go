package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesWithMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "f.txt")
	if err := Write(p, strings.NewReader("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, strings.NewReader("two"), 0o640); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	st, _ := os.Stat(p)
	if err != nil || string(b) != "two" || st.Mode().Perm() != 0o640 {
		t.Fatalf("content %q mode %v err %v", b, st.Mode().Perm(), err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("source broke") }

// A source that fails leaves the old file untouched and no temporary file.
func TestWriteFailureKeepsOldFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.txt")
	if err := Write(p, strings.NewReader("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, failing{}, 0o644); err == nil || !strings.Contains(err.Error(), "source broke") {
		t.Fatalf("err %v", err)
	}
	b, _ := os.ReadFile(p)
	if ents, _ := os.ReadDir(filepath.Dir(p)); string(b) != "old" || len(ents) != 1 {
		t.Fatalf("after a failed write: %q, %d entries", b, len(ents))
	}
}
