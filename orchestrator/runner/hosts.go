package runner

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/dataset"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/preflight"
	"github.com/orch-bench/orch/orchestrator/replication"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/orchestrator/sqlrows"
	"github.com/orch-bench/orch/topology"
)

// connect opens the database servers (through the cluster's SSH
// connections), records versions and host facts, and picks the host the
// benchmark runs on.
func (r *run) connect(ctx context.Context) error {
	c := r.cfg.Cluster
	// All or nothing: the steps after a failed connect (the final
	// snapshot) work on the whole cluster, never on a partial one. A run
	// never starts a server: a stopped one fails the run, naming it.
	sessions, err := c.Open(ctx, cluster.OpenOptions{})
	if err != nil {
		return err
	}
	r.db = sessions
	on := r.cfg.Workload.RunOn
	switch {
	case on == topology.RoleMaster:
		r.bhost = r.inv.Master().Name
		r.bexec = sessions.Master.Exec
	case r.inv.LoadBox() != nil:
		lb := r.inv.LoadBox()
		box, ok := sessions.LoadBox(lb.Name)
		if !ok {
			_, err := c.Executor(lb) // why it is not connected
			return err
		}
		r.bhost, r.bexec = lb.Name, box.Exec
	default:
		// ips.txt's two-line form: this machine is the load box.
		r.bhost, r.bexec = rundir.LocalHost, c.Local(rundir.LocalHost)
	}
	r.removeStale(ctx)
	remote, err := makeWorkdir(ctx, r.bexec, path.Base(r.dir.Path()))
	if err != nil {
		return err
	}
	r.remote = remote
	if err := r.dir.UpdateManifest(func(m *rundir.Manifest) error {
		m.Remote = &rundir.Remote{Host: r.bhost, Dir: r.remote}
		return nil
	}); err != nil {
		return err
	}
	if err := r.connectClients(ctx); err != nil {
		return err
	}

	facts := preflight.Check(ctx, c)
	return r.dir.UpdateManifest(func(m *rundir.Manifest) error {
		m.Servers, m.Clients, m.HostFacts = map[string]string{}, map[string]string{}, map[string]json.RawMessage{}
		for _, n := range sessions.DB() {
			m.Servers[n.Host.Name] = n.Server.String()
		}
		m.EngineVersions = engineVersions(ctx, r.cfg.Engine, sessions.DB())
		for _, f := range facts {
			b, err := json.Marshal(f)
			if err != nil {
				return err
			}
			m.HostFacts[f.Host] = b
			maps.Copy(m.Clients, f.Clients)
		}
		return nil
	})
}

// target is the master as the benchmark host reaches it.
func (r *run) target() bench.Target {
	m, b := r.inv.Master(), r.inv.Benchmark
	pw, _ := b.Password.Resolve()
	host := m.PeerAddress()
	if r.bhost == m.Name {
		host = "127.0.0.1"
	}
	return bench.Target{Host: host, Port: m.MySQL.Port, User: b.User, Password: pw}
}

// snapshot saves, per database host, the server's variables or status and
// the replication state, "before" or "after" the run; before the run it
// also saves orch's config and notes where the error log ends.
func (r *run) snapshot(ctx context.Context, when string) error {
	st, err := replication.GetStatus(ctx, r.db.Master, r.db.Slaves)
	if err != nil {
		r.logf("run: replication status %s: %v", when, err)
	}
	errs := orchestrator.ForEach(ctx, 0, r.db.DB(), func(ctx context.Context, i int, n *server.Node) error {
		name := n.Host.Name
		if st != nil {
			hs := st.Master
			if i > 0 && i-1 < len(st.Slaves) {
				hs = st.Slaves[i-1]
			}
			if b, err := json.MarshalIndent(hs, "", "  "); err == nil {
				r.writeFile(rundir.HostFile(name, "replication."+when+".json"), b)
			}
		}
		status, err := showTSV(ctx, n.DB, "SHOW GLOBAL STATUS")
		if err != nil {
			return fmt.Errorf("%s: %w", n.Host, err)
		}
		r.writeFile(rundir.HostFile(name, "status."+when+".tsv"), status)
		if when != "before" {
			return r.saveJournal(ctx, n)
		}
		vars, err := showTSV(ctx, n.DB, "SHOW GLOBAL VARIABLES")
		if err != nil {
			return fmt.Errorf("%s: %w", n.Host, err)
		}
		r.writeFile(rundir.HostFile(name, rundir.HostVariablesBefore), vars)
		var cnf bytes.Buffer
		if _, err := n.Exec.Download(ctx, n.ConfigPath(), &cnf, true); err == nil {
			r.writeFile(rundir.HostFile(name, rundir.HostConfig), cnf.Bytes())
		}
		return r.expectLogSlice(ctx, n)
	})
	return orchestrator.Aggregate(errs)
}

// expectLogSlice records the error log's current size: the run's slice of
// it starts there, and collect fetches it when the run ends.
func (r *run) expectLogSlice(ctx context.Context, n *server.Node) error {
	if n.Journal() {
		return r.markJournal(ctx, n)
	}
	if n.Facts.ErrorLog == "" {
		return nil
	}
	res, err := n.Exec.Run(ctx, executor.Command{Script: "stat -c %s " + shell.Quote(n.Facts.ErrorLog), Sudo: true, Timeout: 30 * time.Second})
	if err != nil {
		return nil // no log file yet: nothing to slice
	}
	off, err := strconv.ParseInt(strings.TrimSpace(string(res.Stdout)), 10, 64)
	if err != nil {
		return nil
	}
	return r.dir.UpdateManifest(func(m *rundir.Manifest) error {
		return m.Expect(rundir.ExpectedFile{Host: n.Host.Name, Remote: n.Facts.ErrorLog,
			Local: rundir.HostFile(n.Host.Name, rundir.HostErrorLog), Kind: rundir.KindLogSlice, Offset: off, Sudo: true})
	})
}

// showTSV renders a SHOW statement's name/value rows as TSV.
func showTSV(ctx context.Context, db *sql.DB, q string) ([]byte, error) {
	t, err := sqlrows.Query(ctx, db, q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	var b bytes.Buffer
	for _, r := range t.Strings() {
		if len(r) >= 2 {
			fmt.Fprintf(&b, "%s\t%s\n", r[0], r[1])
		}
	}
	return b.Bytes(), nil
}

// spec is the dataset the workload prepares, as the dataset package checks
// it: exact row counts, since what prepare leaves (even empty tables) is
// what a run must start from.
func (r *run) spec() (dataset.Spec, bool) {
	ds, ok := r.driver.Dataset()
	if !ok || len(ds.Tables) == 0 {
		return dataset.Spec{}, false
	}
	prefix := strings.TrimRight(ds.Tables[0], "0123456789")
	return dataset.Spec{Database: ds.Database, Tables: len(ds.Tables), TablePrefix: prefix,
		TableSize: int64(ds.TableSize), ExactRows: true, Engine: ds.Engine}, true
}

// prepare creates the dataset unless it already matches what the
// workload's prepare leaves (tables, engine, row counts); a dataset that
// does not match is cleaned up first, since prepare fails on existing tables.
func (r *run) prepare(ctx context.Context) error {
	if !r.cfg.Workload.Prepare {
		return nil
	}
	spec, ok := r.spec()
	if !ok {
		_, err := r.phase(ctx, bench.PhasePrepare)
		return err
	}
	master := r.db.Master
	ds, _ := r.driver.Dataset()
	if _, err := master.DB.ExecContext(ctx, ds.CreateDatabaseSQL()); err != nil {
		return fmt.Errorf("%s: create database %s: %w", master.Host, ds.Database, err)
	}
	match, why, err := dataset.Matches(ctx, master.DB, spec)
	if err != nil {
		return fmt.Errorf("%s: %w", master.Host, err)
	}
	if match {
		r.logf("run: dataset already prepared (%s)", why)
		return nil
	}
	r.logf("run: preparing the dataset (%s)", why)
	if _, err := r.phase(ctx, bench.PhaseCleanup); err != nil {
		return err
	}
	// The client's cleanup drops only its own tables; a wider earlier
	// workload's leftovers would be counted in this run's footprint.
	dropped, err := dataset.DropBeyond(ctx, master.DB, spec)
	if err != nil {
		return fmt.Errorf("%s: %w", master.Host, err)
	}
	if len(dropped) > 0 {
		r.logf("run: dropped %d leftover table(s) beyond the workload's %d: %s", len(dropped), spec.Tables, strings.Join(dropped, ", "))
	}
	_, err = r.phase(ctx, bench.PhasePrepare)
	return err
}

// phase runs prepare or cleanup to completion; a non-zero exit fails it.
func (r *run) phase(ctx context.Context, p bench.Phase) (int, error) {
	c := r.preparer(p)
	stop := r.sayPhase(ctx, string(p), c.local+rundir.PartSuffix)
	code, err := r.phaseOn(ctx, p, []*client{c})
	stop()
	if err == nil && code != 0 {
		err = fmt.Errorf("%s: %s exited %d (see benchmark/%s.txt)", r.bhost, p, code, p)
	}
	return code, err
}

// engineVersions reads the run's engine's own version on every database
// host, for an engine that has one (flavor.EngineSpec.VersionVar): the
// report names it beside the server's. A host that cannot tell is left out.
func engineVersions(ctx context.Context, engine string, nodes []*server.Node) map[string]string {
	e, ok := flavor.LookupEngine(engine)
	if !ok || e.VersionVar == "" {
		return nil
	}
	out := map[string]string{}
	for _, n := range nodes {
		if n.DB == nil {
			continue
		}
		var v sql.NullString
		if err := n.DB.QueryRowContext(ctx, "SELECT @@"+e.VersionVar).Scan(&v); err == nil && v.Valid && v.String != "" {
			out[n.Host.Name] = e.Display + " " + v.String
		}
	}
	return out
}
