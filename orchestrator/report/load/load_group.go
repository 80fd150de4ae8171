package load

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/schema"
)

// LabelGlob is `--label NAME=GLOB`: every input the glob matches is one
// repetition of configuration NAME.
type LabelGlob struct{ Name, Glob string }

// ParseLabelGlob reads NAME=GLOB.
func ParseLabelGlob(s string) (LabelGlob, error) {
	name, glob, ok := strings.Cut(s, "=")
	name, glob = strings.TrimSpace(name), strings.TrimSpace(glob)
	if !ok || name == "" || glob == "" {
		return LabelGlob{}, fmt.Errorf("%q: want NAME=GLOB (innodb='logs/innodb-*.txt')", s)
	}
	if _, err := filepath.Match(glob, ""); err != nil {
		return LabelGlob{}, fmt.Errorf("%q: bad glob: %v", s, err)
	}
	return LabelGlob{Name: name, Glob: glob}, nil
}

// reportOutputs are the files a report writes: a folder of logs that
// once held a report (--out into it) still reads as its logs alone.
var reportOutputs = []string{FileMarkdown, FileHTML, FileCSV, FileHostsCSV, FileConfigurationsCSV, FileWhy, FileNoiseFloor, PlotsDir}

// setupLog tells a client's setup output from a run's by its name, as
// run directories name them (benchmark/prepare.txt, cleanup.txt): it
// holds no figures, and is no repetition.
func setupLog(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "prepare") || strings.Contains(n, "cleanup")
}

// loadFolder reads a directory that is neither a matrix nor a run
// directory as one configuration, labelled by its name: each file (a raw
// client log or orch parse output) and each run directory in it is a
// repetition; hidden files, setup logs (setupLog) and the report's own
// files are skipped.
func loadFolder(dir string) ([]*Run, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	label := filepath.Base(dir)
	var runs []*Run
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || slices.Contains(reportOutputs, name) {
			continue
		}
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		if err != nil {
			return nil, &InputError{Path: p, Err: err}
		}
		var got []*Run
		switch {
		case st.IsDir() && exists(filepath.Join(p, FileMatrix)):
			return nil, &InputError{Path: p, Err: errors.New("a matrix inside a folder of repetitions: give the matrix on its own")}
		case st.IsDir() && (exists(filepath.Join(p, schema.FileResults)) || exists(filepath.Join(p, schema.FileManifest))):
			r, err := ReadRunDir(p)
			if err != nil {
				return nil, &InputError{Path: p, Err: err}
			}
			got = []*Run{r}
		case st.IsDir():
			return nil, &InputError{Path: p, Err: fmt.Errorf("a folder inside the folder of repetitions %s, neither a run directory (%s, %s) nor a log",
				dir, schema.FileResults, schema.FileManifest)}
		case setupLog(name):
			continue
		default:
			if got, err = ReadParseFile(p); err != nil {
				return nil, &InputError{Path: p, Err: err}
			}
		}
		for _, r := range got {
			r.ID, r.Label = label+"/"+r.ID, label
		}
		runs = append(runs, got...)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no benchmark logs or run directories in it (a folder is one configuration, its files the repetitions; a matrix needs %s, a run directory %s)",
			FileMatrix, schema.FileResults)
	}
	return runs, nil
}

// expandLabels adds the inputs the --label globs match to the positional
// ones (each once) and maps each labelled input's path to its label.
func expandLabels(paths []string, labels []LabelGlob) ([]string, map[string]string, error) {
	inputs := slices.Clone(paths)
	given := map[string]bool{}
	for _, p := range paths {
		given[absPath(p)] = true
	}
	labelOf := map[string]string{}
	for _, l := range labels {
		flag := "--label " + l.Name + "=" + l.Glob
		matches, err := filepath.Glob(l.Glob)
		if err != nil {
			return nil, nil, &InputError{Path: flag, Err: err}
		}
		if len(matches) == 0 {
			return nil, nil, &InputError{Path: flag, Err: errors.New("matches no file")}
		}
		for _, m := range matches {
			k := absPath(m)
			if prev, ok := labelOf[k]; ok && prev != l.Name {
				return nil, nil, &InputError{Path: m, Err: fmt.Errorf("matched by --label %s and --label %s: one configuration per input", prev, l.Name)}
			}
			labelOf[k] = l.Name
			if !given[k] {
				given[k] = true
				inputs = append(inputs, m)
			}
		}
	}
	return inputs, labelOf, nil
}

// absPath is p resolved (symlinks, relative paths) so that two spellings
// of one input compare equal.
func absPath(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// identity is what makes two inputs' runs the same run: its run
// directory, else the file it was read from and its place in it. A matrix
// given with one of its own cells holds that cell once.
func (r *Run) identity() string {
	if r.Dir != "" {
		return "dir\x00" + absPath(r.Dir)
	}
	return "file\x00" + absPath(r.Source) + "\x00" + r.ID
}
