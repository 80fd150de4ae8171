package dbinsert

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/shell"
)

// Build is both programs on one host.
type Build struct {
	Host string
	// Dir is the build's directory: ~/.orch/dbinsert/<source sha256>,
	// with bin/db-insert, bin/db-insert-bdb, lib/ (the fractal-tree
	// library the first is linked to, by rpath), src.<ext> and build.log.
	Dir         string
	FractalTree string // Dir/bin/db-insert
	BerkeleyDB  string // Dir/bin/db-insert-bdb
	Log         string // Dir/build.log, kept
	// Cached: the host already had this source's build; nothing was built.
	Cached bool
	Took   time.Duration
}

// BuildTimeout bounds one build: about a minute on the lab's 2 cores, much
// more on a loaded host.
const BuildTimeout = 30 * time.Minute

// heartbeat is how often a running build says where it is.
const heartbeat = 15 * time.Second

// Deps are the Debian packages a build needs on the host.
const Deps = "cmake build-essential zlib1g-dev libdb5.3-dev zstd"

// Provision builds both programs from src on the host ex reaches, or finds
// the build it made before from the same source (by checksum). logf gets
// progress: each step as it starts and, every 15 s, the time so far and
// the build log's last line. The build directory becomes ~/.orch/dbinsert/
// current, the workload's default programs.
func Provision(ctx context.Context, ex executor.Executor, host string, src *Source, logf func(string, ...any)) (*Build, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	start := time.Now()
	res, err := ex.Run(ctx, executor.Command{Script: prepareScript(src), Timeout: time.Minute})
	if err != nil {
		return nil, fmt.Errorf("%s: db-insert build directory: %w", host, err)
	}
	state, dir, _ := strings.Cut(strings.TrimSpace(string(res.Stdout)), " ")
	b := &Build{Host: host, Dir: dir, FractalTree: path.Join(dir, "bin/db-insert"),
		BerkeleyDB: path.Join(dir, "bin/db-insert-bdb"), Log: path.Join(dir, "build.log")}
	switch state {
	case "cached":
		if _, err := ex.Run(ctx, executor.Command{Script: currentScript(dir), Timeout: time.Minute}); err != nil {
			return nil, fmt.Errorf("%s: db-insert: %w", host, err)
		}
		b.Cached, b.Took = true, time.Since(start)
		logf("%s: db-insert: source %.12s already built in %s", host, src.Sum, dir)
		return b, nil
	case "missing":
		return nil, fmt.Errorf("%s: cannot build db-insert: missing %s (on Debian: apt-get install %s)",
			host, strings.Join(strings.Fields(dir), ", "), Deps)
	case "build":
	default:
		return nil, fmt.Errorf("%s: db-insert build directory: unexpected answer %q", host, clip(string(res.Stdout)))
	}
	logf("%s: db-insert: sending the PerconaFT source (%s, sha256 %.12s)", host, src.Path, src.Sum)
	r, err := src.Open()
	if err != nil {
		return nil, err
	}
	err = ex.Upload(ctx, r, path.Join(dir, "src."+src.Ext), 0o600, false)
	r.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: send the PerconaFT source: %w", host, err)
	}
	if err := build(ctx, ex, host, dir, src.Ext, logf); err != nil {
		return nil, err
	}
	b.Took = time.Since(start)
	logf("%s: db-insert: built both programs in %s (log %s)", host, b.Took.Round(time.Second), b.Log)
	return b, nil
}

// build runs the build script, streaming its step lines and a heartbeat.
func build(ctx context.Context, ex executor.Executor, host, dir, ext string, logf func(string, ...any)) error {
	pr, pw := io.Pipe()
	steps := make(chan struct{})
	go func() {
		defer close(steps)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			logf("%s: db-insert build: %s", host, sc.Text())
		}
		io.Copy(io.Discard, pr)
	}()
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	beat := make(chan struct{})
	go func() {
		defer close(beat)
		t0 := time.Now()
		tick := time.NewTicker(heartbeat)
		defer tick.Stop()
		for {
			select {
			case <-bctx.Done():
				return
			case <-tick.C:
				last := ""
				res, err := ex.Run(bctx, executor.Command{Script: "tail -n 1 " + shell.Quote(path.Join(dir, "build.log")), Timeout: 10 * time.Second})
				if err == nil {
					last = clip(strings.TrimSpace(string(res.Stdout)))
				}
				logf("%s: db-insert build: %s so far; %s", host, time.Since(t0).Round(time.Second), last)
			}
		}
	}()
	_, err := ex.Run(ctx, executor.Command{Script: buildScript(dir, ext), Stdout: pw, Timeout: BuildTimeout})
	pw.Close()
	cancel()
	<-steps
	<-beat
	if err != nil {
		var ee *executor.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("%s: db-insert build failed (log %s): %s", host, path.Join(dir, "build.log"), ee.Stderr)
		}
		return fmt.Errorf("%s: db-insert build: %w", host, err)
	}
	return nil
}

// prepareScript makes ~/.orch/dbinsert privately and answers "cached DIR"
// (a finished build of this source is there), "missing WHAT..." (the host
// lacks a build tool: nothing is sent) or "build DIR" (made, empty or
// holding an unfinished build).
func prepareScript(src *Source) string {
	need := "cmake make cc c++ tar"
	if src.Ext == "tar.zst" {
		need += " zstd"
	}
	return "set -- " + shell.Join(src.Sum, need) + `
umask 077
h=$HOME
case "$h" in /*) ;; *) echo "the SSH user's home directory ($h) is not an absolute path" >&2; exit 1 ;; esac
for p in "$h/.orch" "$h/` + bench.DBInsertHome + `" "$h/` + bench.DBInsertHome + `/$1"; do
  if [ -L "$p" ] || { [ -e "$p" ] && { [ ! -d "$p" ] || [ ! -O "$p" ]; }; }; then
    echo "$p is not a directory of $(id -un): left alone" >&2; exit 1
  fi
done
d="$h/` + bench.DBInsertHome + `/$1"
if [ -f "$d/done" ] && [ -x "$d/bin/db-insert" ] && [ -x "$d/bin/db-insert-bdb" ]; then echo "cached $d"; exit 0; fi
missing=
for t in $2; do command -v "$t" >/dev/null 2>&1 || missing="$missing $t"; done
[ -f /usr/include/db.h ] || missing="$missing db.h(libdb5.3-dev)"
[ -f /usr/include/zlib.h ] || missing="$missing zlib.h(zlib1g-dev)"
if [ -n "$missing" ]; then echo "missing$missing"; exit 0; fi
mkdir -p -m 700 "$d" && echo "build $d"
`
}

// buildScript is tokudb.md's recipe: the fractal-tree library with three
// compile flags (glibc 2.36 has no pthread_yield), then examples/db-insert.c
// twice. Everything goes to build.log; stdout gets one line per step.
// The library is built without cmake's build-tree RUNPATH (which would
// name a directory the script removes and, being a RUNPATH, hide the
// program's own path from the library's dependencies); the program carries
// an old-style RPATH to ../lib, which the loader also applies to them.
func buildScript(dir, ext string) string {
	return "set -- " + shell.Join(dir, ext) + `
cd "$1" || exit 1
exec 9>.lock
flock -n 9 || { echo "another build is running in $1" >&2; exit 1; }
rm -f done && rm -rf src build bin lib include && mkdir src build bin lib include || exit 1
: > build.log
step() { echo "== $*" >> build.log; echo "$*"; }
fail() { echo "$1 failed; the end of $PWD/build.log:" >&2; tail -n 15 build.log >&2; exit 1; }
step "unpack the source ($2)"
case $2 in
  tar.zst) zstd -dc "src.$2" | tar -x -C src --strip-components=1 ;;
  tar.gz) tar -xzf "src.$2" -C src --strip-components=1 ;;
  *) tar -xf "src.$2" -C src --strip-components=1 ;;
esac >> build.log 2>&1 || fail unpack
[ -f src/examples/db-insert.c ] || { echo "the source has no examples/db-insert.c (PerconaFT's examples branch, commit f85cba7e8, has it)" >&2; exit 1; }
F='-Wno-error -DHAVE_PTHREAD_YIELD=1 -DPTHREAD_YIELD_RETURNS_INT=1 -Dpthread_yield=sched_yield -include sched.h'
step "cmake"
(cd build && cmake ../src -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DCMAKE_SKIP_BUILD_RPATH=ON -DCMAKE_C_FLAGS="$F" -DCMAKE_CXX_FLAGS="$F") >> build.log 2>&1 || fail cmake
step "make tokufractaltree tokuportability (about a minute on 2 cores)"
(cd build && make -j"$(nproc)" tokufractaltree tokuportability) >> build.log 2>&1 || fail make
cp -P build/src/libtokufractaltree.so* build/portability/libtokuportability.so* lib/ >> build.log 2>&1 || fail "copy the libraries"
cp build/buildheader/db.h include/tokudb.h || fail "copy db.h"
step "cc db-insert (fractal tree)"
cc -std=c99 -D_GNU_SOURCE -DTOKUDB -Iinclude src/examples/db-insert.c -o bin/db-insert -Llib -ltokufractaltree -ltokuportability \
  -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../lib' -lpthread -lz -ldl >> build.log 2>&1 || fail "cc db-insert"
step "cc db-insert-bdb (Berkeley DB)"
cc -std=c99 -D_GNU_SOURCE -DBDB src/examples/db-insert.c -o bin/db-insert-bdb -ldb >> build.log 2>&1 || fail "cc db-insert-bdb"
rm -rf build src
touch done
` + currentLink
}

// currentLink points ~/.orch/dbinsert/current at the build in $1.
const currentLink = `ln -sfn -- "$(basename -- "$1")" "$(dirname -- "$1")/current"
`

func currentScript(dir string) string {
	return "set -- " + shell.Quote(dir) + "\n" + currentLink
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
