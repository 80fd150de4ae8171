package history

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/changepoint"
)

// ShowOptions is `orch history`.
type ShowOptions struct {
	Where  Where
	Filter Filter
	// Knob keeps the series whose knobs contain it ("name" or "name=value").
	Knob   string
	Ignore []string
	// Series shows one series' points (a key or its prefix).
	Series string
	// Check prints one line per regression: the latest change point is
	// for the worse by more than Threshold and began within the newest
	// Within points.
	Check     bool
	Threshold float64
	Within    int
	// HTML writes the static page there; JSON prints the series as JSON.
	HTML string
	JSON bool
	Out  io.Writer
}

// Show is `orch history`: it returns how many regressions --check found.
func Show(ctx context.Context, o ShowOptions) (int, error) {
	if err := CheckIgnore(o.Ignore); err != nil {
		return 0, orchestrator.BadInput(err)
	}
	if o.Check && !(o.Threshold >= 0 && o.Threshold < 1) {
		return 0, orchestrator.BadInputf("--threshold %v: want a percentage from 0 to below 100", 100*o.Threshold)
	}
	series, where, err := loadSeries(ctx, o.Where, o.Filter, o.Knob, o.Ignore)
	if err != nil {
		return 0, err
	}
	if len(series) == 0 {
		fmt.Fprintf(o.Out, "no runs recorded in %s match (orch history import DIR... records old ones)\n", where)
		return 0, nil
	}
	if o.HTML != "" {
		if err := WriteHTML(o.HTML, series, o.Ignore); err != nil {
			return 0, err
		}
		fmt.Fprintf(o.Out, "wrote %s (%d series)\n", o.HTML, len(series))
	}
	switch {
	case o.Series != "":
		s, err := Find(series, o.Series)
		if err != nil {
			return 0, orchestrator.BadInput(err)
		}
		if o.JSON {
			return 0, writeJSON(o.Out, s)
		}
		WriteSeries(o.Out, s)
	case o.Check:
		n := WriteRegressions(o.Out, series, o.Threshold, o.Within)
		if n == 0 {
			fmt.Fprintf(o.Out, "no regression beyond %.1f%% in the newest %d points of %d series\n", 100*o.Threshold, o.Within, len(series))
		}
		return n, nil
	case o.JSON:
		return 0, writeJSON(o.Out, series)
	case o.HTML == "":
		WriteTable(o.Out, series, o.Ignore)
	}
	return 0, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// loadSeries opens the store, selects the entries and builds the series.
func loadSeries(ctx context.Context, w Where, f Filter, knob string, ignore []string) ([]*Series, string, error) {
	es, where, err := entriesOf(ctx, w, f)
	if err != nil {
		return nil, "", err
	}
	if knob != "" {
		var keep []Entry
		for _, e := range es {
			if hasKnob(e.Identity.Knobs, knob) {
				keep = append(keep, e)
			}
		}
		es = keep
	}
	return Build(es, ignore, changepoint.Options{}), where, nil
}

// hasKnob: knobs ("name=value ...") set the knob NAME, or NAME=VALUE
// exactly (sync_binlog=1 is not sync_binlog=10, nor log=1).
func hasKnob(knobs, knob string) bool {
	for _, k := range strings.Fields(knobs) {
		if k == knob || strings.HasPrefix(k, knob+"=") {
			return true
		}
	}
	return false
}

func entriesOf(ctx context.Context, w Where, f Filter) ([]Entry, string, error) {
	c, ok, err := w.Config()
	if err != nil {
		return nil, "", orchestrator.BadInput(err)
	}
	if !ok {
		return nil, "", orchestrator.BadInputf("--store off: no history to read")
	}
	s, err := Open(ctx, c)
	if err != nil {
		return nil, "", err
	}
	defer s.Close()
	es, err := s.Entries(ctx, f)
	return es, s.Where(), err
}

// ImportDirs is `orch history import DIR...`.
func ImportDirs(ctx context.Context, w Where, dirs []string, out io.Writer) error {
	for _, d := range dirs {
		if _, err := os.Stat(d); err != nil {
			return orchestrator.BadInput(err)
		}
	}
	c, ok, err := w.Config()
	if err != nil || !ok {
		return orchestrator.BadInputf("history import: %v", orNil(err, "--store off"))
	}
	s, err := Open(ctx, c)
	if err != nil {
		return err
	}
	defer s.Close()
	got, err := Import(ctx, s, dirs)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "history: %d runs read, %d new, %d already recorded, in %s\n", got.Read, got.Added, got.Read-got.Added, s.Where())
	return nil
}

func orNil(err error, alt string) string {
	if err != nil {
		return err.Error()
	}
	return alt
}

// CompareOptions is `orch compare A B`: each side a run or matrix
// directory, or a selection of the store (KEY=VALUE,...: campaign,
// workload, engine, version, cluster, since, until).
type CompareOptions struct {
	Where  Where
	A, B   string
	Ignore []string
	Out    io.Writer
}

// CompareCampaigns is `orch compare`.
func CompareCampaigns(ctx context.Context, o CompareOptions) error {
	if err := CheckIgnore(o.Ignore); err != nil {
		return orchestrator.BadInput(err)
	}
	a, err := side(ctx, o.Where, o.A)
	if err != nil {
		return err
	}
	b, err := side(ctx, o.Where, o.B)
	if err != nil {
		return err
	}
	cmp := Compare(a, b, o.Ignore)
	if err := cmp.Err(); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "A: %s (%d runs)\nB: %s (%d runs)\n\n", o.A, len(a), o.B, len(b))
	cmp.Write(o.Out)
	return nil
}

// side reads one side of a comparison: a directory, else a selection.
func side(ctx context.Context, w Where, arg string) ([]Entry, error) {
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		es, err := Extract(expand([]string{arg}))
		if err != nil {
			return nil, orchestrator.BadInput(fmt.Errorf("%s: %w", arg, err))
		}
		return es, nil
	}
	f, err := ParseSelection(arg)
	if err != nil {
		return nil, orchestrator.BadInput(err)
	}
	es, _, err := entriesOf(ctx, w, f)
	if err == nil && len(es) == 0 {
		err = orchestrator.BadInputf("%s: no recorded runs match", arg)
	}
	return es, err
}

// ParseSelection reads KEY=VALUE,... into a filter.
func ParseSelection(s string) (Filter, error) {
	var f Filter
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			return f, fmt.Errorf("%q: not a directory, nor a selection KEY=VALUE,... (campaign, workload, engine, version, cluster, since, until)", s)
		}
		var err error
		switch k {
		case "campaign":
			f.Campaign = v
		case "workload":
			f.Workload = v
		case "engine":
			f.Engine = v
		case "version":
			f.Version = v
		case "cluster":
			f.Cluster = v
		case "since":
			f.Since, err = ParseDate(v)
		case "until":
			f.Until, err = ParseDate(v)
		default:
			return f, fmt.Errorf("%q: unknown key %s (campaign, workload, engine, version, cluster, since, until)", s, k)
		}
		if err != nil {
			return f, fmt.Errorf("%s=%s: %w", k, v, err)
		}
	}
	return f, nil
}

// ParseDate reads 2026-12-06, 2026-12-06T08:00:00Z or a duration back
// from now (7d, 36h).
func ParseDate(v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t, nil
	}
	// An age is back from now: "1.5d" or "-3d" (the future) are not ages.
	if n, ok := strings.CutSuffix(v, "d"); ok {
		if days, err := strconv.Atoi(n); err == nil && days >= 0 {
			return time.Now().AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return time.Now().Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("want a date (2026-12-06), a time (RFC 3339) or an age (7d, 36h)")
}
