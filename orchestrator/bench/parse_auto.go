package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// sniffLen is how much of the input ParseAuto looks at to detect the tool.
// Every tool identifies itself within its first lines; the rest is slack
// for warnings printed ahead of them.
const sniffLen = 64 << 10

// Parse parses output of the given tool (a format of the Drivers table, or
// an alias: "mariadb-slap" for ToolMysqlslap). The result is *Sysbench,
// Mysqlslap or *DBInsert, with the error semantics of ParseSysbench,
// ParseMysqlslap and ParseDBInsert.
func Parse(tool Tool, name string, r io.Reader) (Result, error) {
	if d, ok := formatSpec(tool); ok {
		return d.Parse(name, r)
	}
	return nil, fmt.Errorf("bench: unknown tool %q (want %s)", tool, formatNames(""))
}

// ParseAuto detects the tool from the first 64 KiB of r (see Detect) and
// parses the whole input with that tool's parser, still streaming.
func ParseAuto(name string, r io.Reader) (Result, error) {
	br := bufio.NewReaderSize(r, sniffLen)
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, &ParseError{File: displayName(name), Line: 1, Msg: "read", Err: err}
	}
	tool := Detect(head)
	if tool == "" {
		msg := "unrecognised output: no " + formatNames("") + " lines in the first 64 KiB"
		if len(head) == 0 {
			msg = "empty input"
		}
		return nil, &ParseError{File: displayName(name), Msg: msg}
	}
	return Parse(tool, name, br)
}

// Detect names the tool whose output starts with head, or returns "" when
// none is recognised. The first line characteristic of one tool decides:
// sysbench's banner, interval lines and report headers; mysqlslap's
// "Benchmark" block, --debug-info lines and "mysqlslap:" messages;
// db-insert's header, batch and total lines.
func Detect(head []byte) Tool {
	for len(head) > 0 {
		var line []byte
		line, head, _ = bytes.Cut(head, []byte("\n"))
		if tool := detectLine(string(bytes.TrimRight(line, "\r"))); tool != "" {
			return tool
		}
	}
	return ""
}

func detectLine(s string) Tool {
	for _, d := range Drivers {
		if d.Sniff != nil && d.Sniff(s) {
			return d.Tool
		}
	}
	return ""
}

// The formats' Sniff: whether a line is characteristic of the tool.
func sniffSysbench(s string) bool {
	t := strings.TrimSpace(s)
	return bannerRE.MatchString(s) || isSysbenchInterval(s) || strings.HasPrefix(t, "FATAL: ") ||
		t == "SQL statistics:" || t == "OLTP test statistics:" || t == "General statistics:" ||
		t == "Threads started!"
}

func sniffMysqlslap(s string) bool {
	t := strings.TrimSpace(s)
	return t == "Benchmark" || strings.HasPrefix(t, "Running for engine ") ||
		strings.HasPrefix(t, labelAvg+":") || userTimeRE.MatchString(t) ||
		strings.HasPrefix(t, "mysqlslap: ") || strings.HasPrefix(t, "mariadb-slap: ")
}

func sniffDBInsert(s string) bool {
	t := strings.TrimSpace(s)
	if dbInsertHeaderRE.MatchString(t) || strings.HasPrefix(t, "Total time ") && strings.Contains(t, " insertions = ") {
		return true
	}
	f := strings.Fields(t)
	return len(f) > 2 && (f[0] == "serial" || f[0] == "random") && strings.HasSuffix(f[2], "/s")
}

// isSysbenchInterval reports whether s looks like a sysbench interval line
// of any version, well-formed or not.
func isSysbenchInterval(s string) bool {
	m := timestampRE.FindStringSubmatch(s)
	return m != nil && (strings.HasPrefix(m[3], "thds:") || strings.HasPrefix(m[3], "threads:"))
}
