package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestForEachBoundsAndOrder(t *testing.T) {
	items := make([]int, 50)
	for i := range items {
		items[i] = i
	}
	var running, peak atomic.Int32
	errs := ForEach(context.Background(), 4, items, func(_ context.Context, i, item int) error {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		running.Add(-1)
		if item%10 == 3 {
			return fmt.Errorf("host%d: failed", item)
		}
		return nil
	})
	if p := peak.Load(); p > 4 || p < 2 {
		t.Errorf("peak concurrency %d, want 2..4", p)
	}
	for i, err := range errs {
		if (i%10 == 3) != (err != nil) {
			t.Fatalf("item %d: err %v", i, err)
		}
		if err != nil && err.Error() != fmt.Sprintf("host%d: failed", i) {
			t.Fatalf("item %d: error %q is not its own", i, err)
		}
	}
	agg := Aggregate(errs)
	want := "host3: failed\nhost13: failed\nhost23: failed\nhost33: failed\nhost43: failed"
	if agg == nil || agg.Error() != want {
		t.Fatalf("Aggregate = %q, want %q", agg, want)
	}
	if Aggregate(make([]error, 3)) != nil {
		t.Fatal("Aggregate of no errors is not nil")
	}
}

func TestForEachCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	errs := ForEach(ctx, 1, []int{1, 2, 3, 4}, func(ctx context.Context, i, _ int) error {
		calls.Add(1)
		if i == 0 {
			cancel()
		}
		return nil
	})
	if calls.Load() > 2 {
		t.Errorf("%d calls after cancel, want at most 2", calls.Load())
	}
	if !errors.Is(errs[3], context.Canceled) {
		t.Errorf("unstarted item error %v, want context.Canceled", errs[3])
	}
	if err := Aggregate([]error{errors.New("only")}); !strings.Contains(err.Error(), "only") || strings.Contains(err.Error(), "\n") {
		t.Errorf("single error formatted as %q", err)
	}
}
