package server

import (
	"context"
	"path"
	"strings"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/shell"
)

// orch's file and its two companions in the include directory (the server
// reads only *.cnf there):
//   - FileName.orig: what was at FileName before orch first wrote it, when
//     something was (Restore puts it back; without it Restore removes
//     orch's file);
//   - FileName.bak: the version each write replaced, for a human.

// fileState is what is at orch's path now.
type fileState struct {
	exists, origExists bool
	text               string
	// createdOrig is set once this run has copied the file to .orig.
	createdOrig bool
}

// owned reports whether the file is orch's own (an earlier run's).
func (s fileState) owned() bool { return s.exists && strings.HasPrefix(s.text, ownerMarker) }

func (n *Node) configPath() string { return path.Join(n.Facts.ConfigDir, n.configFile()) }

// ConfigPath is orch's config file on the host.
func (n *Node) ConfigPath() string { return n.configPath() }

// configFile is orch's file's name in the include directory.
func (n *Node) configFile() string {
	if n.Facts.ConfigFile != "" {
		return n.Facts.ConfigFile
	}
	return FileName
}

// readState reads orch's file, if any, and whether a .orig exists.
func (n *Node) readState(ctx context.Context) (fileState, error) {
	script := "p=" + shell.Quote(n.configPath()) + `
if [ -e "$p.orig" ]; then echo orig=1; else echo orig=0; fi
if [ -e "$p" ]; then echo exists=1; cat "$p"; else echo exists=0; fi`
	res, err := n.Exec.Run(ctx, executor.Command{Script: script, Sudo: true, Timeout: commandTimeout})
	if err != nil {
		return fileState{}, n.errorf("read %s: %w", n.configPath(), err)
	}
	out := string(res.Stdout)
	orig, rest, _ := strings.Cut(out, "\n")
	exists, text, _ := strings.Cut(rest, "\n")
	return fileState{origExists: orig == "orig=1", exists: exists == "exists=1", text: text}, nil
}

// writeConfig installs text as orch's file, keeping the replaced version as
// .bak and, the first time orch replaces a file that is not its own, as
// .orig. It reports whether it created .orig.
func (n *Node) writeConfig(ctx context.Context, old fileState, text string) (createdOrig bool, err error) {
	p := shell.Quote(n.configPath())
	var script string
	if old.exists && !old.owned() && !old.origExists {
		script += "cp -p " + p + " " + p + ".orig && "
		createdOrig = true
	}
	if old.exists {
		script += "cp -p " + p + " " + p + ".bak"
	}
	if script != "" {
		if _, err := n.Exec.Run(ctx, executor.Command{Script: script, Sudo: true, Timeout: commandTimeout}); err != nil {
			return false, n.errorf("back up %s: %w", n.configPath(), err)
		}
	}
	if err := n.Exec.Upload(ctx, strings.NewReader(text), n.configPath(), 0o644, true); err != nil {
		return createdOrig, n.errorf("write %s: %w", n.configPath(), err)
	}
	return createdOrig, nil
}

// putBack returns orch's path to old: its previous content, or no file.
func (n *Node) putBack(ctx context.Context, old fileState) error {
	p := shell.Quote(n.configPath())
	if old.exists {
		if err := n.Exec.Upload(ctx, strings.NewReader(old.text), n.configPath(), 0o644, true); err != nil {
			return n.errorf("restore %s: %w", n.configPath(), err)
		}
	} else if _, err := n.Exec.Run(ctx, executor.Command{Script: "rm -f " + p, Sudo: true, Timeout: commandTimeout}); err != nil {
		return n.errorf("remove %s: %w", n.configPath(), err)
	}
	if old.createdOrig {
		if _, err := n.Exec.Run(ctx, executor.Command{Script: "rm -f " + p + ".orig", Sudo: true, Timeout: commandTimeout}); err != nil {
			return n.errorf("remove %s.orig: %w", n.configPath(), err)
		}
	}
	return nil
}

// printDefaults returns the options mysqld will read at its next start.
func (n *Node) printDefaults(ctx context.Context) ([]option, error) {
	if n.Facts.PrintDefaults == "" {
		return nil, n.errorf("cannot check which options the server reads: my_print_defaults is not installed")
	}
	res, err := n.Exec.Run(ctx, executor.Command{Script: n.Facts.PrintDefaults, Sudo: true, Timeout: commandTimeout})
	if err != nil {
		return nil, n.errorf("%s: %w", n.Facts.PrintDefaults, stripHost(err))
	}
	return parseDefaults(string(res.Stdout)), nil
}

// Applied is what orch's file on a host says was laid down: the profile and
// the overrides (profile.vars and --knob), read from the file's header.
type Applied struct {
	Profile   string   `json:"profile,omitempty"`
	Overrides []string `json:"overrides,omitempty"`
}

// Applied reads orch's file; a zero Applied means orch has not configured
// the host.
func (n *Node) Applied(ctx context.Context) (Applied, error) {
	st, err := n.readState(ctx)
	if err != nil || !st.exists || !st.owned() {
		return Applied{}, err
	}
	var a Applied
	for _, line := range strings.Split(st.text, "\n") {
		if v, ok := strings.CutPrefix(line, "# profile: "); ok {
			a.Profile = v
		}
		if v, ok := strings.CutPrefix(line, "# overrides: "); ok {
			a.Overrides = strings.Split(v, ", ")
		}
	}
	return a, nil
}
