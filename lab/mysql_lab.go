package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/orch-bench/orch/orchestrator"
)

// The MySQL lab (`orch lab up --flavor mysql`) is the systemd lab with
// Oracle MySQL 9.7 on the database hosts: they boot a Debian sid tree
// (Debian packages MySQL 9.7 in sid only), the load box boots the systemd
// lab's bookworm tree as it is (sysbench 1.0.20 and mariadb-client: sid's
// sysbench cannot be installed beside mysql-server, and bookworm's logs in
// to 9.7 with caching_sha2_password). It is always a systemd lab: the
// servers are the package's own, root on the unix socket, mysql.service.

// mysqlSuite is the Debian suite with MySQL 9.7.
const mysqlSuite = "sid"

// mysqlTree is the MySQL lab's database hosts' tree. dbus is what sid's
// systemd needs for systemctl on a minbase tree.
var mysqlTree = treeSpec{
	suite: mysqlSuite,
	packages: []string{
		"systemd", "systemd-sysv", "dbus", "openssh-server", "mysql-server", "mysql-client",
		"iproute2", "sudo", "procps",
	},
	probe:         "usr/sbin/mysqld",
	about:         "about 4 min and 0.9 GB",
	unifiedCgroup: true,
	dbUnit:        "mysql.service",
}

// CheckFlavor refuses a lab flavour Up cannot build, and several clusters
// of a flavour whose row says why not.
func CheckFlavor(flavor string, clusters int) error {
	f, ok := flavorNamed(flavor)
	if !ok {
		return fmt.Errorf("--flavor %q: want %s", flavor, strings.Join(FlavorNames(), ", "))
	}
	if clusters > 1 && f.clusters != "" {
		return fmt.Errorf("--clusters %d --flavor %s: not supported: %s", clusters, f.name, f.clusters)
	}
	return nil
}

// CheckUp refuses, as bad input, a lab up the flags cannot make: before
// anything is built.
func CheckUp(cfg Config, clusters int) error {
	if err := CheckFlavor(cfg.Flavor, clusters); err != nil {
		return orchestrator.BadInputf("lab up: %v", err)
	}
	if f := flavorOf(cfg.Flavor); cfg.Systemd && f.build != nil {
		return orchestrator.BadInputf("lab up: --systemd --flavor %s: not supported: its server is a relocatable tree that mysqld_safe starts in the namespace lab (no package, no unit)", f.name)
	}
	if cfg.Systemd || flavorOf(cfg.Flavor).systemd {
		if err := CheckSystemdPaths(cfg); err != nil {
			return orchestrator.BadInputf("lab up: %v", err)
		}
	}
	if clusters < 1 || clusters > MaxClusters {
		return orchestrator.BadInputf("lab up: --clusters %d: want 1 to %d", clusters, MaxClusters)
	}
	if cfg.LoadBoxes < 1 || cfg.LoadBoxes > MaxLoadBoxes {
		return orchestrator.BadInputf("lab up: --loadboxes %d: want 1 to %d", cfg.LoadBoxes, MaxLoadBoxes)
	}
	return nil
}

// CheckTree is CheckUp for lab tree.
func CheckTree(cfg Config) error {
	if err := CheckFlavor(cfg.Flavor, 1); err != nil {
		return orchestrator.BadInputf("lab tree: %v", err)
	}
	if cfg.Systemd || flavorOf(cfg.Flavor).systemd {
		if err := CheckSystemdPaths(cfg); err != nil {
			return orchestrator.BadInputf("lab tree: %v", err)
		}
	}
	return nil
}

// cgroup2Magic is CGROUP2_SUPER_MAGIC, statfs's f_type of a cgroup2 mount.
const cgroup2Magic = 0x63677270

// cgroup2Root is where this machine mounts the cgroup2 hierarchy: the root
// of /sys/fs/cgroup on a cgroup2-only machine, its "unified" dir on a
// hybrid one.
func cgroup2Root() (string, error) {
	for _, d := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		var fs syscall.Statfs_t
		if err := syscall.Statfs(d, &fs); err == nil && fs.Type == cgroup2Magic {
			return d, nil
		}
	}
	return "", errors.New("no cgroup2 hierarchy at /sys/fs/cgroup or /sys/fs/cgroup/unified: sid's systemd needs one")
}

// hostCgroup is the cgroup2 dir a unified-hierarchy host's nspawn starts
// in: nspawn hands the container its own cgroup's subtree.
func hostCgroup(root, netns string) string { return filepath.Join(root, netns) }

// makeHostCgroup creates dir and opens it for clone's CLONE_INTO_CGROUP.
func makeHostCgroup(dir string) (*os.File, error) {
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("cgroup %s: %w", dir, err)
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("cgroup %s: %w", dir, err)
	}
	return f, nil
}

// removeHostCgroup removes a stopped host's cgroup dir and the dirs nspawn
// and the container's systemd left in it (payload/, supervisor/, the
// container's own slices), deepest first. rmdir fails on a cgroup that
// still has processes, so nothing running is ever removed; a cgroup that is
// not under the cgroup2 root is refused.
func removeHostCgroup(dir string) error {
	if dir == "" {
		return nil
	}
	if root, err := cgroup2Root(); err != nil || filepath.Dir(dir) != root {
		return fmt.Errorf("cgroup %s: not a lab host's cgroup (want one under the cgroup2 root)", dir)
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var dirs []string
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, path)
		}
		return nil
	})
	var errs []string
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := syscall.Rmdir(dirs[i]); err != nil && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Sprintf("%s: %v", dirs[i], err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("remove cgroup: %s", strings.Join(errs, "; "))
	}
	return nil
}

// BuildTrees builds (or finds) in the cache every tree a lab of cfg's
// flavour boots, and touches no network, namespace or lab state: a test
// run can build them while other work holds the lab.
func BuildTrees(ctx context.Context, cfg Config) error {
	cfg = cfg.withDefaults()
	f := flavorOf(cfg.Flavor)
	if f.build != nil {
		if err := requireRoot(); err != nil {
			return err
		}
		_, err := serverTree(ctx, cfg, *f.build, newProgress(cfg.Out))
		return err
	}
	if !cfg.Systemd {
		return nil // the namespace lab runs the machine's own MariaDB
	}
	if err := requireRoot(); err != nil {
		return err
	}
	if err := CheckSystemdPaths(cfg); err != nil {
		return err
	}
	if err := checkTools([]tool{{"debootstrap", "debootstrap"}}); err != nil {
		return err
	}
	p := newProgress(cfg.Out)
	specs := []treeSpec{bookwormTree}
	if f.dbTree != nil {
		specs = append(specs, *f.dbTree)
	}
	for _, t := range specs {
		if _, err := tree(ctx, cfg.CacheDir, t, p); err != nil {
			return err
		}
	}
	return nil
}
