package history

import (
	"context"
	"fmt"
	"path/filepath"
)

// Off as the store's file records nothing (--store off).
const Off = "off"

// Where names the store as the command line gave it: an SQLite file
// (default Root/history.sqlite), or a configuration file (a shared
// MariaDB/MySQL store, or a file elsewhere), or Off.
type Where struct {
	Root, File, ConfigFile string
}

// Config is the store Where names; ok is false when recording is off.
func (w Where) Config() (c Config, ok bool, err error) {
	switch {
	case w.ConfigFile != "" && w.File != "":
		return c, false, fmt.Errorf("--store and --store-config: one store")
	case w.ConfigFile != "":
		c, err = LoadConfig(w.ConfigFile)
		return c, err == nil, err
	case w.File == Off:
		return c, false, nil
	case w.File != "":
		return Config{Path: w.File}, true, nil
	}
	root := w.Root
	if root == "" {
		root = "runs"
	}
	return Config{Path: filepath.Join(root, DefaultFile)}, true, nil
}

// Record records a run or matrix directory that just ended. A run is
// never failed by its history: an error is logged, with the command that
// records the run later (orch history import).
func (w Where) Record(ctx context.Context, dir string, logf func(string, ...any)) {
	c, ok, err := w.Config()
	if !ok {
		if err != nil {
			logf("history: not recorded: %v (later: orch history import %s)", err, dir)
		}
		return
	}
	s, err := Open(ctx, c)
	if err == nil {
		var es []Entry
		if es, err = Extract([]string{dir}); err == nil {
			_, err = s.Record(ctx, es)
		}
		s.Close()
	}
	if err != nil {
		logf("history: not recorded: %v (later: orch history import %s)", err, dir)
		return
	}
	logf("history: recorded in %s", s.Where())
}
