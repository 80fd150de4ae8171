package render

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/stacks"
)

// hostRow is one host's figures in one run (hosts.csv).
type hostRow struct {
	t     *judge.Table
	r     *load.Run
	c     *analyse.Cost
	prof  *stacks.Profile // nil: no stack samples of the host
	hosts []*analyse.Cost // all the run's hosts, for kernel sharing
}

func (h hostRow) stack(v func(*stacks.Profile) string) string {
	if h.prof == nil {
		return ""
	}
	return v(h.prof)
}

// HostColumns are hosts.csv: one row per run and host (master, each
// slave, each load box) over the run's window, "Where the time went".
var HostColumns = append(append([]Column[hostRow]{
	{"workload", "the run's table, configuration and id (as in results.csv)", func(h hostRow) string { return h.t.Workload }},
	{"label", "", func(h hostRow) string { return h.r.Label }},
	{"run", "", func(h hostRow) string { return h.r.ID }},
	{"host", "the host, its role (`master`, `slave`, `loadbox`), the transactions it did in the window (committed on the master, applied on a slave) and their rate",
		func(h hostRow) string { return h.c.Host }},
	{"host_role", "", func(h hostRow) string { return h.c.Role }},
	{"host_tx", "", func(h hostRow) string { return F4(h.c.Tx) }},
	{"host_tx_per_s", "", func(h hostRow) string { return F4(h.c.TPS) }},
}, metricColumns()...),
	Column[hostRow]{"server_cpu_frac", "USE: the server's CPU as a fraction of the host's cores, the host's CPU busy fraction (all CPUs) and run queue (median of the window's samples, and their 90th percentile), the server's runnable threads, the datadir disk's busy fraction, `Threads_running`",
		func(h hostRow) string { return F4(h.c.ServerCPU) }},
	Column[hostRow]{"host_cpu_busy_frac", "", func(h hostRow) string { return F4(h.c.HostCPU) }},
	Column[hostRow]{"run_queue", "", func(h hostRow) string { return F4(h.c.RunQueue) }},
	Column[hostRow]{"run_queue_p90", "", func(h hostRow) string { return F4(h.c.RunQueueP90) }},
	Column[hostRow]{"server_threads_runnable", "", func(h hostRow) string { return F4(h.c.ServerRunnable) }},
	Column[hostRow]{"disk_busy_frac", "", func(h hostRow) string { return F4(h.c.DiskBusy) }},
	Column[hostRow]{"threads_running", "", func(h hostRow) string { return F4(h.c.ThreadsRunning) }},
	Column[hostRow]{"client_cpu_frac", "load box: the clients' and all its processes' CPU as fractions of its cores, its runnable tasks (median, 90th percentile), whether the run is client-bound (its clients at 90% of its cores)",
		func(h hostRow) string { return F4(h.c.ClientCPU) }},
	Column[hostRow]{"box_cpu_frac", "", func(h hostRow) string { return F4(h.c.BoxCPU) }},
	Column[hostRow]{"box_run_queue", "", func(h hostRow) string { return F4(h.c.BoxRunQueue) }},
	Column[hostRow]{"box_run_queue_p90", "", func(h hostRow) string { return F4(h.c.BoxRunQueueP90) }},
	Column[hostRow]{"client_bound", "", func(h hostRow) string {
		if h.c.Role != "loadbox" {
			return ""
		}
		bound, _ := judge.ClientBound(h.c)
		return strconv.FormatBool(bound)
	}},
	Column[hostRow]{"stack_mode", "stack sampling of the host: tool, samples, the longest pause it caused",
		func(h hostRow) string { return h.stack(func(p *stacks.Profile) string { return string(p.Mode) }) }},
	Column[hostRow]{"stack_samples", "", func(h hostRow) string {
		return h.stack(func(p *stacks.Profile) string { return strconv.Itoa(p.Samples) })
	}},
	Column[hostRow]{"stack_max_pause_ms", "", func(h hostRow) string {
		return h.stack(func(p *stacks.Profile) string {
			if p.MaxPauseMs == nil {
				return ""
			}
			return F4(*p.MaxPauseMs)
		})
	}},
	Column[hostRow]{"sampler_cpu_frac", "orch's `/proc` sampler's CPU as a fraction of the host's cores; how many of the run's hosts share its kernel (boot id)",
		func(h hostRow) string { return F4(h.c.SamplerCPU) }},
	Column[hostRow]{"kernel_shared_by", "", func(h hostRow) string { return sharedBy(h.hosts, h.c) }},
)

// metricColumns are the per-transaction costs (why.go's metrics).
func metricColumns() []Column[hostRow] {
	out := make([]Column[hostRow], len(analyse.Metrics))
	for i, m := range analyse.Metrics {
		doc := ""
		if i == 0 {
			doc = "costs per transaction the host did (\"Where the time went\": CPU µs, context switches, KiB read and written, fsyncs, binlog bytes; the fraction of commit time waiting for the semi-sync ACK)"
		}
		get := m.Get
		out[i] = Column[hostRow]{m.Col, doc, func(h hostRow) string { return F4(get(h.c)) }}
	}
	return out
}

// hostRows are the run's hosts.csv rows (none when the run has no host
// figures).
func hostRows(t *judge.Table, r *load.Run) []hostRow {
	if t.Why == nil || t.Why.Runs[r] == nil {
		return nil
	}
	rw := t.Why.Runs[r]
	prof := map[string]*stacks.Profile{}
	for _, p := range rw.Profiles {
		prof[p.Host] = p
	}
	hosts := append(append([]*analyse.Cost(nil), rw.Hosts...), rw.LoadBoxes...)
	out := make([]hostRow, len(hosts))
	for i, c := range hosts {
		out[i] = hostRow{t: t, r: r, c: c, prof: prof[c.Host], hosts: hosts}
	}
	return out
}

// writeRows writes a header and rows as CSV, every text cell safe from
// spreadsheets' formulas.
func writeRows(w io.Writer, head []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(csvRow(r)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteCSV writes results.csv: one row per run, its configuration's
// statistics repeated on it.
func WriteCSV(rep *judge.Report, w io.Writer) error {
	var rows [][]string
	for _, t := range rep.Tables {
		for _, r := range t.Runs {
			c := ConfRow{rep, t, t.Group(r.Label)}
			b := r.Bench
			if b == nil {
				b = NanBench
			}
			row := append(Values(c, TableColumns), Values(RunRow{c, r, b}, RunColumns)...)
			rows = append(rows, append(row, Values(c, ConfColumns)...))
		}
	}
	return writeRows(w, ResultsHeader(), rows)
}

// WriteHostsCSV writes hosts.csv: one row per run and host.
func WriteHostsCSV(rep *judge.Report, w io.Writer) error {
	var rows [][]string
	for _, t := range rep.Tables {
		for _, r := range t.Runs {
			for _, h := range hostRows(t, r) {
				rows = append(rows, Values(h, HostColumns))
			}
		}
	}
	return writeRows(w, Header(HostColumns), rows)
}

// WriteConfigurationsCSV writes configurations.csv: one row per table and
// configuration.
func WriteConfigurationsCSV(rep *judge.Report, w io.Writer) error {
	var rows [][]string
	for _, t := range rep.Tables {
		for _, g := range t.Groups {
			c := ConfRow{rep, t, g}
			rows = append(rows, append(Values(c, TableColumns), Values(c, ConfColumns)...))
		}
	}
	return writeRows(w, append(Header(TableColumns), Header(ConfColumns)...), rows)
}

// ResultsHeader is results.csv's header.
func ResultsHeader() []string {
	return append(append(Header(TableColumns), Header(RunColumns)...), Header(ConfColumns)...)
}
