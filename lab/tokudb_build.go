package lab

import (
	"context"
	"debug/elf"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// buildServer builds b from its Debian source package into tree: the
// upstream tarball comes through apt from the machine's own Debian mirror
// (a deb-src entry for b.suite in a list of orch's own, so the machine's
// apt configuration is not changed), is checked against b.origSHA256, and
// is built with cmake in a work dir that is removed afterwards. The log is
// kept beside the tree whatever happens; nothing is left under tree's name
// unless the build finished.
func buildServer(ctx context.Context, cfg Config, tree string, b serverBuild, p *progress) error {
	start := time.Now()
	logPath := tree + ".build.log"
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("server build: %w", err)
	}
	defer log.Close()
	p.printf("lab: no archive named (--server-archive or %s) and no earlier build: building %s from Debian %s's source package %s %s (%s); log %s",
		ArchiveEnv, b.name, b.suite, b.srcPackage, b.srcVersion, b.about, logPath)
	work := tree + ".work"
	if err := os.RemoveAll(work); err != nil {
		return err
	}
	defer os.RemoveAll(work)
	fail := func(step string, err error) error {
		fmt.Fprintf(log, "orch: %s failed: %v\n", step, err)
		return fmt.Errorf("server build: %s: %w (log: %s)", step, err, logPath)
	}
	orig, err := fetchSource(ctx, cfg, b, p, log)
	if err != nil {
		return fail("source", err)
	}
	if err := installBuildDeps(ctx, b, p, log); err != nil {
		return fail("build dependencies", err)
	}
	src, build, install := filepath.Join(work, "src"), filepath.Join(work, "build"), filepath.Join(work, "install")
	for _, d := range []string{src, build} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fail("work dir", err)
		}
	}
	jobs := fmt.Sprint(runtime.NumCPU())
	steps := []struct {
		what string
		dir  string
		argv []string
	}{
		{"unpack " + b.origTarball, src, []string{"tar", "-xzf", orig, "--strip-components=1", "--no-same-owner"}},
		{"cmake", build, append([]string{"cmake", src, "-DCMAKE_INSTALL_PREFIX=" + install}, b.cmakeArgs...)},
		{"make -j" + jobs, build, []string{"nice", "-n", "10", "make", "-j" + jobs}},
		{"make install", build, []string{"make", "install"}},
	}
	for _, s := range steps {
		t := time.Now()
		fmt.Fprintf(log, "orch: %s: %s\n", s.what, strings.Join(s.argv, " "))
		cmd, err := serverCommand(ctx, s.dir, s.argv[0], s.argv[1:]...)
		if err != nil {
			return fail(s.what, err)
		}
		if err := runCmdWithProgress(ctx, p, "building "+b.name+": "+s.what, func() string {
			return fmt.Sprintf("%s in all", time.Since(start).Round(time.Second))
		}, cmd, log); err != nil {
			return fail(s.what, err)
		}
		p.printf("lab: building %s: %s done (%.0fs)", b.name, s.what, time.Since(t).Seconds())
	}
	kept := tree + ".building"
	if err := os.RemoveAll(kept); err != nil {
		return fail("prune", err)
	}
	if err := pruneInstall(install, kept, b); err != nil {
		os.RemoveAll(kept)
		return fail("prune", err)
	}
	if _, err := os.Stat(filepath.Join(kept, b.probe)); err != nil {
		os.RemoveAll(kept)
		return fail("check", fmt.Errorf("the build has no %s: %w", b.probe, err))
	}
	if err := os.Rename(kept, tree); err != nil {
		os.RemoveAll(kept)
		return fail("install", err)
	}
	p.printf("lab: built %s from source in %s", b.name, time.Since(start).Round(time.Second))
	return finishTree(tree, b, "build "+b.recipeKey()+" from "+b.srcPackage+" "+b.srcVersion, start, p)
}

// fetchSource downloads b's upstream tarball with apt-get source into the
// cache (kept for a later build) and checks its SHA-256.
func fetchSource(ctx context.Context, cfg Config, b serverBuild, p *progress, log *os.File) (string, error) {
	dir := filepath.Join(serversDir(cfg.CacheDir), "src", b.srcPackage+"_"+b.version)
	orig := filepath.Join(dir, b.origTarball)
	if sum, err := fileSHA256(orig); err == nil && sum == b.origSHA256 {
		p.printf("lab: source %s already downloaded", orig)
		return orig, nil
	}
	src, err := mirrorFor(b.suite)
	if err != nil {
		return "", err
	}
	aptDir := filepath.Join(serversDir(cfg.CacheDir), "apt-"+b.suite)
	list := filepath.Join(aptDir, "sources.list")
	signed := ""
	if src.signedBy != "" {
		signed = " [signed-by=" + src.signedBy + "]"
	}
	for _, d := range []string{filepath.Join(aptDir, "lists", "partial"), filepath.Join(aptDir, "parts"), dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
	}
	entry := fmt.Sprintf("# orch lab: the %s source package of Debian %s, for orch's build only\ndeb-src%s %s %s %s\n",
		b.srcPackage, b.suite, signed, src.uri, b.suite, b.component)
	if err := writeFileAtomic(list, []byte(entry), 0o644); err != nil {
		return "", err
	}
	opts := []string{"-o", "Dir::Etc::SourceList=" + list, "-o", "Dir::Etc::SourceParts=" + filepath.Join(aptDir, "parts"),
		"-o", "Dir::State::Lists=" + filepath.Join(aptDir, "lists"), "-o", "APT::Sandbox::User=root"}
	p.printf("lab: reading Debian %s's source index from %s (an apt list of orch's own: %s)", b.suite, src.uri, list)
	for _, argv := range [][]string{
		append(append([]string{"apt-get"}, opts...), "update"),
		append(append([]string{"apt-get"}, opts...), "source", "--download-only", b.srcPackage+"="+b.srcVersion),
	} {
		cmd, err := serverCommand(ctx, dir, argv[0], argv[1:]...)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(log, "orch: %s\n", strings.Join(argv, " "))
		if err := runCmdWithProgress(ctx, p, "downloading "+b.srcPackage, func() string { return "" }, cmd, log); err != nil {
			return "", err
		}
	}
	sum, err := fileSHA256(orig)
	if err != nil {
		return "", fmt.Errorf("apt-get source left no %s: %w", b.origTarball, err)
	}
	if sum != b.origSHA256 {
		return "", fmt.Errorf("%s: SHA-256 %s, want %s", orig, sum, b.origSHA256)
	}
	p.printf("lab: source %s (SHA-256 checked)", orig)
	return orig, nil
}

// installBuildDeps installs the Debian packages the build needs.
func installBuildDeps(ctx context.Context, b serverBuild, p *progress, log *os.File) error {
	var missing []string
	for _, pkg := range b.buildDeps {
		out, err := output(ctx, nil, "dpkg-query", "-W", "-f=${Status}", pkg)
		if err != nil || !strings.Contains(string(out), "install ok installed") {
			missing = append(missing, pkg)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	p.printf("lab: installing the build's packages: %s", strings.Join(missing, " "))
	argv := append([]string{"apt-get", "install", "-y", "-q", "--no-install-recommends"}, missing...)
	cmd, err := serverCommand(ctx, "/", argv[0], argv[1:]...)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "orch: %s\n", strings.Join(argv, " "))
	return runCmdWithProgress(ctx, p, "installing build packages", func() string { return "" }, cmd, log)
}

// pruneInstall moves the directories the lab needs from install to dst,
// without static libraries, and strips the ELF files (the install is 818
// MB, the pruned and stripped tree about 150 MB).
func pruneInstall(install, dst string, b serverBuild) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, d := range b.keep {
		if err := os.Rename(filepath.Join(install, d), filepath.Join(dst, d)); err != nil {
			return fmt.Errorf("install has no %s: %w", d, err)
		}
	}
	var elfs []string
	err := filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if strings.HasSuffix(path, ".a") && filepath.Base(filepath.Dir(path)) == "lib" {
			return os.Remove(path)
		}
		if f, err := elf.Open(path); err == nil {
			f.Close()
			elfs = append(elfs, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for len(elfs) > 0 {
		n := min(len(elfs), 200)
		if _, err := output(context.Background(), nil, "strip", append([]string{"--strip-unneeded"}, elfs[:n]...)...); err != nil {
			return fmt.Errorf("strip: %w", err)
		}
		elfs = elfs[n:]
	}
	return nil
}

// fileSHA256 is a file's SHA-256 in hex.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return readerSHA256(f)
}
