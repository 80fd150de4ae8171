package report

import "testing"

func TestWrittenLine(t *testing.T) {
	got := WrittenLine([]string{"r/plots/a.svg", "r/plots/b.svg", "r/report.md", "r/results.csv", "r/hosts.csv"})
	if want := "wrote r/{report.md,results.csv,hosts.csv} and 2 plots in r/plots"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := WrittenLine([]string{"x/results.csv"}); got != "wrote x/{results.csv}" {
		t.Errorf("got %q", got)
	}
}
