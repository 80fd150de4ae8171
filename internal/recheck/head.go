package recheck

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The head (report.md's answer lines, before "Servers:") and each table's
// verdict lines ("- LABEL: ..." under "Baseline:") are what a reader
// takes away, so every figure in them is compared with this package's
// own recomputation: a pattern names what a number is, and a number no
// pattern claims is listed in Result.Uncovered rather than passed over.

// figure is a pattern of a line and what each of its groups is.
type figure struct {
	re *regexp.Regexp
	// check compares the groups of one match (m[1:]) for comparison c
	// (nil when the line names none).
	check func(res *Result, what string, c *comparison, m []string)
}

var (
	// reNum is a number standing on its own: not part of a name
	// ("slave1") or of a setting ("sync_binlog=1", masked first).
	reNum     = regexp.MustCompile(`(?:^|[^A-Za-z_0-9.])([0-9][0-9.,]*(?:e-?[0-9]+)?)`)
	reSetting = regexp.MustCompile(`[A-Za-z_][A-Za-z_0-9]*=\S+`)
	// The noise threshold the Method states (MaxCV), not a figure of the
	// runs: checked to be 5%.
	reCVLimit = regexp.MustCompile(`(?:CV above|% above) ([0-9.]+)%`)

	headFigures = []figure{
		// rocksdb vs innodb: -16% writes/s [-27%, +0%] (p=0.0062, n=4+4)
		{regexp.MustCompile(`: ([+-]?[0-9]+)% [^\[]*\[([+-]?[0-9]+)%, ([+-]?[0-9]+)%\]`), func(res *Result, w string, c *comparison, m []string) {
			res.printed(w+"change %", m[0], 100*(c.ratio-1))
			res.printed(w+"change % interval low", m[1], 100*(c.lo-1))
			res.printed(w+"change % interval high", m[2], 100*(c.hi-1))
		}},
		{regexp.MustCompile(`\(p([=<][0-9.e-]+), n=([0-9]+)\+([0-9]+)\)`), func(res *Result, w string, c *comparison, m []string) {
			res.pValue(w+"p", m[0], c.p)
			res.printed(w+"n", m[1], float64(c.n))
			res.printed(w+"n baseline", m[2], float64(c.nBase))
		}},
		{regexp.MustCompile(`need ~([0-9]+) runs each`), func(res *Result, w string, c *comparison, m []string) {
			res.printed(w+"runs needed", m[0], float64(c.runsNeeded))
		}},
		// LABEL: 0.840x innodb writes/s (client) [0.676, 1.04]
		{regexp.MustCompile(`^[^:]+: ([0-9.]+)x [^\[;]*\[([0-9.]+), ([0-9.]+)\]`), func(res *Result, w string, c *comparison, m []string) {
			res.printed(w+"ratio", m[0], c.ratio)
			res.printed(w+"ratio interval low", m[1], c.lo)
			res.printed(w+"ratio interval high", m[2], c.hi)
		}},
		{regexp.MustCompile(`([0-9.]+)x sustained \[([0-9.]+), ([0-9.]+)\]`), func(res *Result, w string, c *comparison, m []string) {
			res.printed(w+"sustained ratio", m[0], c.sRatio)
			res.printed(w+"sustained interval low", m[1], c.sLo)
			res.printed(w+"sustained interval high", m[2], c.sHi)
		}},
		// "0.584x innodb writes/s (client) [...], master commits 0.875x":
		// the master's commit rate's ratio where it differs from the client's.
		{regexp.MustCompile(`master commits ([0-9.]+)x`), func(res *Result, w string, c *comparison, m []string) {
			res.printed(w+"master commits ratio", m[0], c.masterRatio)
		}},
		{regexp.MustCompile(`replicas applied ([0-9.]+)x`), func(res *Result, w string, c *comparison, m []string) {
			res.printed(w+"applied ratio", m[0], c.applied)
		}},
		{regexp.MustCompile(`lag grew ([0-9.,]+)(k?) tx/s[,)]`), func(res *Result, w string, c *comparison, m []string) {
			if m[1] == "k" {
				res.printed(w+"lag growth k tx/s", m[0], c.lagGrowth/1000)
				return
			}
			res.printed(w+"lag growth tx/s", m[0], c.lagGrowth)
		}},
		// The Replicas line's "tokudb sustained 0.183x [0.106, 0.314]".
		{regexp.MustCompile(`[^,] sustained ([0-9.]+)x \[([0-9.]+), ([0-9.]+)\]`), func(res *Result, w string, c *comparison, m []string) {
			res.printed(w+"sustained ratio", m[0], c.sRatio)
			res.printed(w+"sustained interval low", m[1], c.sLo)
			res.printed(w+"sustained interval high", m[2], c.sHi)
		}},
		{regexp.MustCompile(`catch-up <1 ms\)`), func(res *Result, w string, c *comparison, m []string) {
			res.Compared++
			if !(c.catchUp < 0.001*(1+Tolerance)) {
				res.Problems = append(res.Problems, fmt.Sprintf("%scatch-up: report <1 ms, recomputed %.4g s", w, c.catchUp))
			}
		}},
		{regexp.MustCompile(`catch-up ([0-9.]+) ms\)`), func(res *Result, w string, c *comparison, m []string) {
			res.printed(w+"catch-up ms", m[0], 1000*c.catchUp)
		}},
		{regexp.MustCompile(`catch-up ([0-9.]+) s\)`), func(res *Result, w string, c *comparison, m []string) {
			res.printed(w+"catch-up s", m[0], c.catchUp)
		}},
		{regexp.MustCompile(`\(p([=<][0-9.e-]+), (not )?significant\)`), func(res *Result, w string, c *comparison, m []string) {
			res.pValue(w+"p", m[0], c.p)
			// Significant exactly when the recomputed interval excludes 1.
			res.Compared++
			if sig := c.lo > 1 || c.hi < 1; sig != (m[1] == "") {
				res.Problems = append(res.Problems, fmt.Sprintf("%ssignificance: report %q, recomputed interval [%.4g, %.4g]", w, m[1]+"significant", c.lo, c.hi))
			}
		}},
		{regexp.MustCompile(`about ([0-9]+) runs per configuration`), func(res *Result, w string, c *comparison, m []string) {
			res.printed(w+"runs needed", m[0], float64(c.runsNeeded))
		}},
		{regexp.MustCompile(`n=([0-9]+)[:,]`), func(res *Result, w string, c *comparison, m []string) {
			res.printed(w+"n", m[0], float64(c.n))
		}},
	}
	// Counts of the report's own invariant flags (the Runs table's): not
	// a figure of the runs, so listed in Result.NotRecomputed, not checked.
	reFlagged = regexp.MustCompile(`([0-9]+) runs? flagged for a broken invariant|\(and [0-9]+ more below\)`)
	// The Replicas line: "applied vs innodb: rocksdb 0.835x, tokudb 1.02x".
	reApplied = regexp.MustCompile(`applied vs [^:]+: (.+)$`)
	// The stopping rule's line: "±10% not reached: ±19.7% after 4 rounds
	// (rocksdb/innodb, --max-repeat 4) (rounds 3-4, blocked analysis)",
	// "±10% reached after 5 rounds: ... (worst rocksdb/innodb: ±9.1%)",
	// "±10% reached at --max-repeat 4 (worst ...: ±9.1%)": the target,
	// the half-width reached, the rounds, the rule's bounds.
	reRuleTarget = regexp.MustCompile(`^Stopping rule: ±([0-9.]+)% (?:not )?reached`)
	reRuleWidth  = regexp.MustCompile(`(?:: |worst [^:]+: )±([0-9.]+)%`)
	reRuleRounds = regexp.MustCompile(`(?:after|--max-repeat) ([0-9]+)\b`)
	reRuleBounds = regexp.MustCompile(`\(rounds ([0-9]+)-([0-9]+)[,)]`)
	// "(2 planned cell(s) not needed)": matrix.json's skipped cells.
	reRuleSkipped = regexp.MustCompile(`\(([0-9]+) planned cell\(s\) not needed\)`)
	// A matrix not finished: "not finished after 0 round(s) judged: going
	// on: 0 of at least 3 rounds": matrix.json's rounds judged and
	// --min-repeat.
	reRuleJudged  = regexp.MustCompile(`not finished after ([0-9]+) round\(s\) judged`)
	reRuleGoingOn = regexp.MustCompile(`going on: ([0-9]+) of at least ([0-9]+) rounds`)
	// One configuration: "innodb: 4378.95 writes/s ± 843.39 (n=3)", its
	// mean, sd and runs.
	reLevel = regexp.MustCompile(`^: ([0-9.,]+) [^±(]*?(?: ± ([0-9.,]+))? \(n=([0-9]+)\)`)
)

// pValue compares a p printed "=0.0114" (as printed) or "<0.001" (the
// recomputed p must be below the bound) with the recomputed one.
func (res *Result) pValue(what, text string, want float64) {
	if bound, ok := strings.CutPrefix(text, "<"); ok {
		b, err := strconv.ParseFloat(bound, 64)
		res.Compared++
		if err != nil || !(want < b) {
			res.Problems = append(res.Problems, fmt.Sprintf("%s: report p<%s, recomputed %.4g", what, bound, want))
		}
		return
	}
	res.printed(what, strings.TrimPrefix(text, "="), want)
}

// printed compares a figure as the report printed it with the recomputed
// one: within Tolerance, plus half a unit of its last printed digit (a
// figure printed "34" is any of 33.5-34.5).
func (res *Result) printed(what, text string, want float64) {
	text = strings.ReplaceAll(text, ",", "")
	slack := 0.5
	if i := strings.IndexByte(text, '.'); i >= 0 && !strings.ContainsAny(text, "eE") {
		slack = 0.5 * math.Pow(10, -float64(len(text)-i-1))
	} else if strings.ContainsAny(text, "eE") {
		slack = 0
	}
	res.near(what, text, want, slack)
}

// checkLines compares every figure of report.md's head and verdict lines
// with the recomputed comparisons.
func (res *Result) checkLines(md, base string, labels []string) {
	for _, line := range headAndVerdicts(md) {
		res.Lines++
		c, what := res.lineComparison(line, base, labels)
		claimed := [][2]int{}
		claim := func(loc []int) { claimed = append(claimed, [2]int{loc[0], loc[1]}) }
		// The steady-state lines have figures of their own (steadyline.go)
		// that the verdict's patterns would misread.
		if spans, ok := res.checkSteadyLine(line, base, labels); ok {
			for _, s := range spans {
				claim(s)
			}
			res.uncovered(line, claimed, labels)
			continue
		}
		if m := reApplied.FindStringSubmatchIndex(line); m != nil {
			for _, part := range strings.Split(line[m[2]:m[3]], ", ") {
				// "LABEL 0.777x", or with "(a backlog from before the
				// window in 1 run: ...)" after it (replicaline.go checks
				// that); a label may hold spaces (its knobs).
				if i := strings.Index(part, " ("); i >= 0 {
					part = part[:i]
				}
				i := strings.LastIndex(part, " ")
				ok := i > 0
				label, ratio := part, ""
				if ok {
					label, ratio = part[:i], part[i+1:]
				}
				if cc := res.comparisons[label]; ok && cc != nil {
					res.printed(label+" applied ratio (Replicas line)", strings.TrimSuffix(ratio, "x"), cc.applied)
				}
			}
			claim(m[2:4])
		}
		for _, m := range reFlagged.FindAllStringSubmatchIndex(line, -1) {
			res.NotRecomputed = append(res.NotRecomputed, line[m[0]:m[1]])
			claim(m[:2])
		}
		// "LABEL CV 7.9%" (verdict) and "CV above 5%: LABEL 10.8%, ..."
		// (Noise line): any configuration's, the baseline's too.
		for _, m := range reCVLimit.FindAllStringSubmatchIndex(line, -1) {
			res.printed("noise threshold CV %", line[m[2]:m[3]], 5)
			claim(m[2:4])
		}
		for l, cv := range res.cvs {
			for _, m := range regexp.MustCompile(regexp.QuoteMeta(l)+`( CV)? ([0-9.]+)%`).FindAllStringSubmatchIndex(line, -1) {
				res.printed(l+" CV %", line[m[4]:m[5]], 100*cv)
				claim(m[:2])
			}
		}
		for l, v := range res.levels {
			if !strings.HasPrefix(line, l+": ") {
				continue
			}
			if m := reLevel.FindStringSubmatchIndex(line[len(l):]); m != nil {
				g := func(i int) string { return line[len(l)+m[2*i] : len(l)+m[2*i+1]] }
				res.printed(l+" mean (one configuration)", g(1), v[0])
				if m[4] >= 0 {
					res.printed(l+" sd (one configuration)", g(2), v[1])
				}
				res.printed(l+" n (one configuration)", g(3), v[2])
				claim([]int{len(l) + m[0], len(l) + m[1]})
			}
		}
		if strings.HasPrefix(line, "Stopping rule: ") && res.until != nil {
			for _, loc := range res.checkRule(line) {
				claim(loc)
			}
		}
		for _, s := range res.checkReplicaPhrases(line, base, labels) {
			claim(s)
		}
		if c != nil {
			for _, f := range headFigures {
				for _, m := range f.re.FindAllStringSubmatchIndex(line, -1) {
					groups := make([]string, 0, len(m)/2-1)
					for i := 2; i < len(m); i += 2 {
						if m[i] < 0 {
							groups = append(groups, "")
							continue
						}
						groups = append(groups, line[m[i]:m[i+1]])
					}
					f.check(res, what, c, groups)
					claim(m[:2])
				}
			}
		}
		res.uncovered(line, claimed, labels)
	}
	res.checkSteadyAbsent(base, labels)
}

// lineComparison is the comparison a line is about: the label it opens
// with ("rocksdb vs innodb: ", "rocksdb: "), or the only one.
func (res *Result) lineComparison(line, base string, labels []string) (*comparison, string) {
	for _, l := range labels {
		if l != base && (strings.HasPrefix(line, l+" vs ") || strings.HasPrefix(line, l+": ")) {
			return res.comparisons[l], l + " (head/verdict) "
		}
	}
	if len(res.comparisons) == 1 {
		for l, c := range res.comparisons {
			return c, l + " (head) "
		}
	}
	return nil, ""
}

// checkRule compares the stopping rule's line with matrix.json's rule
// (target, bounds) and the recomputed comparisons (the widest interval's
// half-width; the rounds, the runs per configuration, or --max-repeat);
// it returns the spans it checked.
func (res *Result) checkRule(line string) [][]int {
	worst, rounds := 0.0, 0
	for _, c := range res.comparisons {
		worst = math.Max(worst, (c.hi-c.lo)/2/c.ratio)
		rounds = max(rounds, c.n)
	}
	var spans [][]int
	from := 0 // the half-width comes after the target
	if m := reRuleTarget.FindStringSubmatchIndex(line); m != nil {
		res.printed("stopping rule target %", line[m[2]:m[3]], 100*res.until.Precision)
		spans, from = append(spans, m[2:4]), m[1]
	}
	for _, m := range reRuleWidth.FindAllStringSubmatchIndex(line[from:], -1) {
		res.printed("stopping rule half-width %", line[from+m[2]:from+m[3]], 100*worst)
		spans = append(spans, []int{from + m[2], from + m[3]})
	}
	judged := []int{-1, -1}
	if m := reRuleJudged.FindStringSubmatchIndex(line); m != nil {
		res.printed("stopping rule rounds judged (matrix.json)", line[m[2]:m[3]], float64(res.until.Judged))
		spans, judged = append(spans, m[2:4]), m[:2]
	}
	if m := reRuleGoingOn.FindStringSubmatchIndex(line); m != nil {
		res.printed("stopping rule rounds judged (matrix.json)", line[m[2]:m[3]], float64(res.until.Judged))
		res.printed("stopping rule --min-repeat", line[m[4]:m[5]], float64(res.until.MinRounds))
		spans = append(spans, m[2:4], m[4:6])
	}
	for _, m := range reRuleRounds.FindAllStringSubmatchIndex(line, -1) {
		if m[0] >= judged[0] && m[0] < judged[1] {
			continue
		}
		want := float64(rounds)
		if strings.HasPrefix(line[m[0]:], "--max-repeat") {
			want = float64(res.until.MaxRounds)
		}
		res.printed("stopping rule rounds", line[m[2]:m[3]], want)
		spans = append(spans, m[2:4])
	}
	if m := reRuleSkipped.FindStringSubmatchIndex(line); m != nil {
		res.printed("stopping rule cells not needed (matrix.json)", line[m[2]:m[3]], float64(res.until.skipped))
		spans = append(spans, m[2:4])
	}
	if m := reRuleBounds.FindStringSubmatchIndex(line); m != nil {
		res.printed("stopping rule --min-repeat", line[m[2]:m[3]], float64(res.until.MinRounds))
		res.printed("stopping rule --max-repeat", line[m[4]:m[5]], float64(res.until.MaxRounds))
		spans = append(spans, m[2:4], m[4:6])
	}
	return spans
}

// uncovered lists the numbers of line outside every claimed match, the
// labels (which may hold digits: "sync_binlog=1") left out.
func (res *Result) uncovered(line string, claimed [][2]int, labels []string) {
	masked := []byte(line)
	for _, c := range claimed {
		for i := c[0]; i < c[1]; i++ {
			masked[i] = ' '
		}
	}
	rest := string(masked)
	for _, l := range labels {
		rest = strings.ReplaceAll(rest, l, "")
	}
	rest = reSetting.ReplaceAllString(rest, "")
	for _, m := range reNum.FindAllStringSubmatch(rest, -1) {
		n := m[1]
		if _, err := strconv.ParseFloat(strings.ReplaceAll(n, ",", ""), 64); err == nil {
			res.Uncovered = append(res.Uncovered, fmt.Sprintf("%s (in %q)", n, line))
		}
	}
}

// headAndVerdicts are report.md's head lines (the "- " lines before
// "Servers:") and each table's verdict lines (the "- " lines right after
// "Baseline: ..."), without their "- ".
func headAndVerdicts(md string) []string {
	var out []string
	lines := strings.Split(md, "\n")
	inHead, inVerdicts := true, false
	verdicts := 0 // bullets taken since "Baseline:"
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "Servers:") || strings.HasPrefix(l, "## "):
			inHead = false
		case strings.HasPrefix(l, "Baseline: "):
			inVerdicts, verdicts = true, 0
			continue
		}
		bullet := strings.HasPrefix(l, "- ")
		if inVerdicts && !bullet && l != "" || inVerdicts && l == "" && i > 0 && strings.HasPrefix(lines[i-1], "- ") {
			inVerdicts = false
		}
		// With no verdict (one configuration), the bullets right after
		// "Baseline:" are the table's own head (Data, Axes, Runs in the
		// statistics), not verdicts.
		if inVerdicts && strings.HasPrefix(l, "- Runs in the statistics: ") {
			out, inVerdicts = out[:len(out)-verdicts], false
		}
		if bullet && (inHead || inVerdicts) {
			out = append(out, strings.TrimPrefix(l, "- "))
			if inVerdicts {
				verdicts++
			}
		}
	}
	return out
}
