package main

import "github.com/spf13/pflag"

// storeFlags name the results store (orchestrator/history): every run
// and matrix cell is recorded there when it ends, and orch history and
// orch compare read it.
type storeFlags struct{ file, config string }

func (s *storeFlags) register(f *pflag.FlagSet, recording bool) {
	what := "the results store: an SQLite file (default RUNS/history.sqlite)"
	if recording {
		what += " each run is recorded in when it ends; off records nothing"
	}
	f.StringVar(&s.file, "store", "", what)
	f.StringVar(&s.config, "store-config", "", "a YAML file naming the results store: path (SQLite), or address, user, database and password_file (a shared MariaDB/MySQL; the password is never on the command line)")
}
