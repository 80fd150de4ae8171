// Package analyse is the report's second room: the figures computed from
// loaded runs. Each run's window (warm-up detection, level shifts, the
// client's clock aligned on the monitors'), its steady rates and latency,
// the replicas' figures, per-host costs and stack shares, and the
// statistics a comparison rests on (Student, Welch, Mann-Whitney, Fieller's
// ratio interval, block designs). Its functions take runs and return
// figures; the per-host costs and the replicas' lag read a run's time
// series through load's readers when first asked.
//
// analyse imports load (and orchestrator/schema, stats); judge and render
// build on it.
package analyse
