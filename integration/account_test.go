package integration

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// TestAccountBySocketThroughSudo makes an account through root's unix
// socket as an unprivileged login with a sudo password (lab-password.yaml),
// checks it, and drops it again, binlog off throughout, so the lab is left
// as it was.
func TestAccountBySocketThroughSudo(t *testing.T) {
	l := needLab(t)
	inv, err := topology.Load(filepath.Join(filepath.Dir(l.inventory), "lab-password.yaml"), topology.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := inv.Slaves()[len(inv.Slaves())-1]
	if h.SSH.User == "root" || !h.SSH.Sudo {
		t.Fatalf("lab-password.yaml logs in as %s (sudo %v), want an unprivileged user with sudo", h.SSH.User, h.SSH.Sudo)
	}
	ctx := context.Background()
	ex, err := executor.Dial(ctx, h, executor.DialConfig{KnownHostsFile: inv.KnownHostsFile, SSHConfigFile: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	probe := account.Account{User: "orch_probe", Host: "localhost", Password: "probe-password", Grants: "USAGE ON *.*"}
	drop := executor.Command{Sudo: true, Script: `mariadb -e "SET sql_log_bin = 0; DROP USER IF EXISTS 'orch_probe'@'localhost'"`}
	t.Cleanup(func() { ex.Run(context.Background(), drop) })
	if err := account.EnsureBySocket(ctx, ex, probe); err != nil {
		t.Fatal(err)
	}
	// The account logs in with its password (on stdin, not argv).
	res, err := ex.Run(ctx, executor.Command{
		Script: "mariadb --defaults-extra-file=/dev/stdin -u orch_probe -N -e 'select current_user()'",
		Stdin:  strings.NewReader("[client]\npassword=" + probe.Password + "\n"),
	})
	if err != nil || string(res.Stdout) != "orch_probe@localhost\n" {
		t.Errorf("login as the new account: %q, %v", res.Stdout, err)
	}
	if _, err := ex.Run(ctx, drop); err != nil {
		t.Fatal(err)
	}
}
