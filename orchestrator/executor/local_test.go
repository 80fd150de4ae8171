package executor

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLocalRun(t *testing.T) {
	l := NewLocal("control")
	ctx := context.Background()
	res, err := l.Run(ctx, Command{Script: "echo out; echo err >&2; tr a-z A-Z", Stdin: strings.NewReader("in")})
	if err != nil || string(res.Stdout) != "out\nIN" || string(res.Stderr) != "err\n" {
		t.Fatalf("%q %q %v", res.Stdout, res.Stderr, err)
	}

	res, err = l.Run(ctx, Command{Script: "echo a >&2; echo b >&2; exit 7"})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.ExitCode != 7 || res.ExitCode != 7 || ee.Stderr != "a\nb" || ee.Host != "control localhost" {
		t.Fatalf("exit error %+v, %v", ee, err)
	}

	res, err = l.Run(ctx, Command{Script: "kill -TERM $$"})
	if !isExit(err, 128+15) {
		t.Errorf("killed by TERM: %v (code %d)", err, res.ExitCode)
	}

	var out strings.Builder
	_, err = l.Run(ctx, Command{Script: `echo "$A" "$B"`, Env: map[string]string{"A": "x y", "B": "$(no)"}, Stdout: &out})
	if err != nil || out.String() != "x y $(no)\n" {
		t.Errorf("env: %q, %v", out.String(), err)
	}
}

func TestLocalSecretEnvNotInArgv(t *testing.T) {
	l := NewLocal("control")
	res, err := l.Run(context.Background(), Command{
		// The shell's own argv (its command text) must not hold the secret.
		Script:    `tr '\0\n' '  ' < /proc/$$/cmdline; echo; printf '%s' "$PW"`,
		SecretEnv: map[string]string{"PW": "hunter2 'x'"},
	})
	if err != nil {
		t.Fatal(err)
	}
	argv, value, _ := strings.Cut(string(res.Stdout), "\n")
	if value != "hunter2 'x'" {
		t.Errorf("secret value %q", value)
	}
	if strings.Contains(argv, "hunter2") || !strings.Contains(argv, "read -r PW") {
		t.Errorf("argv %q", argv)
	}
}

func TestLocalTimeoutKillsProcessGroup(t *testing.T) {
	l := NewLocal("control")
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	_, err := l.Run(context.Background(), Command{
		Script:  "sleep 30 & echo $! > " + pidFile + "; wait",
		Timeout: 300 * time.Millisecond,
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	mustContain(t, err.Error(), "control localhost: command timed out after 300ms")
	if time.Since(start) > 10*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
	// The background child, not just the shell, is gone.
	waitProcessGone(t, readPid(t, pidFile))

	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if _, err := l.Run(ctx, Command{Script: "sleep 30"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancel: %v", err)
	}
}

func TestLocalBackgroundChildDoesNotHang(t *testing.T) {
	l := NewLocal("control")
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The child keeps stdout open after the shell exits; Run returns anyway.
	res, err := l.Run(context.Background(), Command{Script: "sleep 30 & echo $! > " + pidFile + "; echo started"})
	if err != nil || string(res.Stdout) != "started\n" {
		t.Fatalf("%q, %v", res.Stdout, err)
	}
	pid := readPid(t, pidFile)
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
		p.Wait()
	}
}

func TestLocalDialContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go echoServer(ln)
	c, err := NewLocal("control").DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "hi\n")
	if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != "hi\n" {
		t.Errorf("%q, %v", line, err)
	}
	if _, err := NewLocal("control").DialContext(context.Background(), "tcp", "127.0.0.1:1"); err == nil ||
		!strings.HasPrefix(err.Error(), "control localhost: ") {
		t.Errorf("refused dial: %v", err)
	}
}
