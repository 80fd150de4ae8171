package lab

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// toolPath is where the lab looks for the programs it runs, whatever the
// caller's PATH (sudo and cron often leave out the sbin directories).
var toolPath = []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}

// requiredTools are the programs Up runs on the control machine or inside
// the hosts, with the Debian package that provides each.
var requiredTools = []tool{
	{"ip", "iproute2"},
	{"unshare", "util-linux"},
	{"nsenter", "util-linux"},
	{"ssh-keygen", "openssh-client"},
	{"sshd", "openssh-server"},
	{"openssl", "openssl"},
	{"sudo", "sudo"},
	{"mariadb-install-db", "mariadb-server"},
	{"mysqld_safe", "mariadb-server"},
	{"mariadb-admin", "mariadb-client"},
	{"mariadb", "mariadb-client"},
}

// systemdTools are what the systemd lab runs on the control machine; the
// servers and sshd come from the base tree, not from this machine.
var systemdTools = []tool{
	{"ip", "iproute2"},
	{"nsenter", "util-linux"},
	{"ssh-keygen", "openssh-client"},
	{"debootstrap", "debootstrap"},
	{"systemd-nspawn", "systemd-container"},
}

// tool is a program the lab runs and the Debian package that provides it.
type tool struct{ name, pkg string }

// checkTools fails with one message naming every missing program.
func checkTools(tools []tool) error {
	var missing, pkgs []string
	for _, t := range tools {
		if _, err := lookTool(t.name); err != nil {
			missing = append(missing, t.name)
			if !slices.Contains(pkgs, t.pkg) {
				pkgs = append(pkgs, t.pkg)
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing programs %s; install the packages %s (make lab-deps does)",
			strings.Join(missing, ", "), strings.Join(pkgs, " "))
	}
	return nil
}

// lookTool finds an executable in toolPath.
func lookTool(name string) (string, error) {
	if strings.ContainsRune(name, '/') {
		return name, nil
	}
	for _, dir := range toolPath {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w in %s", name, exec.ErrNotFound, strings.Join(toolPath, ":"))
}

// run executes a root-namespace command; its output only matters on failure.
func run(ctx context.Context, name string, args ...string) error {
	_, err := output(ctx, nil, name, args...)
	return err
}

// output executes a command with a clean environment and returns its
// stdout; a failure carries the command line and its stderr. Arguments are
// passed as argv, never through a shell.
func output(ctx context.Context, stdin []byte, name string, args ...string) ([]byte, error) {
	path, err := lookTool(name)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Args[0] = name
	cmd.Env = cleanEnv()
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return stdout.Bytes(), fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		if msg != "" {
			return stdout.Bytes(), fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, lastLines(msg, 5))
		}
		return stdout.Bytes(), fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
	}
	return stdout.Bytes(), nil
}

// cleanEnv is the environment for every command the lab runs: nothing of
// the caller's (which may hold secrets such as MYSQL_PWD) leaks in.
func cleanEnv() []string {
	return []string{
		"PATH=" + strings.Join(toolPath, ":"),
		"HOME=/root",
		"LANG=C.UTF-8",
	}
}

// lastLines keeps the tail of a long message, joined on one line.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
