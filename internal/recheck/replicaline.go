package recheck

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The replicas' phrases of the verdict and the head's Replicas line,
// checked against judgeRuns (replicas.go):
//
//	replicas: kept up in 2 of 2 runs; peak lag 5.4k tx (03-rocksdb-r2
//	slave2 at 6.0 s, rising from 5.0 s); after the load every slave caught
//	up within <1 ms of orch seeing the load end
//	1 of 4 runs fell behind, worst: 06-rocksdb-r2 (lag grew 1.1k tx/s over
//	the window's last 5 s, to 3.2k tx); ...
//	Replicas: did NOT keep up: rocksdb (1 of 4 runs fell behind, ...)
//	applied vs innodb: rocksdb 0.835x (a backlog from before the window in
//	2 runs: not the master's pace)
var (
	reKeptUp  = regexp.MustCompile(`kept up in ([0-9]+) of ([0-9]+) runs?\b`)
	reBehind  = regexp.MustCompile(`([0-9]+) of ([0-9]+) runs? fell behind, worst: (\S+) \((?:(never caught up)|lag grew ([0-9.,]+[kM]?) tx/s over the window's last ([0-9.]+) s, to ([0-9.,]+[kM]?) tx|catch-up (<1 ms|[0-9.]+ m?s), over ([0-9.]+)% of the ([0-9.]+) s window)\)`)
	rePeak    = regexp.MustCompile(`peak lag ([0-9.,]+[kM]?) tx \((\S+) (\S+) at ([0-9.]+) s(?:, rising from ([0-9.]+) s)?\)`)
	reAfter   = regexp.MustCompile(`after the load (?:(a slave never caught up)|every slave had caught up by orch's first look, (<1 ms|[0-9.]+ m?s) after it saw the load end|every slave caught up within (<1 ms|[0-9.]+ m?s) of orch seeing the load end)`)
	reBacklog = `( [0-9.,]+x )\(a backlog from before the window in ([0-9]+) runs?: not the master's pace\)`
)

// checkReplicaPhrases checks the line's replica phrases, each against the
// configuration it follows ("; replicas: " after the line's own label,
// "LABEL's replicas: ", or "LABEL (" in the head's list); it returns the
// spans it checked.
func (res *Result) checkReplicaPhrases(line, base string, labels []string) [][]int {
	type anchor struct {
		at    int
		label string
	}
	var anchors []anchor
	for _, l := range labels {
		if strings.HasPrefix(line, l+": ") {
			for _, i := range indexAll(line, "; replicas: ") {
				anchors = append(anchors, anchor{i, l})
			}
		}
		for _, s := range []string{l + "'s replicas: ", l + " ("} {
			for _, i := range indexAll(line, s) {
				anchors = append(anchors, anchor{i, l})
			}
		}
	}
	owner := func(at int) string {
		best, label := -1, ""
		for _, a := range anchors {
			if a.at < at && (a.at > best || a.at == best && len(a.label) > len(label)) {
				best, label = a.at, a.label
			}
		}
		return label
	}
	var spans [][]int
	g := func(m []int, i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return line[m[2*i]:m[2*i+1]]
	}
	for _, re := range []*regexp.Regexp{reKeptUp, reBehind, rePeak, reAfter} {
		for _, m := range re.FindAllStringSubmatchIndex(line, -1) {
			l := owner(m[0])
			rr, ok := res.replicas[l]
			if !ok {
				continue
			}
			res.checkReplicaPhrase(re, l+" replicas: ", rr, func(i int) string { return g(m, i) })
			for i := 1; 2*i < len(m); i++ {
				if m[2*i] >= 0 {
					spans = append(spans, m[2*i:2*i+2])
				}
			}
		}
	}
	for _, l := range labels {
		for _, m := range regexp.MustCompile(regexp.QuoteMeta(l)+reBacklog).FindAllStringSubmatchIndex(line, -1) {
			n, _ := strconv.Atoi(g(m, 2))
			res.printed(l+" runs with a backlog from before the window (Replicas line)", strconv.Itoa(n), float64(res.replicas[l].backlog+res.replicas[base].backlog))
			spans = append(spans, m[4:6])
		}
	}
	return spans
}

// checkReplicaPhrase checks one phrase's groups (g(i)) for rr.
func (res *Result) checkReplicaPhrase(re *regexp.Regexp, w string, rr replicaRuns, g func(int) string) {
	problem := func(format string, a ...any) {
		res.Problems = append(res.Problems, w+fmt.Sprintf(format, a...))
	}
	switch re {
	case reKeptUp:
		res.printed(w+"runs kept up", g(1), float64(rr.n))
		res.printed(w+"runs", g(2), float64(rr.n))
		res.Compared++
		if rr.behind > 0 {
			problem("report kept up in every run, recomputed %d of %d fell behind", rr.behind, rr.n)
		}
	case reBehind:
		res.printed(w+"runs fell behind", g(1), float64(rr.behind))
		res.printed(w+"runs", g(2), float64(rr.n))
		res.Compared++
		if rr.worst == nil {
			problem("report %s runs fell behind, recomputed none", g(1))
			return
		}
		wr := rr.worst
		if res.Compared++; g(3) != wr.r.id {
			problem("worst run: report %s, recomputed %s", g(3), wr.r.id)
			return
		}
		want, got := "catch-up", "catch-up"
		switch {
		case wr.notCaughtUp:
			want = "never caught up"
		case wr.endBehind:
			want = "lag grew"
		}
		switch {
		case g(4) != "":
			got = "never caught up"
		case g(5) != "":
			got = "lag grew"
		}
		if res.Compared++; got != want {
			problem("why %s fell behind: report %q, recomputed %q", wr.r.id, got, want)
			return
		}
		switch want {
		case "lag grew":
			res.kilo(w+"worst's lag growth over the window's end tx/s", g(5), wr.endSlope)
			res.printed(w+"end trend s (the method's)", g(6), endTrendS)
			res.kilo(w+"worst's lag at the window's end tx", g(7), wr.endLag)
		case "catch-up":
			res.secs(w+"worst's catch-up", g(8), wr.r.catchUp)
			res.printed(w+"catch-up share % (the method's)", g(9), 100*catchUpShare)
			res.printed(w+"worst's window s", g(10), wr.r.windowS)
		}
	case rePeak:
		res.Compared++
		if rr.peak == nil {
			problem("report a peak lag, recomputed none")
			return
		}
		p := rr.peak
		res.kilo(w+"peak lag tx", g(1), p.peak)
		if res.Compared++; g(2) != p.r.id || g(3) != p.peakHost {
			problem("peak lag's run and slave: report %s %s, recomputed %s %s", g(2), g(3), p.r.id, p.peakHost)
			return
		}
		res.printed(w+"peak lag at s", g(4), p.peakAt)
		res.Compared++
		if rising := p.peak > 0 && p.peakFr < p.peakAt; rising != (g(5) != "") {
			problem("peak lag rising from: report %q, recomputed from %.4g s to %.4g s", g(5), p.peakFr, p.peakAt)
		} else if rising {
			res.printed(w+"peak lag rising from s", g(5), p.peakFr)
		}
	case reAfter:
		want, got := "caught up within", "caught up within"
		switch {
		case rr.notCaughtUp:
			want = "a slave never caught up"
		case math.IsNaN(rr.maxCatchUp):
			want = "no catch-up measured"
		case rr.atFirst:
			want = "caught up by orch's first look"
		}
		switch {
		case g(1) != "":
			got = "a slave never caught up"
		case g(2) != "":
			got = "caught up by orch's first look"
		}
		if res.Compared++; got != want {
			problem("after the load: report %q, recomputed %q", got, want)
			return
		}
		if t := g(2) + g(3); t != "" {
			res.secs(w+"longest catch-up after the load", t, rr.maxCatchUp)
		}
	}
}

// kilo compares a count printed "716", "5.4k" or "1.2M" (verdict.go's
// form) with want.
func (res *Result) kilo(what, text string, want float64) {
	scale := 1.0
	switch {
	case strings.HasSuffix(text, "k"):
		scale = 1e3
	case strings.HasSuffix(text, "M"):
		scale = 1e6
	}
	num := strings.ReplaceAll(strings.TrimRight(text, "kM"), ",", "")
	slack := 0.5 * scale
	if i := strings.IndexByte(num, '.'); i >= 0 {
		slack = 0.5 * scale * math.Pow(10, -float64(len(num)-i-1))
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		res.near(what, text, want, 0)
		return
	}
	res.near(what, strconv.FormatFloat(v*scale, 'f', -1, 64), want, slack)
}

// secs compares a duration printed "<1 ms", "67 ms", "2.5 s" with want
// (seconds).
func (res *Result) secs(what, text string, want float64) {
	switch {
	case text == "<1 ms":
		res.Compared++
		if !(want < 0.0005*(1+Tolerance)) {
			res.Problems = append(res.Problems, fmt.Sprintf("%s: report <1 ms, recomputed %.4g s", what, want))
		}
	case strings.HasSuffix(text, " ms"):
		res.printed(what+" ms", strings.TrimSuffix(text, " ms"), 1000*want)
	default:
		res.printed(what+" s", strings.TrimSuffix(text, " s"), want)
	}
}

// indexAll is every index of sub in s.
func indexAll(s, sub string) []int {
	var out []int
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return out
		}
		out = append(out, i+j)
		i += j + 1
	}
}
