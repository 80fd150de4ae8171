package server

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/shell"
)

// Where a server's errors go: its error log file (log_error), or, with
// log_error unset under systemd (Debian's and Ubuntu's packages), the
// unit's journal, which holds mariadbd's stderr. A LogMark taken before a
// restart or a run finds what was written since, in either place.

// LogMark is where the server's log stood: the error log's size, or the
// host's clock (whole seconds) for the journal.
type LogMark struct {
	Size    int64 `json:"size,omitempty"`
	Journal int64 `json:"journal_since_unix,omitempty"`
}

// errNoLog: the server logs to neither a file nor a journal orch knows.
var errNoLog = errors.New("no error log file and no systemd unit")

// Journal reports whether the server's errors are read from the unit's
// journal rather than from a file.
func (n *Node) Journal() bool { return n.Facts.ErrorLog == "" && n.Facts.Service.Unit != "" }

// MarkLog notes where the server's log stands now.
func (n *Node) MarkLog(ctx context.Context) (LogMark, error) {
	if n.Facts.ErrorLog != "" {
		size, err := logSize(ctx, n.Exec, n.Facts.ErrorLog)
		return LogMark{Size: size}, err
	}
	if !n.Journal() {
		return LogMark{}, errNoLog
	}
	res, err := n.Exec.Run(ctx, executor.Command{Script: "date +%s", Timeout: commandTimeout})
	if err != nil {
		return LogMark{}, err
	}
	t, err := strconv.ParseInt(strings.TrimSpace(string(res.Stdout)), 10, 64)
	return LogMark{Journal: t}, err
}

// LogSince returns what the server logged after m (at most maxLogSlice
// bytes, the end kept).
func (n *Node) LogSince(ctx context.Context, m LogMark) (string, error) {
	if n.Facts.ErrorLog != "" {
		return logSince(ctx, n.Exec, n.Facts.ErrorLog, m.Size)
	}
	if !n.Journal() {
		return "", errNoLog
	}
	res, err := n.Exec.Run(ctx, executor.Command{Script: journalScript(n.Facts.Service.Unit, m.Journal), Sudo: true, Timeout: commandTimeout})
	if err != nil {
		return "", err
	}
	return string(res.Stdout), nil
}

// journalScript prints the unit's messages since the epoch second: the
// server's own lines (-o cat: no syslog prefix, the server stamps them).
func journalScript(unit string, since int64) string {
	if !strings.Contains(unit, ".") {
		unit += ".service"
	}
	// --sync first: entries journald holds are written before they are read.
	return "journalctl --sync 2>/dev/null; journalctl --no-pager -q -o cat -u " + shell.Quote(unit) +
		" --since @" + strconv.FormatInt(since, 10) + " | tail -c " + strconv.Itoa(maxLogSlice)
}
