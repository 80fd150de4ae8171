package up

import (
	"fmt"
	"io"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// DryRun prints, per database host, the config file Up would write and the
// statements it would run, without connecting to anything. The flavour comes
// from hint (--flavor) or the inventory's mysql.flavor.
func DryRun(w io.Writer, inv *topology.Inventory, d server.Desired, hint string) error {
	if err := inv.ValidateCluster(); err != nil {
		return err
	}
	params, err := replicationParams(inv)
	if err != nil || params.ReplPassword == "" {
		// The real password is not needed to show statements: they print
		// it redacted anyway.
		params, err = dryRunParams(inv)
		if err != nil {
			return err
		}
	}
	if err := account.DryRun(w, inv); err != nil {
		return err
	}
	var masterServer flavor.Server
	for _, h := range inv.DBHosts() {
		t, err := server.OfflineTarget(h, inv, hint)
		if err != nil {
			return err
		}
		cfg, err := server.Render(t, d)
		if err != nil {
			return err
		}
		assumed := ""
		if t.Assumed {
			assumed = " (assumed; pass --flavor or set mysql.flavor to be exact)"
		}
		path := cfg.Path
		if path == "" {
			path = "<include dir detected at run time>"
		}
		fmt.Fprintf(w, "### %s: %s%s\n### would write %s\n%s", h, t.Server, assumed, path, cfg.Text)
		fmt.Fprintln(w)
		if h.Role == topology.RoleMaster {
			masterServer = t.Server
		}
	}
	phases, err := masterServer.SetupPlan(params)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "### replication statements (%s) on a cluster not replicating yet; parts that already hold are skipped\n%s", masterServer, flavor.Render(phases))
	fmt.Fprintf(w, "### then: proof, a canary row written on the master and read on every slave (within %s)\n", DefaultVerifyTimeout)
	return nil
}

func dryRunParams(inv *topology.Inventory) (flavor.Params, error) {
	saved := inv.Replication.Password
	inv.Replication.Password = topology.InlineSecret("dry-run")
	defer func() { inv.Replication.Password = saved }()
	return replicationParams(inv)
}
