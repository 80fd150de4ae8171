package lab

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// fsDirName is the per-host directory that mirrors the overlaid paths:
// <state>/hosts/<name>/fs/etc/mysql is the host's /etc/mysql, and so on.
const fsDirName = "fs"

// overlayDirs and overlayFiles are the paths every host gets its own copy
// of; the host's init bind-mounts <host>/fs/<path> over each.
var (
	overlayDirs = []string{
		"/etc/mysql", "/etc/ssh", "/etc/sudoers.d", "/var/lib/mysql",
		"/var/log", "/root", "/home", "/tmp",
	}
	// optionalOverlayDirs are overlaid on the hosts whose tree has them.
	optionalOverlayDirs = []string{usrLocalSbin}
	overlayFiles        = []string{
		"/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow",
		"/etc/hosts", "/etc/hostname",
	}
)

// hostEnv is what every host's tree is built from.
type hostEnv struct {
	plan      addrPlan
	sys       sysFiles // the root namespace's databases plus the bench account
	bench     account
	clientPub []byte // authorized_keys line of the lab's client key
	mysqlUID  int
	mysqlGID  int
	admGID    int
	// serverTree is the server tree the database hosts run (a flavour
	// built from source; "" for Debian's packages), jemalloc the library
	// its mysqld_safe preloads.
	serverTree, jemalloc string
}

// buildHostFS creates the host's private tree under hostDir/fs and returns
// the public host key line (for known_hosts).
func buildHostFS(ctx context.Context, hostDir string, spec hostSpec, ip netip.Addr, env *hostEnv) ([]byte, error) {
	root := filepath.Join(hostDir, fsDirName)
	p := func(path string) string { return filepath.Join(root, path) }
	for _, d := range []string{"/etc", "/var/lib"} {
		if err := os.MkdirAll(p(d), 0o755); err != nil {
			return nil, err
		}
	}

	// /etc/mysql starts as the installed configuration, so the host runs
	// the same package defaults as a real Debian server.
	if err := copyTree("/etc/mysql", p("/etc/mysql")); err != nil {
		return nil, fmt.Errorf("copy /etc/mysql: %w", err)
	}
	if spec.role != "loadbox" {
		extra := ""
		if env.serverTree != "" {
			if err := fitConfToTree(p("/etc/mysql"), env.serverTree); err != nil {
				return nil, fmt.Errorf("fit /etc/mysql to %s: %w", env.serverTree, err)
			}
			if err := linkTreePrograms(p(usrLocalSbin), env.serverTree); err != nil {
				return nil, fmt.Errorf("link the server's programs: %w", err)
			}
			extra = treeLabCnf(env.serverTree, env.jemalloc)
		}
		if err := writeMariaDBFiles(p("/etc/mysql"), extra); err != nil {
			return nil, err
		}
	}

	pub, err := buildSSHDir(ctx, p("/etc/ssh"), spec.name, ip)
	if err != nil {
		return nil, err
	}

	dirs := []struct {
		path     string
		mode     fs.FileMode
		uid, gid int
	}{
		{"/etc/sudoers.d", 0o755, 0, 0},
		{"/var/lib/mysql", 0o755, env.mysqlUID, env.mysqlGID},
		{"/var/log", 0o755, 0, 0},
		{"/var/log/mysql", fs.ModeSetgid | 0o750, env.mysqlUID, env.admGID},
		{"/root", 0o700, 0, 0},
		{"/root/.ssh", 0o700, 0, 0},
		{"/home", 0o755, 0, 0},
		{env.bench.home, 0o750, env.bench.uid, env.bench.gid},
		{"/tmp", fs.ModeSticky | 0o777, 0, 0},
	}
	for _, d := range dirs {
		if err := mkdirOwned(p(d.path), d.mode, d.uid, d.gid); err != nil {
			return nil, err
		}
	}
	if err := copySkel(p(env.bench.home), env.bench.uid, env.bench.gid); err != nil {
		return nil, err
	}

	files := []struct {
		path     string
		data     []byte
		mode     fs.FileMode
		uid, gid int
	}{
		{"/etc/sudoers.d/" + env.bench.name, []byte(env.bench.name + " ALL=(ALL:ALL) ALL\n"), 0o440, 0, 0},
		{"/root/.ssh/authorized_keys", env.clientPub, 0o600, 0, 0},
		{"/etc/passwd", env.sys.passwd, 0o644, 0, 0},
		{"/etc/group", env.sys.group, 0o644, 0, 0},
		{"/etc/shadow", env.sys.shadow, 0o640, 0, lookupGID("shadow", 0)},
		{"/etc/gshadow", env.sys.gshadow, 0o640, 0, lookupGID("shadow", 0)},
		{"/etc/hosts", []byte(renderEtcHosts(env.plan)), 0o644, 0, 0},
		{"/etc/hostname", []byte(spec.name + "\n"), 0o644, 0, 0},
	}
	for _, f := range files {
		if err := writeFileOwned(p(f.path), f.data, f.mode, f.uid, f.gid); err != nil {
			return nil, err
		}
	}
	return pub, nil
}

// buildSSHDir makes the host's /etc/ssh: its own ed25519 host key and a
// minimal sshd_config. It returns the public key line.
func buildSSHDir(ctx context.Context, dir, name string, ip netip.Addr) ([]byte, error) {
	if err := mkdirOwned(dir, 0o755, 0, 0); err != nil {
		return nil, err
	}
	key := filepath.Join(dir, "ssh_host_ed25519_key")
	if _, err := output(ctx, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "root@"+name, "-f", key); err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	// moduli lets sshd offer group-exchange key exchanges; optional.
	if err := copyFile("/etc/ssh/moduli", filepath.Join(dir, "moduli")); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	if err := writeFileOwned(filepath.Join(dir, "sshd_config"), []byte(renderSSHDConfig(name, ip)), 0o644, 0, 0); err != nil {
		return nil, err
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	return pub, nil
}

// renderSSHDConfig is a host's sshd_config: listen on the host's address
// only, keys for root, passwords for the unprivileged user. UsePAM is off
// because PAM's session modules expect a full system (systemd-logind),
// which a namespace does not have; sshd then checks /etc/shadow itself.
func renderSSHDConfig(name string, ip netip.Addr) string {
	return fmt.Sprintf(`# sshd_config of lab host %s, generated by orch lab (only this host sees it).
ListenAddress %s:22
HostKey /etc/ssh/ssh_host_ed25519_key
PidFile /run/sshd.pid
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication yes
KbdInteractiveAuthentication no
UsePAM no
AuthorizedKeysFile .ssh/authorized_keys
MaxSessions 64
MaxStartups 100
X11Forwarding no
PrintMotd no
# No AcceptEnv: the client's environment is not accepted.
Subsystem sftp internal-sftp
`, name, ip)
}

// renderEtcHosts names every lab host, so each can reach the others (and
// sudo can resolve its own name) without DNS.
func renderEtcHosts(plan addrPlan) string {
	var b strings.Builder
	b.WriteString("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
	for i, h := range plan.specs {
		fmt.Fprintf(&b, "%s\t%s\n", plan.hosts[i], h.name)
	}
	return b.String()
}

// renderKnownHosts lists every host's key by IP, one line each.
func renderKnownHosts(ips []netip.Addr, pubs [][]byte) string {
	var b strings.Builder
	for i, ip := range ips {
		f := strings.Fields(string(pubs[i]))
		if len(f) < 2 {
			continue
		}
		fmt.Fprintf(&b, "%s %s %s\n", ip, f[0], f[1])
	}
	return b.String()
}

// copySkel puts /etc/skel's dot files into a new home directory.
func copySkel(home string, uid, gid int) error {
	entries, err := os.ReadDir("/etc/skel")
	if err != nil {
		return nil // no skeleton: an empty home works too
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		dst := filepath.Join(home, e.Name())
		if err := copyFile(filepath.Join("/etc/skel", e.Name()), dst); err != nil {
			return err
		}
		if err := os.Lchown(dst, uid, gid); err != nil {
			return err
		}
	}
	return nil
}

// mkdirOwned creates dir (if needed) and sets its mode and owner exactly,
// regardless of umask.
func mkdirOwned(dir string, mode fs.FileMode, uid, gid int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.Chown(dir, uid, gid); err != nil {
		return err
	}
	return os.Chmod(dir, mode)
}

// writeFileOwned writes a file with an exact mode and owner.
func writeFileOwned(path string, data []byte, mode fs.FileMode, uid, gid int) error {
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return err
	}
	if err := os.Chown(path, uid, gid); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}

// copyTree copies a directory tree keeping modes, owners and symlinks
// (Debian's /etc/mysql/my.cnf is a link into /etc/alternatives).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.MkdirAll(target, 0o700); err != nil {
				return err
			}
			if err := os.Chmod(target, info.Mode().Perm()|info.Mode()&(fs.ModeSetgid|fs.ModeSticky)); err != nil {
				return err
			}
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			if err := os.Symlink(link, target); err != nil {
				return err
			}
		case d.Type().IsRegular():
			if err := copyFile(path, target); err != nil {
				return err
			}
		default:
			return nil // sockets, devices: nothing a config tree needs
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			return os.Lchown(target, int(st.Uid), int(st.Gid))
		}
		return nil
	})
}

// copyFile copies a regular file's contents and permission bits.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, info.Mode().Perm())
}
