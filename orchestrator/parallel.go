// Package orchestrator connects to the hosts of an inventory and runs steps
// on them: bounded fan-out, per-host error aggregation, and the connection
// set that every command shares.
package orchestrator

import (
	"context"
	"sync"

	"github.com/hashicorp/go-multierror"
)

// DefaultParallel bounds how many hosts are worked on at once.
const DefaultParallel = 32

// ForEach calls fn for every item with at most limit calls running at once
// and returns the errors in item order (nil where fn succeeded). A cancelled
// ctx stops items that have not started yet.
func ForEach[T any](ctx context.Context, limit int, items []T, fn func(ctx context.Context, i int, item T) error) []error {
	if limit <= 0 {
		limit = DefaultParallel
	}
	errs := make([]error, len(items))
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, it := range items {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			for j := i; j < len(items); j++ {
				errs[j] = ctx.Err()
			}
			wg.Wait()
			return errs
		}
		wg.Add(1)
		go func(i int, it T) {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = fn(ctx, i, it)
		}(i, it)
	}
	wg.Wait()
	return errs
}

// Aggregate folds per-host errors, in order, into one error (nil if none).
func Aggregate(errs []error) error {
	var merr *multierror.Error
	for _, err := range errs {
		if err != nil {
			merr = multierror.Append(merr, err)
		}
	}
	if merr == nil {
		return nil
	}
	merr.ErrorFormat = listFormat
	return merr
}

func listFormat(errs []error) string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	s := ""
	for i, e := range errs {
		if i > 0 {
			s += "\n"
		}
		s += e.Error()
	}
	return s
}
