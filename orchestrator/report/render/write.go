package render

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/atomicfile"
	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// Formats are the outputs Write produces.
const (
	FormatMarkdown = "md"
	FormatHTML     = "html"
	FormatCSV      = "csv"
)

// AllFormats is the default: every output.
var AllFormats = []string{FormatMarkdown, FormatHTML, FormatCSV}

// ParseFormats reads a comma-separated format list ("md,html").
func ParseFormats(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ToLower(f))
		switch f {
		case "":
			continue
		case FormatMarkdown, FormatHTML, FormatCSV:
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		default:
			return nil, fmt.Errorf("unknown format %q (md, html or csv)", f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no format given (md, html or csv)")
	}
	return out, nil
}

// Write writes the formats into dir (created if missing) and returns the
// paths written. Markdown references its plots, so with md the plots are
// written under dir/plots/ too. Each file is replaced atomically.
func Write(rep *judge.Report, dir string, formats []string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if err := DrawPlots(rep); err != nil {
		return nil, err
	}
	var written []string
	put := func(name string, render func(*bytes.Buffer) error) error {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			return fmt.Errorf("report: %s: %w", name, err)
		}
		p := filepath.Join(dir, name)
		if err := atomicfile.Write(p, bytes.NewReader(b.Bytes()), 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		written = append(written, p)
		return nil
	}
	for _, f := range formats {
		var err error
		switch f {
		case FormatMarkdown:
			for _, t := range rep.Tables {
				for _, p := range t.Plots {
					svg := p.SVG
					if err = put(filepath.Join(load.PlotsDir, p.Name+".svg"), func(b *bytes.Buffer) error { _, e := b.Write(svg); return e }); err != nil {
						return written, err
					}
				}
			}
			err = put(load.FileMarkdown, func(b *bytes.Buffer) error { return WriteMarkdown(rep, b) })
		case FormatHTML:
			err = put(load.FileHTML, func(b *bytes.Buffer) error { return WriteHTML(rep, b) })
		case FormatCSV:
			err = put(load.FileCSV, func(b *bytes.Buffer) error { return WriteCSV(rep, b) })
			if err == nil {
				err = put(load.FileConfigurationsCSV, func(b *bytes.Buffer) error { return WriteConfigurationsCSV(rep, b) })
			}
			if err == nil {
				err = put(load.FileHostsCSV, func(b *bytes.Buffer) error { return WriteHostsCSV(rep, b) })
			}
			if err == nil {
				err = put(FileTablesCSV, func(b *bytes.Buffer) error { return WriteTablesCSV(rep, b) })
			}
			if err == nil {
				err = put(load.FileWhy, func(b *bytes.Buffer) error { return WriteWhyJSON(rep, b) })
			}
			if err == nil && hasFloors(rep) {
				err = put(load.FileNoiseFloor, func(b *bytes.Buffer) error { return WriteNoiseFloorJSON(rep, b) })
			}
		default:
			err = fmt.Errorf("report: unknown format %q", f)
		}
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// Generate loads the inputs, builds the report and writes it: what
// `orch report` and the end of a matrix do. out "" means the single
// input's directory, else ./report. It returns the report and the paths
// written.
func Generate(inputs []string, out string, formats []string, opts analyse.Options) (*judge.Report, []string, error) {
	in, err := load.LoadLabelled(inputs, opts.Labels)
	if err != nil {
		return nil, nil, err
	}
	rep, err := judge.Build(in, opts)
	if err != nil {
		return nil, nil, err
	}
	if out == "" {
		out = in.Home
	}
	if out == "" {
		out = "report"
	}
	if len(formats) == 0 {
		formats = AllFormats
	}
	paths, err := Write(rep, out, formats)
	return rep, paths, err
}

// WrittenLine says in one line what Write wrote: the directory, its
// files, and how many plots went under plots/ (one line per file drowned
// the answer that follows it).
func WrittenLine(paths []string) string {
	if len(paths) == 0 {
		return "wrote nothing"
	}
	var dir string
	for _, p := range paths {
		if filepath.Base(filepath.Dir(p)) != load.PlotsDir {
			dir = filepath.Dir(p)
			break
		}
	}
	var names []string
	plots := 0
	for _, p := range paths {
		if filepath.Dir(p) == dir {
			names = append(names, filepath.Base(p))
		} else {
			plots++
		}
	}
	line := "wrote " + filepath.Join(dir, "{"+strings.Join(names, ",")+"}")
	if plots > 0 {
		line += fmt.Sprintf(" and %d plots in %s", plots, filepath.Join(dir, load.PlotsDir))
	}
	return line
}
