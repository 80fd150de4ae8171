package bench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SplitThreads divides total client threads over n load boxes: each gets
// total/n and the first total%n one more, so the shares add up to the
// workload's threads and differ by at most one.
func SplitThreads(total, n int) ([]int, error) {
	switch {
	case n < 1:
		return nil, fmt.Errorf("split threads: %d load boxes", n)
	case total < n:
		return nil, fmt.Errorf("threads: %d thread(s) cannot be split over %d load boxes (each needs at least one; raise threads)", total, n)
	}
	out := make([]int, n)
	for i := range out {
		out[i] = total / n
		if i < total%n {
			out[i]++
		}
	}
	return out, nil
}

// ClientWorkloads returns the workload each of n load boxes runs when the
// benchmark is driven from all of them at once, or why w cannot be.
//
//   - Threads are split (SplitThreads): the cluster sees the workload's
//     total, not n times it.
//   - Tables are not split: sysbench's built-in OLTP tests pick every
//     statement's table uniformly from sbtest1..--tables and have no option
//     for a subset (nor for a key range), so every client uses all the
//     tables, exactly as one client's threads do.
//   - Each client gets its own --rand-seed, derived from seed (unless the
//     workload sets one): sysbench's default seed is the current second,
//     and clients released together would otherwise draw the same random
//     ids (oltp_insert with auto_inc off) and the same rows. Different
//     seeds still leave random 32-bit ids free to collide across clients,
//     rarely (n1*n2/2^32 expected duplicates); auto_inc on never does.
//   - --histogram is turned on: merged latency percentiles are computed
//     from the summed histograms, never by averaging the clients' own.
//   - The run is bounded by time (the same --time for all, so they stop
//     together); an events bound is refused, since clients with different
//     speeds would stop at different times.
//
// Only sysbench 1.x can be split: its histograms are what the merge needs.
func ClientWorkloads(w *Workload, n int, seed uint32) ([]*Workload, error) {
	if n == 1 {
		return []*Workload{w}, nil
	}
	if !w.spec().SeveralLoadBoxes {
		return nil, fmt.Errorf("workload %s: several load boxes (%d) need a sysbench 1.x workload (tool sysbench), whose latency histograms can be merged; %s cannot: use one load box", w.Name, n, w.Tool)
	}
	if w.Options.Events != nil && *w.Options.Events > 0 {
		return nil, fmt.Errorf("workload %s: events: %d bounds each client by a count, and several load boxes must stop together: bound the run by time instead (events=0)", w.Name, *w.Options.Events)
	}
	total := 1 // sysbench's default --threads
	if w.Options.Threads != nil {
		total = *w.Options.Threads
	}
	shares, err := SplitThreads(total, n)
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", w.Name, err)
	}
	ownSeed := slices.ContainsFunc(w.ExtraArgs, func(a string) bool { return strings.HasPrefix(a, "--rand-seed") })
	out := make([]*Workload, n)
	for i, threads := range shares {
		c := *w
		c.ExtraArgs = slices.Clone(w.ExtraArgs)
		if !ownSeed {
			// Seed 0 means "the current time" to sysbench: skip it.
			c.ExtraArgs = append(c.ExtraArgs, "--rand-seed="+strconv.FormatUint(uint64(seed%(1<<31))+uint64(i)+1, 10))
		}
		if err := c.Override(map[string]string{"threads": strconv.Itoa(threads), "histogram": "true"}); err != nil {
			return nil, err
		}
		out[i] = &c
	}
	return out, nil
}
