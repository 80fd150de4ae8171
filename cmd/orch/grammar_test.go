package main

import (
	"slices"
	"testing"
)

// Every command is in the grammar's table or is one that contacts no host:
// a cluster command added without an entry would have no -i at all.
func TestEveryCommandHasAGrammar(t *testing.T) {
	offline := []string{"parse", "report", "history", "compare", "lab", "help", "completion"}
	for _, cmd := range newRootCmd().Commands() {
		_, listed := commandGrammar[cmd.Name()]
		if listed == slices.Contains(offline, cmd.Name()) {
			t.Errorf("orch %s: in the grammar table %v, offline %v: want exactly one", cmd.Name(), listed, !listed)
			continue
		}
		hasSSH := cmd.Flags().Lookup("ssh-user") != nil
		if hasSSH == slices.Contains(offline, cmd.Name()) {
			t.Errorf("orch %s: --ssh-user defined %v", cmd.Name(), hasSSH)
		}
	}
}

func TestSuggestFlags(t *testing.T) {
	root := newRootCmd()
	matrix, _, err := root.Find([]string{"matrix"})
	if err != nil {
		t.Fatal(err)
	}
	for typed, want := range map[string][]string{
		"--repet":    {"--repeat"},
		"--repaet":   {"--repeat"},
		"--engine":   {"--engines"},
		"--dry":      {"--dry-run"},
		"--zzzzzzzz": nil,
	} {
		if got := suggestFlags(matrix, typed); !slices.Equal(got, want) {
			t.Errorf("suggestFlags(%q) = %q, want %q", typed, got, want)
		}
	}
}
