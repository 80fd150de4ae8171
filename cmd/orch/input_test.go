package main

import (
	"strings"
	"testing"
)

func TestCapLines(t *testing.T) {
	msg := strings.TrimSuffix(strings.Repeat("slave 10.0.0.9: unreachable\n", 60), "\n")
	got := capLines(msg)
	if n := strings.Count(got, "\n") + 1; n != maxErrorLines+1 || !strings.HasSuffix(got, "... and 40 more lines") {
		t.Errorf("capLines: %d lines, ending %q", n, got[len(got)-30:])
	}
	if capLines("one line") != "one line" {
		t.Error("a short message changed")
	}
}
