package history

import (
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/orch-bench/orch/orchestrator/atomicfile"
)

// WriteHTML writes a static page a team can publish as it is: one plot
// per series (each campaign's mean and 95% interval, the change points
// marked and named, each point a link to its report) and an index of
// every run. Links are relative to the page, so the page moves with the
// runs folder.
func WriteHTML(path string, series []*Series, ignore []string) error {
	type run struct {
		Start, Series, Campaign, Label, Value, State, Link string
	}
	type plot struct {
		Key, Title string
		Identity   []string
		SVG        template.HTML
		Changes    []string
	}
	var data struct {
		Merged string
		Plots  []plot
		Runs   []run
	}
	if len(ignore) > 0 {
		data.Merged = "Merged across " + strings.Join(ignore, ", ") + " (--ignore): a series may hold runs that differ there."
	}
	base := filepath.Dir(path)
	for _, s := range series {
		p := plot{Key: s.Key, Title: s.Identity.Workload + " (" + s.Identity.Metric + "), " + configName(s.Identity)}
		for _, f := range allFields[2:] {
			p.Identity = append(p.Identity, f+": "+orNone(s.Identity.field(f)))
		}
		for _, c := range s.Changes {
			p.Changes = append(p.Changes, fmt.Sprintf("%s (point %d, p=%.3f)", c.Short(), c.At+1, c.P))
		}
		p.SVG = seriesSVG(s, base)
		data.Plots = append(data.Plots, p)
		for _, e := range s.runs {
			v := "-"
			if e.Usable() {
				v = num(e.Value)
			}
			data.Runs = append(data.Runs, run{Start: e.Start.Format("2006-01-02 15:04:05"), Series: s.Key, Campaign: e.Campaign, Label: e.Label,
				Value: v, State: e.State, Link: link(base, reportOf(e.Dir))})
		}
	}
	var b strings.Builder
	if err := pageTmpl.Execute(&b, data); err != nil {
		return err
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, strings.NewReader(b.String()), 0o644)
}

func link(base, target string) string {
	if target == "" {
		return ""
	}
	if rel, err := filepath.Rel(base, target); err == nil {
		return filepath.ToSlash(rel)
	}
	return "file://" + target
}

// seriesSVG draws one series: x the points in time order, y the metric.
func seriesSVG(s *Series, base string) template.HTML {
	const w, h, padL, padR, padT, padB = 760.0, 220.0, 70.0, 20.0, 15.0, 30.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range s.Points {
		for _, v := range []float64{p.Sample.Mean, p.Sample.CILow, p.Sample.CIHigh} {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return template.HTML("<p>no figures</p>")
	}
	if hi == lo {
		hi, lo = hi*1.05+1, lo*0.95-1
	}
	span := hi - lo
	lo, hi = lo-0.05*span, hi+0.05*span
	n := len(s.Points)
	x := func(i int) float64 {
		if n == 1 {
			return padL + (w-padL-padR)/2
		}
		return padL + float64(i)*(w-padL-padR)/float64(n-1)
	}
	y := func(v float64) float64 { return padT + (hi-v)/(hi-lo)*(h-padT-padB) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f">`, w, h, w, h)
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#999"/>`, padL, h-padB, w-padR, h-padB)
	for _, v := range []float64{lo, (lo + hi) / 2, hi} {
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" font-size="11" text-anchor="end">%s</text>`, padL-6, y(v)+4, num(v))
	}
	for _, c := range s.Changes {
		cx := (x(c.At-1) + x(c.At)) / 2
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#c00" stroke-dasharray="4 3"><title>%s</title></line>`,
			cx, padT, cx, h-padB, template.HTMLEscapeString(c.Short()))
	}
	var path []string
	for i, p := range s.Points {
		if !math.IsNaN(p.Sample.Mean) {
			path = append(path, fmt.Sprintf("%.1f,%.1f", x(i), y(p.Sample.Mean)))
		}
	}
	fmt.Fprintf(&b, `<polyline fill="none" stroke="#4e79a7" points="%s"/>`, strings.Join(path, " "))
	for i, p := range s.Points {
		sm := p.Sample
		if math.IsNaN(sm.Mean) {
			continue
		}
		if !math.IsNaN(sm.CILow) {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#4e79a7"/>`, x(i), y(sm.CILow), x(i), y(sm.CIHigh))
		}
		title := template.HTMLEscapeString(fmt.Sprintf("%s %s: %s", p.Start.Format("2006-01-02 15:04"), p.Campaign, sampleText(p)))
		circle := fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="4" fill="#4e79a7"><title>%s</title></circle>`, x(i), y(sm.Mean), title)
		if l := link(base, p.Report); l != "" {
			circle = fmt.Sprintf(`<a href="%s">%s</a>`, template.HTMLEscapeString(l), circle)
		}
		b.WriteString(circle)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every interpolated text above is escaped
}

var pageTmpl = template.Must(template.New("history").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>orch history</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}.id{color:#555;font-size:90%}</style>
</head><body>
<h1>orch history</h1>
<p>One series per identity (workload and parameters, engine, knobs, server version, client, hardware, topology, cluster). Each point is a campaign: the mean of its runs' steady-state figures and its 95% interval; dashed red lines are change points (E-divisive means, permutation test at 5%). Click a point for its report.</p>
{{with .Merged}}<p><b>{{.}}</b></p>{{end}}
{{range .Plots}}<h2 id="{{.Key}}">{{.Key}}: {{.Title}}</h2>
<div class="id">{{range .Identity}}{{.}}<br>{{end}}</div>
{{.SVG}}
{{range .Changes}}<p>change point {{.}}</p>{{end}}
{{end}}
<h2>Every run</h2>
<table><tr><th>start (UTC)</th><th>series</th><th>campaign</th><th>label</th><th>steady figure</th><th>state</th><th>report</th></tr>
{{range .Runs}}<tr><td>{{.Start}}</td><td><a href="#{{.Series}}">{{.Series}}</a></td><td>{{.Campaign}}</td><td>{{.Label}}</td><td>{{.Value}}</td><td>{{.State}}</td><td>{{if .Link}}<a href="{{.Link}}">report</a>{{end}}</td></tr>
{{end}}</table>
</body></html>
`))
