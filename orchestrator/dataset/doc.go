// Package dataset answers what `orch run` must know about the benchmark
// data around a run, from the servers themselves:
//
//   - Matches: does the database already hold exactly the tables the
//     workload prepares (so prepare can be skipped), and if not, why not;
//   - WaitCaughtUp: have the slaves applied everything the master wrote,
//     by GTID (Seconds_Behind_Master reads 0 on a slave whose link is down);
//   - Consistency: CHECKSUM TABLE and COUNT(*) of every benchmark table on
//     every server, compared, a difference being a failed check;
//   - Sizes: data and index bytes per table and engine, and the datadir's
//     size on disk (engine footprint, e.g. TokuDB or RocksDB compression).
//
// Everything goes through connections the caller opened (a *sql.DB per
// server, an executor for du): this package never dials. Every statement
// runs under a timeout, so no check can hang a run.
package dataset
