package lab

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestRunWithProgressReportsAndFails(t *testing.T) {
	defer func(d time.Duration) { progressEvery = d }(progressEvery)
	progressEvery = 50 * time.Millisecond
	var out bytes.Buffer
	p := newProgress(&out)
	err := runWithProgress(context.Background(), p, "step", func() string { return "12 MB so far" },
		"sh", "-c", "echo 'I: Unpacking the base system...'; sleep 0.4")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "lab: step: I: Unpacking the base system... (0s, 12 MB so far)") {
		t.Errorf("progress lines:\n%s", out.String())
	}

	err = runWithProgress(context.Background(), p, "step", func() string { return "" },
		"sh", "-c", "echo 'E: Couldn'\\''t download packages'; exit 1")
	if err == nil || !strings.Contains(err.Error(), "Couldn't download packages") {
		t.Errorf("failure = %v, want the command's last output", err)
	}
}
