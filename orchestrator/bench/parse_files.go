package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/orch-bench/orch/orchestrator"
)

// ParseFiles is `orch parse`: it parses each file as tool's output ("auto"
// detects the tool) and writes JSON to out: for one file its document, for
// several one array of {"file", "result"} in file order, so `orch parse a
// b > x.json` is one document that orch report labels by file name.
// Output cut short is kept with a warning on warn; a file that cannot be
// read or parsed (naming FILE:LINE) and an unknown tool are bad input.
func ParseFiles(tool string, files []string, out, warn io.Writer) error {
	if tool != "auto" && !slices.Contains(Formats(), tool) {
		return orchestrator.BadInputf("parse: unknown --tool %q (%s)", tool, formatNames("auto"))
	}
	type doc struct {
		File   string `json:"file"`
		Result Result `json:"result"`
	}
	var docs []doc
	for _, name := range files {
		res, err := parseFile(tool, name)
		if err != nil && !errors.Is(err, ErrIncomplete) {
			return orchestrator.BadInput(err)
		}
		if err != nil {
			fmt.Fprintf(warn, "orch: warning: %v\n", err)
		}
		if s, ok := res.(*Sysbench); ok && s.IntervalsDropped > 0 {
			fmt.Fprintf(warn, "orch: warning: %s: kept the first %d interval lines (the maximum) and dropped %d; the summary covers the whole run\n",
				name, len(s.Intervals), s.IntervalsDropped)
		}
		docs = append(docs, doc{File: name, Result: res})
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	if len(docs) == 1 {
		return enc.Encode(docs[0].Result)
	}
	return enc.Encode(docs)
}

func parseFile(tool, name string) (Result, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if tool == "auto" {
		return ParseAuto(name, f)
	}
	return Parse(Tool(tool), name, f)
}
