package server

import (
	"context"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/shell"
)

// The error log explains a failed start. orch notes its size before a
// restart and reads only what was written after, so old errors never show
// up as the cause of a new failure.

// maxLogSlice bounds how much of the log is fetched after a failure.
const maxLogSlice = 64 << 10

// errorLogPath resolves the server's error log: the inventory's
// mysql.error_log, else @@log_error (relative to the datadir when it is
// relative). "" means it is not a file (stderr, syslog or the journal).
func errorLogPath(configured, logError, datadir string) string {
	if configured != "" {
		return configured
	}
	switch logError {
	case "", "stderr":
		return ""
	}
	if !strings.HasPrefix(logError, "/") {
		return path.Join(datadir, logError)
	}
	return logError
}

// ErrorLogPath is errorLogPath for the packages that ask a server where
// its log is (collect confirms a manifest's path with it).
func ErrorLogPath(configured, logError, datadir string) string {
	return errorLogPath(configured, logError, datadir)
}

// logSize returns the error log's size now (0 when it does not exist).
func logSize(ctx context.Context, ex executor.Executor, file string) (int64, error) {
	if file == "" {
		return 0, nil
	}
	res, err := ex.Run(ctx, executor.Command{
		Script:  "stat -c %s " + shell.Quote(file) + " 2>/dev/null || echo 0",
		Sudo:    true,
		Timeout: commandTimeout,
	})
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(res.Stdout)), 10, 64)
}

// logSince returns what was appended to the log after it was from bytes
// long; all of it when it shrank (rotated or truncated meanwhile).
func logSince(ctx context.Context, ex executor.Executor, file string, from int64) (string, error) {
	if file == "" {
		return "", nil
	}
	f := shell.Quote(file)
	script := "f=" + f + "; [ -e \"$f\" ] || exit 0\n" +
		"if [ \"$(stat -c %s \"$f\")\" -lt " + strconv.FormatInt(from, 10) + " ]; then tail -c " +
		strconv.Itoa(maxLogSlice) + " \"$f\"; else tail -c +" + strconv.FormatInt(from+1, 10) +
		" \"$f\" | tail -c " + strconv.Itoa(maxLogSlice) + "; fi"
	res, err := ex.Run(ctx, executor.Command{Script: script, Sudo: true, Timeout: commandTimeout})
	if err != nil {
		return "", err
	}
	return string(res.Stdout), nil
}

// errorTag finds a log line's severity: "[ERROR]" on MariaDB and MySQL 5.7,
// "[ERROR] [MY-000067] [Server]" on MySQL 8.
var errorTag = regexp.MustCompile(`\[ERROR\](\s*\[MY-\d+\])?(\s*\[[A-Za-z]+\])?\s*`)

// boringErrors are consequences, not causes, of a failed start.
var boringErrors = []string{"Aborting", "Unknown/unsupported storage engine", "Plugin 'InnoDB' registration as a STORAGE ENGINE failed"}

// relevantErrors picks the [ERROR] lines of a log slice, without their
// timestamps, in order and without repeats, at most limit of them (the first:
// the cause comes first). Generic consequences ("Aborting") are dropped
// when anything else explains the failure. Without any [ERROR] line it
// falls back to the last lines.
func relevantErrors(slice string, limit int) []string {
	var causes, consequences, tail []string
	seen := map[string]bool{}
	for _, line := range strings.Split(slice, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		tail = append(tail, line)
		loc := errorTag.FindStringIndex(line)
		if loc == nil {
			continue
		}
		msg := "[ERROR] " + strings.TrimSpace(line[loc[1]:])
		if seen[msg] {
			continue
		}
		seen[msg] = true
		if boring(msg) {
			consequences = append(consequences, msg)
		} else {
			causes = append(causes, msg)
		}
	}
	out := causes
	switch {
	case len(out) == 0 && len(consequences) > 0:
		out = consequences
	case len(out) == 0:
		out = tail[max(0, len(tail)-limit):]
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func boring(msg string) bool {
	for _, b := range boringErrors {
		if strings.Contains(msg, b) {
			return true
		}
	}
	return false
}
