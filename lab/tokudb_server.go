package lab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The TokuDB lab's server: MariaDB 10.5.23 built with TokuDB, the last
// MariaDB release line whose sources still carry storage/tokudb. No
// Debian suite this machine reaches ships it as a package, so the lab gets
// a relocatable server tree, in this order: from an archive the user names
// (its checksum checked), from the cache (an earlier build or archive),
// or by building Debian bullseye's mariadb-10.5 source package here.

// serverBuild is a recipe for a relocatable server tree. Every field that
// changes what is built is part of its cache key (recipeKey).
type serverBuild struct {
	name          string // the tree's top directory: mariadb-10.5.23-tokudb
	version       string // the server's version: 10.5.23
	engineVersion string // TokuDB's own version, as @@tokudb_version shows it
	// The Debian source package: suite and component (only its deb-src
	// entry is used, in a private apt list), package, version, and the
	// upstream tarball with its checksum (the archive's Sources index
	// lists the same one; checking it here pins the exact release).
	suite, component, srcPackage, srcVersion string
	origTarball, origSHA256                  string
	buildDeps                                []string
	cmakeArgs                                []string
	// keep are the top directories of the install the lab needs (the rest
	// is 670 MB of tests and static libraries).
	keep []string
	// probe is a file every good tree has.
	probe string
	// about is what a build costs, for the message before it starts.
	about string
}

// tokudbServer is the TokuDB lab's server. The cmake options are the ones
// ../shared/reference/tokudb.md measured: TokuDB is DISABLED in 10.5's
// cmake unless PLUGIN_TOKUDB=DYNAMIC; the other plugins are off because
// the lab does not use them and they lengthen the build.
var tokudbServer = serverBuild{
	name: "mariadb-10.5.23-tokudb", version: "10.5.23", engineVersion: "5.6.49-89.0",
	suite: "bullseye", component: "main", srcPackage: "mariadb-10.5", srcVersion: "1:10.5.23-0+deb11u1",
	origTarball: "mariadb-10.5_10.5.23.orig.tar.gz",
	origSHA256:  "3f7c33b208cb799db014a874f56718eadff22ee95781fa360aa6bc696109acfe",
	buildDeps: []string{"build-essential", "cmake", "bison", "libaio-dev", "libssl-dev", "libncurses-dev",
		"zlib1g-dev", "libjemalloc-dev", "libpcre2-dev", "libzstd-dev", "liblz4-dev", "libsnappy-dev",
		"pkg-config", "gnutls-dev", "binutils", "dpkg-dev"},
	cmakeArgs: []string{"-DCMAKE_BUILD_TYPE=RelWithDebInfo",
		"-DPLUGIN_TOKUDB=DYNAMIC", "-DPLUGIN_ROCKSDB=NO", "-DPLUGIN_MROONGA=NO", "-DPLUGIN_SPIDER=NO",
		"-DPLUGIN_CONNECT=NO", "-DPLUGIN_OQGRAPH=NO", "-DPLUGIN_SPHINX=NO", "-DPLUGIN_COLUMNSTORE=NO", "-DPLUGIN_S3=NO",
		"-DPLUGIN_AUTH_GSSAPI=NO", "-DPLUGIN_AUTH_GSSAPI_CLIENT=OFF", "-DWITH_WSREP=OFF", "-DWITH_UNIT_TESTS=OFF",
		"-DWITH_EMBEDDED_SERVER=OFF", "-DWITH_MARIABACKUP=OFF", "-DWITH_SSL=system", "-DWITH_ZLIB=system", "-DWITH_JEMALLOC=yes"},
	keep:  []string{"bin", "lib", "share", "scripts", "support-files"},
	probe: "lib/plugin/ha_tokudb.so",
	about: "about 15 min on an idle 2-core machine, 30 min on a busy one, and 2 GB of disk while it builds",
}

// ArchiveEnv names a server archive when --server-archive does not.
const ArchiveEnv = "ORCH_LAB_SERVER_ARCHIVE"

// serverStamp is written next to a finished tree: what it is and where it
// came from. A tree without one is an interrupted unpack or build.
type serverStamp struct {
	Name    string    `json:"name"`
	Version string    `json:"version"`
	From    string    `json:"from"` // "archive SHA256" or "build RECIPE-KEY"
	Made    time.Time `json:"made"`
	Took    float64   `json:"took_s"`
}

// recipeKey is the cache key of a build: its source and options.
func (b serverBuild) recipeKey() string {
	h := sha256.Sum256([]byte(strings.Join([]string{b.name, b.srcPackage, b.srcVersion, b.origSHA256,
		strings.Join(b.cmakeArgs, " "), strings.Join(b.keep, " ")}, "\n")))
	return hex.EncodeToString(h[:6])
}

// serversDir is where the cache keeps server trees.
func serversDir(cacheDir string) string { return filepath.Join(cacheDir, "servers") }

// serverTree returns the directory of b's server tree: unpacked from the
// archive cfg names, or the cached one, or built from source. Concurrent
// labs wait for each other (a lock file) instead of racing.
func serverTree(ctx context.Context, cfg Config, b serverBuild, p *progress) (string, error) {
	dir := serversDir(cfg.CacheDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("server cache: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, b.name+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return "", fmt.Errorf("server cache: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		p.printf("lab: waiting for another orch making %s", b.name)
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
			return "", fmt.Errorf("server cache: lock: %w", err)
		}
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	archive := cfg.ServerArchive
	if archive == "" {
		archive = os.Getenv(ArchiveEnv)
	}
	if archive != "" {
		sum, err := archiveChecksum(archive, cfg.ServerSHA256)
		if err != nil {
			return "", err
		}
		tree := filepath.Join(dir, b.name+"-a"+sum[:12])
		if ok, err := readyTree(tree, b, p); ok || err != nil {
			return tree, err
		}
		return tree, unpackServer(ctx, archive, sum, tree, b, p)
	}
	tree := filepath.Join(dir, b.name+"-r"+b.recipeKey())
	if ok, err := readyTree(tree, b, p); ok || err != nil {
		return tree, err
	}
	// An archive unpacked by an earlier lab up is the same server: a
	// second lab up need not name it again, nor build.
	if unpacked := newestArchiveTree(dir, b); unpacked != "" {
		if ok, err := readyTree(unpacked, b, p); ok || err != nil {
			return unpacked, err
		}
	}
	return tree, buildServer(ctx, cfg, tree, b, p)
}

// newestArchiveTree is the most recently made tree of b unpacked from an
// archive into dir ("" when none is finished).
func newestArchiveTree(dir string, b serverBuild) string {
	stamps, _ := filepath.Glob(filepath.Join(dir, b.name+"-a*.stamp"))
	best, bestAt := "", time.Time{}
	for _, s := range stamps {
		info, err := os.Stat(s)
		if err == nil && info.ModTime().After(bestAt) {
			best, bestAt = strings.TrimSuffix(s, ".stamp"), info.ModTime()
		}
	}
	return best
}

// readyTree reports whether tree is a finished tree of b (its stamp and
// probe file there); a tree without a stamp is removed, never trusted.
func readyTree(tree string, b serverBuild, p *progress) (bool, error) {
	raw, err := os.ReadFile(tree + ".stamp")
	if err == nil {
		var st serverStamp
		if err := json.Unmarshal(raw, &st); err != nil {
			return false, fmt.Errorf("server tree stamp %s: %w", tree+".stamp", err)
		}
		if _, err := os.Stat(filepath.Join(tree, b.probe)); err != nil {
			return false, fmt.Errorf("server tree %s: %w; remove it and %s to make it again", tree, err, tree+".stamp")
		}
		p.printf("lab: server %s %s (%s, made %s)", b.name, tree, st.From, st.Made.UTC().Format(time.RFC3339))
		return true, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	if err := os.RemoveAll(tree); err != nil {
		return false, fmt.Errorf("server tree: remove unfinished %s: %w", tree, err)
	}
	return false, nil
}

// archiveChecksum is the archive's SHA-256 once it matches what the user
// gave (--server-sha256) or, failing that, the SHA256SUMS file beside the
// archive: an archive with nothing to check it against is refused.
func archiveChecksum(archive, want string) (string, error) {
	got, err := fileSHA256(archive)
	if err != nil {
		return "", fmt.Errorf("server archive: %w", err)
	}
	from := "--server-sha256"
	if want == "" {
		sums := filepath.Join(filepath.Dir(archive), "SHA256SUMS")
		want, err = sumFor(sums, filepath.Base(archive))
		if err != nil {
			return "", fmt.Errorf("server archive %s: nothing to check it against: %w (give --server-sha256)", archive, err)
		}
		from = sums
	}
	if !strings.EqualFold(strings.TrimSpace(want), got) {
		return "", fmt.Errorf("server archive %s: SHA-256 %s, but %s says %s", archive, got, from, strings.TrimSpace(want))
	}
	return got, nil
}

// sumFor reads file's line in a sha256sum listing.
func sumFor(sums, file string) (string, error) {
	raw, err := os.ReadFile(sums)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && strings.TrimPrefix(f[1], "*") == file {
			return f[0], nil
		}
	}
	return "", fmt.Errorf("%s does not list %s", sums, file)
}

// unpackServer unpacks the archive (whose top directory is b.name) into
// tree, via a temporary dir renamed into place once it is whole.
func unpackServer(ctx context.Context, archive, sum, tree string, b serverBuild, p *progress) error {
	start := time.Now()
	tmp := tree + ".unpacking"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if _, err := output(ctx, nil, "tar", "-xaf", archive, "-C", tmp, "--no-same-owner"); err != nil {
		return fmt.Errorf("server archive %s: unpack: %w", archive, err)
	}
	top := filepath.Join(tmp, b.name)
	if _, err := os.Stat(filepath.Join(top, b.probe)); err != nil {
		return fmt.Errorf("server archive %s: no %s/%s in it: not a %s tree", archive, b.name, b.probe, b.name)
	}
	if err := os.Rename(top, tree); err != nil {
		return err
	}
	return finishTree(tree, b, "archive "+sum, start, p)
}

// finishTree makes the tree readable by the servers' user and writes its
// stamp: from here on it is a finished tree.
func finishTree(tree string, b serverBuild, from string, start time.Time, p *progress) error {
	if err := os.Chmod(tree, 0o755); err != nil {
		return err
	}
	st := serverStamp{Name: b.name, Version: b.version, From: from, Made: time.Now().UTC(),
		Took: time.Since(start).Seconds()}
	raw, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(tree+".stamp", append(raw, '\n'), 0o644); err != nil {
		return err
	}
	p.printf("lab: server %s ready in %s (%s, %.1fs)", b.name, tree, from, st.Took)
	return nil
}

// serverCommand prepares a build command: its dir, a clean environment,
// and a low priority so that a lab beside the build keeps its pace.
func serverCommand(ctx context.Context, dir string, name string, args ...string) (*exec.Cmd, error) {
	path, err := lookTool(name)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Args[0] = name
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "DEBIAN_FRONTEND=noninteractive")
	return cmd, nil
}

// readerSHA256 is the SHA-256 of what r holds, in hex.
func readerSHA256(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
