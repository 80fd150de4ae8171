package account

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// Every load box drives the master, so the benchmark account exists for
// each one's address, once per address (two clients on one machine share
// it), plus 127.0.0.1 as always.
func TestBenchAccountsForEveryLoadBox(t *testing.T) {
	inv := loadInv(t, stockHosts+"  - {name: loadbox2, role: loadbox, address: 10.0.0.15}\n  - {name: loadbox3, role: loadbox, address: 10.0.0.15, ssh: {port: 2222}}\n")
	var got []string
	for _, a := range BenchAccounts(inv, "pw", "") {
		if strings.HasSuffix(a.Grants, "`sbtest`.*") {
			got = append(got, a.String())
		}
	}
	if want := "orch_bench@10.0.0.14 orch_bench@10.0.0.15 orch_bench@127.0.0.1"; strings.Join(got, " ") != want {
		t.Errorf("benchmark accounts %q, want %q", got, want)
	}
}

// Without a load box this machine runs the benchmark: the account is for
// its address as the master sees it, and never for any host ('%').
func TestBenchAccountsWithoutALoadBox(t *testing.T) {
	inv := loadInv(t, strings.Replace(stockHosts, "  - {name: loadbox, role: loadbox, address: 10.0.0.14}\n", "", 1))
	var got []string
	for _, a := range BenchAccounts(inv, "pw", "192.0.2.7") {
		if strings.HasSuffix(a.Grants, "`sbtest`.*") {
			got = append(got, a.String())
		}
	}
	if want := "orch_bench@192.0.2.7 orch_bench@127.0.0.1"; strings.Join(got, " ") != want {
		t.Errorf("benchmark accounts %q, want %q", got, want)
	}
	for _, a := range BenchAccounts(inv, "pw", "") {
		if a.Host == "%" {
			t.Errorf("an account for any host: %s", a)
		}
	}
}

// sshAnswers is a host whose shell prints what sshd put in SSH_CONNECTION
// (sshd(8): "client IP, client port, server IP, server port").
type sshAnswers struct{ conn string }

func (s sshAnswers) Run(_ context.Context, c executor.Command) (executor.Result, error) {
	if !strings.Contains(c.Script, "SSH_CONNECTION") {
		return executor.Result{}, errors.New("unexpected command " + c.Script)
	}
	return executor.Result{Stdout: []byte(s.conn)}, nil
}
func (sshAnswers) Upload(context.Context, io.Reader, string, os.FileMode, bool) error {
	return errors.New("no upload")
}
func (sshAnswers) Download(context.Context, string, io.Writer, bool) (os.FileMode, error) {
	return 0, errors.New("no download")
}
func (sshAnswers) Name() string { return "master 10.0.0.11" }
func (sshAnswers) Close() error { return nil }

func TestClientAddress(t *testing.T) {
	if a, err := ClientAddress(context.Background(), sshAnswers{"10.0.0.1 51234 10.0.0.11 22"}); a != "10.0.0.1" || err != nil {
		t.Errorf("got %q, %v", a, err)
	}
	if a, err := ClientAddress(context.Background(), sshAnswers{"fe80::1 51234 fe80::2 22"}); a != "fe80::1" || err != nil {
		t.Errorf("IPv6: got %q, %v", a, err)
	}
	for _, bad := range []string{"", "not-an-ip 1 2 3", "10.0.0.1"} {
		if _, err := ClientAddress(context.Background(), sshAnswers{bad}); err == nil {
			t.Errorf("SSH_CONNECTION %q accepted", bad)
		}
	}
}
