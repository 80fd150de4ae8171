package executor

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/topology"
)

func randomBytes(t testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// transferCase exercises Upload/Download on any executor.
func checkTransfer(t *testing.T, e Executor, dir string, sudo bool) {
	t.Helper()
	ctx := context.Background()
	data := randomBytes(t, 3<<20+17)
	path := filepath.Join(dir, "sub dir", "my.cnf 'x'")
	os.MkdirAll(filepath.Dir(path), 0o755)
	// Only a reader without WriteTo/Len shortcuts proves streaming works.
	if err := e.Upload(ctx, io.MultiReader(bytes.NewReader(data)), path, 0o640, sudo); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("uploaded content differs (%d bytes, %v)", len(got), err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("uploaded mode %o, want 640", fi.Mode().Perm())
	}

	// Replacing keeps the new mode, and no temporary file is left behind.
	if err := e.Upload(ctx, strings.NewReader("v2\n"), path, 0o600|os.ModeSetgid, sudo); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode() != 0o600|os.ModeSetgid {
		t.Errorf("replaced file mode %v, want %v", fi.Mode(), 0o600|os.ModeSetgid)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("directory has %d entries after upload, want 1", len(entries))
	}

	os.WriteFile(path, data, 0o600)
	os.Chmod(path, 0o751)
	var buf bytes.Buffer
	mode, err := e.Download(ctx, path, &buf, sudo)
	if err != nil {
		t.Fatal(err)
	}
	if mode != 0o751 || !bytes.Equal(buf.Bytes(), data) {
		t.Errorf("download: mode %o (want 751), %d bytes (want %d), equal=%v", mode, buf.Len(), len(data), bytes.Equal(buf.Bytes(), data))
	}

	_, err = e.Download(ctx, filepath.Join(dir, "absent"), io.Discard, sudo)
	if err == nil {
		t.Fatal("download of a missing file succeeded")
	}
	mustContain(t, err.Error(), e.Name()+": download "+filepath.Join(dir, "absent"))
}

// failingReader returns some data, then an error.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("disk on fire")
	}
	n := min(len(p), r.n)
	r.n -= n
	return n, nil
}

// checkFailedUpload: a source error leaves the old file and no temp file.
func checkFailedUpload(t *testing.T, e Executor, dir string, sudo bool) {
	t.Helper()
	path := filepath.Join(dir, "keep")
	os.WriteFile(path, []byte("old"), 0o644)
	err := e.Upload(context.Background(), &failingReader{n: 100 << 10}, path, 0o644, sudo)
	if err == nil {
		t.Fatal("upload from a failing reader succeeded")
	}
	mustContain(t, err.Error(), e.Name()+": upload "+path, "disk on fire")
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("target replaced by a partial upload: %d bytes", len(got))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("leftover files after failed upload: %v", entries)
	}
}

func TestSSHTransfer(t *testing.T) {
	f := newFixture(t)
	_, s := f.connect()
	checkTransfer(t, s, t.TempDir(), false)
	checkFailedUpload(t, s, t.TempDir(), false)
	if s.Handshakes() != 1 {
		t.Errorf("transfers used %d handshakes", s.Handshakes())
	}
}

func TestSSHTransferWithSudoPassword(t *testing.T) {
	f := newFixture(t)
	ts, env := newSudoServer(t, f, false, "pw")
	h := sudoHost(f, ts)
	h.SSH.SudoPassword = topology.InlineSecret("pw")
	s := f.dial(h, f.config())
	checkTransfer(t, s, t.TempDir(), true)
	if calls := env.calls(t); len(calls) < 4 {
		t.Errorf("transfers did not go through sudo: %q", calls)
	}
}

func TestLocalTransfer(t *testing.T) {
	l := NewLocal("control")
	checkTransfer(t, l, t.TempDir(), false)
	checkFailedUpload(t, l, t.TempDir(), false)
}

// The exec-based path Local uses for sudo as a non-root user, run here
// without sudo so it works as any user.
func TestLocalExecTransfer(t *testing.T) {
	l := NewLocal("control")
	e := execTransfer{l}
	checkTransfer(t, e, t.TempDir(), false)
	checkFailedUpload(t, e, t.TempDir(), false)
}

type execTransfer struct{ *Local }

func (e execTransfer) Upload(ctx context.Context, r io.Reader, path string, mode os.FileMode, sudo bool) error {
	return execUpload(ctx, e.run, e.Name(), r, path, mode, sudo)
}

func (e execTransfer) Download(ctx context.Context, path string, w io.Writer, sudo bool) (os.FileMode, error) {
	return execDownload(ctx, e.run, e.Name(), path, w, sudo)
}

func TestModeHeader(t *testing.T) {
	var out bytes.Buffer
	h := &modeHeader{w: &out}
	for _, chunk := range []string{"47", "55\nab", "c"} {
		h.Write([]byte(chunk))
	}
	if !h.done || h.mode != 0o755|os.ModeSetuid || out.String() != "abc" {
		t.Errorf("mode %v done %v out %q", h.mode, h.done, out.String())
	}
	if _, err := (&modeHeader{w: io.Discard}).Write([]byte("rw-r--r--\n")); err == nil {
		t.Error("bad header accepted")
	}
	if octalMode(0o644|os.ModeSticky) != "1644" {
		t.Errorf("octalMode %s", octalMode(0o644|os.ModeSticky))
	}
}
