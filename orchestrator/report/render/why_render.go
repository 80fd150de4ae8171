package render

import (
	"bytes"
	"html/template"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
)

// WhyHeading is the section's title, in report.md and report.html.
const WhyHeading = "Where the time went"

// whyNotes explain the section's figures, shared by md and html.
var whyNotes = []string{
	"Per transaction, over each run's steady state (after the warm-up, to the load's end), divided by the transactions the host did: " +
		"committed on the master, applied on a slave (GTID position delta); means over the configuration's runs. " +
		"In parentheses: the ratio to the baseline's same host; marked when outside 0.95-1.05.",
	"cpu_us_per_tx: the server process's utime+stime (/proc/PID/stat); cs_per_tx: its voluntary + involuntary context switches " +
		"(/proc/PID/task/*/status); read_kib_per_tx, write_kib_per_tx: its storage reads and writes (/proc/PID/io) in KiB; fsync_per_tx: " +
		analyse.FsyncSum() + "; binlog_bytes_per_tx: Binlog_bytes_written (MariaDB), the Performance Schema's bytes written to the binary log files (MySQL, Percona: wait/io/file/sql/binlog); binlog_groups_per_tx: Binlog_group_commits (MariaDB; the inverse of the mean group size; MySQL exports no such counter, so it shows —); " +
		"semisync_wait_frac: the master's ACK wait per transaction (avg wait x acknowledged commits) over the client's mean latency.",
	"USE: server CPU is the server process's CPU as a share of the host's cores; host CPU busy and run queue are /proc/stat and " +
		"/proc/loadavg (machine-wide: on hosts sharing a kernel, as in the lab, they count every host); a run queue is the median of the window's " +
		"samples with their 90th percentile in parentheses (it spikes: a mean reads spikes as saturation); disk busy is the datadir's device. " +
		"Saturated at 90%. Hosts that report one kernel (release and boot time; containers have a boot id each) share a machine: their busy share and run queue are marked (machine), " +
		"and the machine's row says whether it is saturated (machine-bound) and where its CPU went: the servers' processes, the benchmark clients, the load box's other processes, " +
		"orch's /proc samplers on every host (sampler_cpu_us_ps), iowait, and everything else (the busy share less those: orch itself " +
		"when it runs there, sshd, any other process). The load box's row gives the CPU and runnable tasks of its own processes (its PID namespace in the lab) " +
		"and its benchmark client's CPU: only a client at 90% of its cores makes the run client-bound (on a shared kernel the box's run queue and " +
		"busy share are the machine's contention, said on the machine's row: machine-bound).",
}

// mdWhy writes the section under a table's verdicts.
func mdWhy(rep *judge.Report, b *strings.Builder, t *judge.Table) {
	w := t.Why
	if w == nil {
		return
	}
	b.WriteString("### " + WhyHeading + "\n\n")
	for _, g := range w.Groups {
		b.WriteString("- " + md(g.Sentence) + "\n")
	}
	b.WriteString("\n")
	for _, n := range whyNotes {
		b.WriteString(n + "\n\n")
	}
	b.WriteString("#### Per transaction\n\n")
	mdRows(b, judge.CostTableHeader(), w.CostRows(func(s string) string { return "**" + s + "**" }))
	if h := w.EngineHeader(); h != nil {
		b.WriteString("\n#### The engine's own counters, per transaction\n\n" + judge.EngineNote + "\n\n")
		mdRows(b, h, w.EngineRows(h))
	}
	b.WriteString("\n#### Utilisation and saturation (USE)\n\n")
	mdRows(b, useHeader(), UseRows(w))
	b.WriteString("\n#### Top stacks\n\n")
	tops := w.TopStacks()
	if len(tops) == 0 {
		b.WriteString("No stack samples (--stacks=off, or no gdb/perf on the hosts).\n\n")
	}
	for _, ts := range tops {
		b.WriteString(md(ts.Title) + "\n\n")
		rows := make([][]string, len(ts.Rows))
		for i, r := range ts.Rows {
			rows[i] = []string{r[0], codeCell(r[1])}
		}
		mdRows(b, []string{analyse.StackShareHeader, "stack (innermost frame first)"}, rows)
		b.WriteString("\n")
	}
	for _, n := range w.Notes {
		b.WriteString("- " + md(n) + "\n")
	}
}

// whyHTML renders the section for report.html.
func whyHTML(t *judge.Table) (template.HTML, error) {
	w := t.Why
	if w == nil {
		return "", nil
	}
	const mark = "\x00"
	data := struct {
		Heading      string
		Sentences    []string
		Notes        []string
		CostHeader   []string
		Costs        [][]htmlCell
		EngineHeader []string
		Engine       [][]string
		EngineNote   string
		UseHeader    []string
		Use          [][]string
		Stacks       []judge.TopStacks
		ReadProblem  []string
		// StackShareHeader heads the Top stacks tables.
		StackShareHeader string
	}{Heading: WhyHeading, Notes: whyNotes, CostHeader: judge.CostTableHeader(), UseHeader: useHeader(), Use: UseRows(w),
		Stacks: w.TopStacks(), ReadProblem: w.Notes, StackShareHeader: analyse.StackShareHeader}
	if h := w.EngineHeader(); h != nil {
		data.EngineHeader, data.Engine, data.EngineNote = h, w.EngineRows(h), judge.EngineNote
	}
	for _, g := range w.Groups {
		data.Sentences = append(data.Sentences, g.Sentence)
	}
	for _, row := range w.CostRows(func(s string) string { return s + mark }) {
		cells := make([]htmlCell, len(row))
		for i, c := range row {
			cells[i] = htmlCell{Text: strings.TrimSuffix(c, mark), Marked: strings.HasSuffix(c, mark)}
		}
		data.Costs = append(data.Costs, cells)
	}
	var b bytes.Buffer
	if err := whyTmpl.Execute(&b, data); err != nil {
		return "", err
	}
	// Rendered by html/template from escaped data: safe to embed.
	return template.HTML(b.String()), nil
}

type htmlCell struct {
	Text   string
	Marked bool
}

var whyTmpl = template.Must(template.New("why").Funcs(template.FuncMap{"wbr": wbr}).Parse(`<h3>{{.Heading}}</h3>
<ul class="verdicts why">{{range .Sentences}}<li>{{.}}</li>{{end}}</ul>
{{range .Notes}}<p class="note">{{.}}</p>
{{end}}<h4>Per transaction</h4>
<div class="scroll"><table class="why-cost">
<thead><tr>{{range .CostHeader}}<th>{{wbr .}}</th>{{end}}</tr></thead>
<tbody>{{range .Costs}}<tr>{{range .}}<td{{if .Marked}} class="marked" style="font-weight:bold;background:#fff3cd"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{if .EngineHeader}}<h4>The engine's own counters, per transaction</h4>
<p class="note">{{.EngineNote}}</p>
<div class="scroll"><table class="why-engine">
<thead><tr>{{range .EngineHeader}}<th>{{wbr .}}</th>{{end}}</tr></thead>
<tbody>{{range .Engine}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}<h4>Utilisation and saturation (USE)</h4>
<div class="scroll"><table class="why-use">
<thead><tr>{{range .UseHeader}}<th>{{wbr .}}</th>{{end}}</tr></thead>
<tbody>{{range .Use}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
<h4>Top stacks</h4>
{{if not .Stacks}}<p class="note">No stack samples (--stacks=off, or no gdb/perf on the hosts).</p>{{end}}
{{range .Stacks}}<p>{{.Title}}</p>
<div class="scroll"><table class="why-stacks"><thead><tr><th>{{$.StackShareHeader}}</th><th>stack (innermost frame first)</th></tr></thead>
<tbody>{{range .Rows}}<tr><td>{{index . 0}}</td><td><code>{{index . 1}}</code></td></tr>{{end}}</tbody></table></div>
{{end}}{{range .ReadProblem}}<p class="note">{{.}}</p>{{end}}
`))

// useHeader is the USE table's header.
func useHeader() []string {
	return []string{"configuration", "host", "role", "cores", "server CPU", "host CPU busy", "run queue",
		"server threads runnable", "disk busy", "threads_running", "client CPU", "flags"}
}

// UseRows are the USE table's rows: per configuration its database hosts,
// load boxes and, for hosts that share a kernel, the machine: there a
// host's CPU busy and run queue are the machine's (marked so), and the
// machine's row says whether it is saturated and where its CPU went.
func UseRows(w *judge.Why) [][]string {
	var rows [][]string
	for _, g := range w.Groups {
		for _, c := range g.Hosts {
			var flags []string
			shared := g.MachineOf(c) != nil
			switch {
			case shared && c.ServerCPU >= analyse.SaturatedShare:
				flags = append(flags, "server CPU-bound")
			case shared:
			case judge.Saturation(c) == "cpu":
				flags = append(flags, "CPU-bound")
			}
			if c.DiskBusy >= analyse.SaturatedShare {
				flags = append(flags, "disk-bound")
			}
			busy, queue := analyse.PctFixed(c.HostCPU), judge.QueueCell(c.RunQueue, c.RunQueueP90)
			if shared {
				busy, queue = busy+" (machine)", queue+" (machine)"
			}
			rows = append(rows, []string{g.Label, c.Host, c.Role, analyse.Num(c.NCPU, 0), analyse.PctFixed(c.ServerCPU), busy,
				queue, analyse.Num(c.ServerRunnable, 1), analyse.PctFixed(c.DiskBusy), analyse.Num(c.ThreadsRunning, 1), "", joinFlags(flags)})
		}
		for _, lb := range g.LoadBoxes {
			flag := ""
			if bound, why := judge.ClientBound(lb); bound {
				flag = "client-bound: " + why
			}
			rows = append(rows, []string{g.Label, lb.Host, "loadbox", analyse.Num(lb.NCPU, 0), "", analyse.PctFixed(lb.BoxCPU),
				judge.QueueCell(lb.BoxRunQueue, lb.BoxRunQueueP90), "", "", "", analyse.PctFixed(lb.ClientCPU), flag})
		}
		rows = append(rows, g.MachineRows()...)
	}
	return rows
}

func joinFlags(f []string) string { return strings.Join(f, ", ") }

// sharedBy is how many of the run's hosts share c's kernel ("" when its
// boot id is unknown).
func sharedBy(hosts []*analyse.Cost, c *analyse.Cost) string {
	if c.Kernel == "" {
		return ""
	}
	n := 0
	for _, h := range hosts {
		if h.Kernel == c.Kernel {
			n++
		}
	}
	return strconv.Itoa(n)
}
