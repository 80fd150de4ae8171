package judge

import (
	"testing"
)

// TestClientBoundCaveatUnderTheVerdict: when Where the time went finds a
// load box saturated, the caveat is one of the lines right under the
// comparison (it was only in the diagnostics), naming the side and why;
// without it, no line.
func TestClientBoundCaveatUnderTheVerdict(t *testing.T) {
	base, g := &Group{Label: "innodb"}, &Group{Label: "rocksdb"}
	tb := &Table{Groups: []*Group{base, g}, Baseline: base, Why: &Why{Groups: []*GroupWhy{
		{Label: "innodb", ClientBound: true, ClientWhy: "loadbox: client 95.0% of 2 cores"}, {Label: "rocksdb"}}}}
	want := "Client-bound (rocksdb vs innodb): the load box was saturated in innodb (loadbox: client 95.0% of 2 cores): " +
		"the comparison measures the load box, not the engines"
	if got := tb.Caveats(base, g); len(got) != 1 || got[0] != want {
		t.Errorf("caveats %q, want [%q]", got, want)
	}
	tb.Why.Groups[0].ClientBound = false
	if got := tb.Caveats(base, g); len(got) != 0 {
		t.Errorf("caveats %q without a saturated load box", got)
	}
}
