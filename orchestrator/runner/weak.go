package runner

import (
	"fmt"
	"io"

	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/topology"
)

// WarnWeakSecrets says once per command that a password is a short or
// common word: runs do not fail on it, but neither can their directories
// be proven free of it.
func WarnWeakSecrets(w io.Writer, inv *topology.Inventory) {
	if n := rundir.WeakSecrets(Secrets(inv)); n > 0 {
		fmt.Fprintf(w, "orch: WARNING %d password(s) in %s are short or common words: they are redacted only as whole words, and the run directory's secret check cannot look for them; use %d or more random characters\n",
			n, inv.Source, rundir.MinStrongLen)
	}
}
