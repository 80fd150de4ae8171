package executor

import (
	"bytes"
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// records keeps what a Recorder was given.
type records struct {
	mu   sync.Mutex
	list []Record
}

func (r *records) Record(x Record) {
	r.mu.Lock()
	r.list = append(r.list, x)
	r.mu.Unlock()
}

func (r *records) all() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Record(nil), r.list...)
}

func TestRecordedRecordsEachOperation(t *testing.T) {
	rec := &records{}
	ex := Recorded(NewLocal("box"), "box", rec)
	ctx := context.Background()

	// Captured output, stdin and a secret delivered out of band.
	res, err := ex.Run(ctx, Command{Script: `cat; printf 12345 >&2`, Stdin: strings.NewReader("abc"),
		SecretEnv: map[string]string{"TOKEN": "s3cr3t-v4lue"}, Env: map[string]string{"LANG": "C"}})
	if err != nil || string(res.Stdout) != "abc" {
		t.Fatalf("run: %q %v", res.Stdout, err)
	}
	// Streamed output and a failure.
	var out bytes.Buffer
	_, err = ex.Run(ctx, Command{Script: "echo four; exit 3", Stdout: &out})
	var exit *ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("exit 3: %v", err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := ex.Upload(ctx, strings.NewReader("0123456789"), p, 0o640, false); err != nil {
		t.Fatal(err)
	}
	// An executable upload is a command to come: its text is kept.
	if err := ex.Upload(ctx, strings.NewReader("#!/bin/sh\nexec date\n"), filepath.Join(dir, "go.sh"), 0o700, false); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if _, err := ex.Download(ctx, p, &got, false); err != nil || got.String() != "0123456789" {
		t.Fatalf("download %q %v", got.String(), err)
	}
	if _, err := ex.Download(ctx, filepath.Join(dir, "missing"), &got, false); err == nil {
		t.Fatal("download of a missing file succeeded")
	}

	l := rec.all()
	if len(l) != 6 {
		t.Fatalf("%d records, want 6: %+v", len(l), l)
	}
	if script := l[3]; script.Content != "#!/bin/sh\nexec date\n" || !strings.Contains(script.Text, "0700") {
		t.Errorf("script upload: %+v", script)
	}
	l = append(l[:3], l[4:]...)
	first := l[0]
	if first.Kind != KindShell || first.Host != "box" || first.Text != `cat; printf 12345 >&2` || first.Exit == nil || *first.Exit != 0 ||
		first.BytesIn != 3+5 || first.BytesOut != int64(len(first.Text))+3 || first.Env["LANG"] != "C" || first.Start.IsZero() {
		t.Errorf("first: %+v", first)
	}
	if len(first.Secrets) != 1 || first.Secrets[0] != "s3cr3t-v4lue" {
		t.Errorf("secret values to mask: %q", first.Secrets)
	}
	if second := l[1]; second.Exit == nil || *second.Exit != 3 || second.Err == nil || second.BytesIn != 5 {
		t.Errorf("second: %+v", second)
	}
	if up := l[2]; up.Kind != KindUpload || !strings.HasPrefix(up.Text, p) || up.BytesOut != 10 || up.Exit != nil || up.Err != nil || up.Content != "" {
		t.Errorf("upload: %+v", up)
	}
	if down := l[3]; down.Kind != KindDownload || down.Text != p || down.BytesIn != 10 {
		t.Errorf("download: %+v", down)
	}
	if miss := l[4]; miss.Err == nil || miss.BytesIn != 0 {
		t.Errorf("failed download: %+v", miss)
	}
}

func TestRecordedKeepsTheTunnel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	inner := NewLocal("box")
	ex := Recorded(inner, "box", &records{})
	d, ok := ex.(interface {
		DialContext(ctx context.Context, network, addr string) (net.Conn, error)
	})
	if !ok {
		t.Fatal("a recorded executor cannot dial")
	}
	c, err := d.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if Unwrap(ex) != Executor(inner) {
		t.Error("Unwrap does not return the wrapped executor")
	}
	if host, _, ok := RecorderOf(ex); !ok || host != "box" {
		t.Errorf("RecorderOf: %q %v", host, ok)
	}
	if _, _, ok := RecorderOf(inner); ok {
		t.Error("RecorderOf finds a recorder on a plain executor")
	}
}

func TestRecordedConcurrent(t *testing.T) {
	rec := &records{}
	ex := Recorded(NewLocal("box"), "box", rec)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out, errOut bytes.Buffer
			ex.Run(context.Background(), Command{Script: "echo o; echo e >&2", Stdout: &out, Stderr: &errOut})
		}()
	}
	wg.Wait()
	l := rec.all()
	if len(l) != 16 {
		t.Fatalf("%d records", len(l))
	}
	for _, r := range l {
		if r.BytesIn != 4 {
			t.Errorf("bytes in %d, want 4", r.BytesIn)
		}
	}
}
