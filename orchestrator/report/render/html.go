package render

import (
	"encoding/base64"
	"html/template"
	"io"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// htmlRun is one run's evidence, shown in a <details>.
type htmlRun struct {
	*load.Run
	Summary  string
	Baseline bool
	Diffs    []string        // versions and host facts against the baseline run
	Hosts    []load.HostDiff // configuration against the baseline run
}

type htmlWorkload struct {
	*judge.Table
	// Answer and Setting open the page (answer.go, setting.go).
	Answer, More, Setting []string
	AnswerFor             string // which table, when there are several
	Verdicts              []string
	Head                  []string
	Fairness              []string
	FairnessOK            bool // linted, nothing found
	Sections              []shownSection
	Images                []htmlImage
	BaseRun               string
	Evidence              []htmlRun
	Why                   template.HTML
}

type htmlImage struct {
	Title string
	Src   template.URL
}

// WriteHTML writes report.html: one file that opens offline, plots as SVG
// data URIs, each run's evidence one click away in a <details>.
func WriteHTML(rep *judge.Report, w io.Writer) error {
	if err := DrawPlots(rep); err != nil {
		return err
	}
	data := struct {
		Preamble []string
		NoEffect [][2]string
		Shading  string
		Tables   []htmlWorkload
		Several  bool // tables: the answer names each one's workload
		Contents []heading
	}{Several: len(rep.Tables) > 1, Preamble: preamble(rep, func(s string) string { return s }), NoEffect: rep.NoEffect, Shading: shadingNote,
		Contents: outline(rep)}
	for _, t := range rep.Tables {
		hw := htmlWorkload{Table: t, AnswerFor: AnswerFor(t), Setting: Setting(rep, t), Verdicts: verdicts(t), Head: Head(rep, t), Fairness: t.FairnessLines(),
			FairnessOK: len(t.Fairness) == 0 && len(t.Groups) > 1 && t.HasVariables(),
			Sections:   SectionsOf(t)}
		hw.Answer, hw.More = AnswerParts(t)
		for _, p := range t.Plots {
			// The URI is built here from SVG this package rendered, so it
			// is safe to mark as a URL.
			src := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(p.SVG)
			hw.Images = append(hw.Images, htmlImage{Title: p.Title, Src: template.URL(src)})
		}
		why, err := whyHTML(t)
		if err != nil {
			return err
		}
		hw.Why = why
		base := t.BaselineRun()
		if base != nil {
			hw.BaseRun = base.ID
		}
		for _, r := range t.Runs {
			if r.Evidence == nil {
				continue
			}
			hr := htmlRun{Run: r, Baseline: r == base, Summary: r.ID + " — " + r.Label + " — " + judge.Dash(r.State)}
			if base != nil && r != base {
				hr.Diffs = t.EvidenceDiffs(base, r)
				hr.Hosts = load.DiffEvidence(base.Evidence, r.Evidence)
			}
			hw.Evidence = append(hw.Evidence, hr)
		}
		data.Tables = append(data.Tables, hw)
	}
	return htmlTmpl.Execute(w, data)
}

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"kv":      kv,
	"diffcls": diffClass,
	"slug":    slugify,
	"anchor":  evidenceAnchor,
	"wbr":     wbr,
}).Parse(htmlSource))

var headerBreaks = strings.NewReplacer("_", "_<wbr/>", "/", "/<wbr/>")

// wbr escapes a column header and lets it break after "_" and "/"
// (cpu_us_per_tx, writes/s): a narrow column then wraps its header at a
// word's joint instead of in the middle of a word.
func wbr(s string) template.HTML {
	return template.HTML(headerBreaks.Replace(template.HTMLEscapeString(s)))
}

// evidenceAnchor is the id of a run's evidence <details>.
func evidenceAnchor(t *judge.Table, r *load.Run) string {
	return "ev-" + slugify(t.Workload) + "-" + slugify(r.ID)
}

func diffClass(line string) string {
	switch {
	case strings.HasPrefix(line, "+"):
		return "add"
	case strings.HasPrefix(line, "-"):
		return "del"
	}
	return ""
}

const htmlSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Benchmark report</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1em auto; max-width: 1400px; padding: 0 1em; color: #222; }
h1, h2, h3 { font-weight: 600; }
h1 { margin: .3em 0 .5em; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
section.answer { border-left: 5px solid #2b6cb0; background: #f5f8fc; padding: .4em 1em; margin: 0 0 1em; }
ul.answer { margin: .3em 0; padding-left: 1.2em; }
ul.answer li { font-size: 17px; font-weight: 600; margin: .2em 0; overflow-wrap: break-word; }
ul.answer li.more { font-size: 15px; font-weight: normal; }
p.answer-for { margin: .3em 0 0; color: #555; }
p.setting { font-size: 14px; color: #333; margin: .5em 0 .3em; overflow-wrap: break-word; }
/* Tables never grow wider than the page: cells wrap, and what still does
   not fit scrolls inside its own box. */
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .5em 0 1.5em; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: right; }
th { background: #f3f3f3; vertical-align: bottom; }
td:first-child, th:first-child, td.text { text-align: left; }
table.runs td:nth-child(2) { text-align: left; }
table.runs td:nth-child(4), table.runs td:nth-child(5), table.runs td:nth-child(6), table.runs td:nth-child(7) { text-align: left; min-width: 7em; }
table.why-stacks { width: 100%; table-layout: fixed; }
table.why-stacks th, table.why-stacks td { text-align: left; vertical-align: top; }
table.why-stacks th:first-child, table.why-stacks td:first-child { width: 4.5em; }
table.why-stacks code { font-size: 12px; background: none; overflow-wrap: anywhere; }
tr.baseline td { font-weight: 600; background: #f6fbff; }
ul.verdicts li { margin: .25em 0; font-size: 15px; overflow-wrap: break-word; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 13px; color: #555; }
details { margin: .4em 0; border: 1px solid #ddd; border-radius: 4px; padding: .3em .8em; overflow-wrap: break-word; }
summary { cursor: pointer; font-weight: 600; }
pre.diff { background: #fafafa; padding: .5em; font-size: 12px; white-space: pre-wrap; overflow-wrap: break-word; }
pre.diff .add { color: #116611; } pre.diff .del { color: #aa1111; }
.note { color: #555; font-size: 14px; overflow-wrap: break-word; }
li, p { overflow-wrap: break-word; }
code { background: #f3f3f3; padding: 0 .2em; }
nav.toc ul { list-style: none; padding-left: 0; } nav.toc li.toc3 { display: inline; margin-right: .8em; } nav.toc li.toc2 { margin-top: .3em; }
</style>
</head>
<body>
<h1>Benchmark report</h1>
{{range .Tables}}<section class="answer">
{{if $.Several}}<p class="answer-for">{{.AnswerFor}}</p>{{end}}
<ul class="answer">{{range .Answer}}<li>{{.}}</li>{{end}}{{range .More}}<li class="more">{{.}}</li>{{end}}</ul>
<p class="setting">{{range $i, $l := .Setting}}{{if $i}}<br>{{end}}{{$l}}{{end}}</p>
</section>
{{end}}
<nav class="toc"><p>Contents:</p><ul>{{range .Contents}}<li class="toc{{.Level}}"><a href="#{{.ID}}">{{.Text}}</a></li>{{end}}</ul></nav>
<h2 id="method">Method</h2>
{{range .Preamble}}<p class="note">{{.}}</p>
{{end}}
{{if .NoEffect}}<h2 id="no-effect">Knobs with no effect on this server</h2>
<ul>{{range .NoEffect}}<li><code>{{index . 0}}</code>: no effect on this server ({{index . 1}}). Differences between settings of it are noise, not findings.</li>{{end}}</ul>
{{end}}
{{range .Tables}}{{$t := .}}
<section class="workload" id="w-{{slug .Workload}}">
<h2>{{.Workload}} ({{.Tool}}, {{.Metric}})</h2>
<p>Baseline: <strong>{{.Baseline.Label}}</strong>{{if .BaselineNote}} ({{.BaselineNote}}){{end}}</p>
{{if .Verdicts}}<ul class="verdicts">{{range .Verdicts}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Fairness}}<p>Fairness: differences between the configurations that are not on the comparison's axes:</p>
<ul class="fairness">{{range .Fairness}}<li>{{.}}</li>{{end}}</ul>{{else if .FairnessOK}}<p>Fairness: no durability, caching or IO difference between the configurations beyond their axes.</p>{{end}}
<ul class="head">{{range .Head}}<li>{{.}}</li>{{end}}</ul>
{{range $s := .Sections}}<h3 id="w-{{slug $t.Workload}}-{{$s.ID}}">{{$s.Title}}</h3>
{{range $s.Notes}}<p class="note">{{.}}</p>
{{end}}{{if $s.Warnings}}<ul class="verdicts">{{range $s.Warnings}}<li><strong>WARNING</strong> {{.}}</li>{{end}}</ul>{{end}}
{{if $s.Rows}}<div class="scroll"><table class="{{$s.ID}}">
<thead><tr>{{range $s.Header}}<th>{{wbr .}}</th>{{end}}</tr></thead>
<tbody>{{range $i, $row := $s.Rows}}<tr{{if eq $i $s.Baseline}} class="baseline"{{end}}>{{range $j, $c := $row}}<td>{{with and (eq $j 0) ($s.Link $i)}}<a href="#{{.}}">{{$c}}</a>{{else}}{{$c}}{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>{{end}}
{{end}}{{if .Why}}<div id="w-{{slug $t.Workload}}-why">{{.Why}}</div>{{end}}
{{if .Images}}<h3 id="w-{{slug $t.Workload}}-plots">Plots</h3>
<p class="note">{{$.Shading}}</p>
{{range .Images}}<figure><img src="{{.Src}}" alt="{{.Title}}"><figcaption>{{.Title}}</figcaption></figure>
{{end}}{{end}}
{{if .Evidence}}<h3 id="w-{{slug $t.Workload}}-evidence">Evidence</h3>
<p class="note">Each run's versions, host facts and configuration; differences are against the baseline run {{.BaseRun}}.</p>
{{range .Evidence}}<details class="evidence" id="{{anchor $t.Table .Run}}">
<summary>{{.Summary}}</summary>
<p>Source: <code>{{.Source}}</code>{{if .Evidence.Command}}<br>Command: <code>{{.Evidence.Command}}</code>{{end}}</p>
<table class="versions"><tbody>
<tr><th>orch</th><td class="text">{{.Evidence.OrchVersion}}</td></tr>
<tr><th>servers</th><td class="text">{{kv .Evidence.Servers}}</td></tr>
<tr><th>clients</th><td class="text">{{kv .Evidence.Clients}}</td></tr>
</tbody></table>
{{if .Evidence.Facts}}<table class="facts"><thead><tr><th>host</th><th>facts</th></tr></thead><tbody>
{{range .Evidence.Facts}}<tr><td>{{.Host}}</td><td class="text">{{range $i, $f := .Facts}}{{if $i}} · {{end}}{{index $f 0}}: {{index $f 1}}{{end}}</td></tr>
{{end}}</tbody></table>{{end}}
{{if .Baseline}}<p>This is the baseline run.</p>{{else}}
<ul>{{range .Diffs}}<li>{{.}}</li>{{end}}</ul>
{{range .Hosts}}<h4>{{.Host}}</h4>
{{if .Missing}}<p>{{.Missing}}</p>{{else}}{{if or .Config .Vars}}
{{if .Config}}<pre class="diff">{{range .Config}}<span class="{{diffcls .}}">{{.}}</span>
{{end}}</pre>{{end}}
{{if .Vars}}<table class="variables"><thead><tr><th>variable</th><th>baseline</th><th>this run</th></tr></thead><tbody>
{{range .Vars}}<tr><td>{{.Name}}</td><td class="text">{{.Base}}</td><td class="text">{{.Cur}}</td></tr>
{{end}}</tbody></table>{{end}}
{{else}}<p>config.cnf and SHOW VARIABLES as the baseline's.</p>{{end}}{{end}}
{{end}}{{end}}
</details>
{{end}}{{end}}
</section>
{{end}}
</body>
</html>
`
