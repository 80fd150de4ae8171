package runner

import (
	"context"
	"fmt"
	"io"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/topology"
)

// CollectOptions is `orch collect`: complete one run directory.
type CollectOptions struct {
	// Dir is the run directory ("": the latest under Root).
	Dir, Root string
	// Access loads the inventory: the one given when InventoryGiven,
	// else the one the run recorded (with the SSH settings an ips.txt
	// ran with).
	Access         *Access
	InventoryGiven bool
	KeepRemote     bool
	// Connect opens the run's hosts (nil: Access.Connect, over SSH).
	Connect func(ctx context.Context, inv *topology.Inventory) *cluster.Cluster
	// Out gets one line per file fetched or failed, and a summary.
	Out io.Writer
}

// CollectDir is Collect on the run directory o names, with its inventory,
// saying what it fetched.
func CollectDir(ctx context.Context, o CollectOptions) error {
	var d *rundir.Dir
	var err error
	if o.Dir != "" {
		d, err = rundir.Open(o.Dir)
	} else {
		d, err = rundir.OpenLatest(o.Root)
	}
	if err != nil {
		return orchestrator.BadInput(err)
	}
	path := ""
	if !o.InventoryGiven {
		if path, err = o.Access.FromManifest(d); err != nil {
			return orchestrator.BadInputf("%s: %v (give -i)", d.Path(), err)
		}
	}
	inv, err := o.Access.Load(path)
	if err != nil {
		return err
	}
	if err := CheckSources(d, inv); err != nil {
		return orchestrator.BadInput(err)
	}
	connect := o.Connect
	if connect == nil {
		connect = o.Access.ConnectAll
	}
	c := connect(ctx, inv)
	defer c.Close()
	res, err := Collect(ctx, d, c, o.KeepRemote)
	if res != nil && res.Report != nil {
		res.write(o.Out, d.Path())
	}
	return err
}

// write says what collect did to the run directory at dir.
func (res *CollectResult) write(w io.Writer, dir string) {
	fetched, present := 0, 0
	for _, f := range res.Report.Files {
		switch f.Outcome {
		case rundir.Fetched:
			fetched++
			fmt.Fprintf(w, "fetched %s:%s -> %s (%d bytes, %d on the wire", f.Host, f.Remote, f.Local, f.Written, f.WireBytes)
			if f.ResumedAt > 0 {
				fmt.Fprintf(w, ", resumed at %d", f.ResumedAt)
			}
			fmt.Fprintln(w, ")")
		case rundir.Present:
			present++
		default:
			fmt.Fprintf(w, "%s %s:%s -> %s %s\n", f.Outcome, f.Host, f.Remote, f.Local, f.Error)
		}
	}
	fmt.Fprintf(w, "collect: %s: %d file(s) fetched, %d already present\n", dir, fetched, present)
	if res.StillRunning {
		fmt.Fprintln(w, "collect: the benchmark is still running; run orch collect again when it ends")
	}
	if res.Parsed {
		fmt.Fprintln(w, "collect: results.json updated from the benchmark output")
	}
	if res.RemovedRemote {
		fmt.Fprintln(w, "collect: removed the benchmark's working directory from its host (--keep-remote keeps it)")
	}
}
