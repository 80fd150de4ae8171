// Package matrix plans and records `orch matrix`: one benchmark workload run
// over every combination of engine profiles and server knob values, each
// combination repeated, with the state of every cell kept on disk so that an
// interrupted matrix can be resumed. Planning, ordering and the state file
// are pure code plus file I/O. Run (run.go) is the use case of `orch matrix`:
// plan or resume, check, connect, then execute (schedule.go), the one loop
// that brings a cluster to each cell's configuration (orchestrator/up) and
// runs the cell's benchmark into its run directory (orchestrator/runner)
// (execute.go), on one cluster or on several at once, a cluster's cells
// forming its block (see "Several clusters"), then the report.
//
// # Axes
//
// --engines takes a comma-separated list of profiles (innodb,rocksdb).
//
// --knobs takes one or more knobs joined by ';', each either
//
//	NAME               a boolean swept ON then OFF
//	NAME=V1,V2,...     the values given, in that order
//
// so that ',' always separates values and ';' always separates knobs:
// --knobs='sync_binlog=0,1;binlog_order_commits'. The flag may also be
// repeated, one knob (or several) per flag. Names are normalised the way the
// server spells variables (lower case, '-' as '_', no loose_ prefix). The
// first '=' ends the name, so a value may hold '=' but not ',' or ';' (such a
// setting goes in the profile or `orch run --knob`). A knob or value given
// twice, an empty value and an invalid name are errors.
//
// # Cells and their order
//
// A label is one configuration: "innodb sync_binlog=0 binlog_order_commits=ON".
// Labels are the product engines × values of the first knob × ... × values
// of the last, the last knob varying fastest. Each label runs repeat times;
// a cell is one label in one repetition.
//
// The cells run in rounds: round r runs every label once, so repetitions are
// interleaved (A B C A B C) and slow drift of the machines spreads over all
// labels instead of biasing one. Within a round the labels are grouped by
// engine, engine groups in the given order in odd rounds and reversed in even
// rounds, knob combinations in product order inside a group. Consecutive
// rounds thus meet on the same engine, and a plan switches engine exactly
// repeat×(engines−1) times: the fewest possible, since every round holds every
// engine. Knob changes between cells of one engine are cheap (SET GLOBAL)
// unless the knob is static, which costs a restart like an engine switch.
//
// A cell's id is its 1-based position in that order, zero-padded, then its
// label and repetition: "01-innodb-sync_binlog=0-binlog_order_commits=ON-r1".
// The position makes ids unique and sorts them in execution order; the rest
// is made filesystem-safe and shortened when long.
//
// # On disk
//
// A matrix is runs/<UTC>-matrix-<workload>/ (runs/latest points at it) with
// matrix.json, the plan and every cell's state, replaced atomically by Save,
// and cells/<id>/, one run directory per executed cell. Cell states:
//
//	pending      not run yet
//	running      started; found at load time it means orch died mid-cell
//	ok, failed   finished (a failed cell keeps its reason in "error")
//	interrupted  stopped by the user; resumed like pending
//
// Next returns the first pending, running or interrupted cell in order, which
// is what `orch matrix --resume` continues with on one cluster.
//
// # Several clusters
//
// Over several clusters (NewBlocked, blocks.go) the order above does not
// hold: each cluster is a block running every configuration repeat times,
// each round in an order drawn at random from the recorded seed (an
// engine's cells kept together with GroupEngines, as orch matrix sets it),
// and the clusters run in parallel. Cell ids then start with the cluster's
// name, matrix.json also holds the design, and Design.Next gives each
// cluster its own next unfinished cell.
package matrix
