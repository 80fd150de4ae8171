// Package monitor samples the database hosts of a benchmark run every
// second, through the connections the run already holds (one *sql.DB and
// one SSH executor per host; it never dials), and streams what it sees to
// the run directory as it arrives:
//
//	timeseries/<host>-mysql.csv   server counters, semi-sync, replication lag
//	timeseries/<host>-os.csv      CPU, load and disk from /proc
//	events.jsonl                  semi-sync fallbacks, stalls, host errors...
//
// Each host's mysql and os sides sample on their own ticker: a slow or dead
// host delays nobody else, and a sample that overruns its interval makes
// the ticks it covered be skipped (a ticks_skipped event), never queued.
// The os sides' tickers are spread evenly over the interval, clear of the
// mysql sides (which stay together, since a slave's lag is read against
// the master's latest position): asking every host's /proc at the same
// instant each second would put a burst of SSH round trips and shell work
// on the servers' commit path at once, which an observer must not do.
// Each row carries its own time, so nothing downstream assumes a common
// instant. Stop takes one more sample of every side (unless its latest is
// under 100 ms old), so the series end with the load rather than up to an
// interval before it: that last row's interval_s is shorter.
// Rows are written unbuffered one by one, so memory stays flat over any
// run length and a crash loses at most one row.
//
// Per sample and host: SHOW GLOBAL STATUS of a fixed name list, the GTID
// position with the flavour's SELECT, and SHOW SLAVE STATUS on a slave
// (about 1 ms of server CPU); /proc is read by one long-lived shell per
// host that prints a sample, with shell builtins only, for each line the
// monitor sends it on its tick, rather than an SSH session (a fork and a
// shell start) per sample. Measured on the lab: about 2.5 ms of CPU per
// host and 4 ms in orch per second of monitoring, for three hosts. The
// server's own counters (its threads' stat and schedstat lines) and a load
// box's scan of all its processes are read with builtins too: an awk per
// sample per host (a fork and exec, ~10 ms on the lab's VM) cost the lab's
// shared cores about 3% of the servers' throughput.
//
// # CSV format
//
// Comma-separated, one header line, then one row per successful sample; a
// failed sample writes no row (its host_error event says why). Cells with a
// comma or quote are quoted per RFC 4180 (only gtid_pos can be). An empty
// cell means "no value": the server lacks the counter, it is the first row
// (rates need two samples), or the counter went backwards (a counter_reset
// event: server restart, FLUSH STATUS, RESET MASTER). Every file starts:
//
//	t           sample time, RFC 3339 UTC with milliseconds
//	elapsed_s   seconds since the monitor started (3 decimals)
//	interval_s  seconds since the host's previous row: rates are per
//	            second over this interval (about 1, more after skips,
//	            less for the last row, Stop's)
//
// mysql.csv, then (rates per second; _bps are bytes per second):
//
//	queries_ps         Questions (the monitor's own statements included)
//	com_*              Com_select (less the monitor's own SELECTs),
//	                   Com_insert, Com_update, Com_delete, Com_replace,
//	                   Com_commit, Com_rollback
//	handler_commit_ps  Handler_commit
//	innodb_*           Innodb_rows_inserted, Innodb_data_written,
//	                   Innodb_os_log_written, Innodb_data_fsyncs,
//	                   Innodb_buffer_pool_pages_flushed
//	rocksdb_*          Rocksdb_rows_inserted, Rocksdb_bytes_written,
//	                   Rocksdb_wal_bytes, Rocksdb_wal_synced
//	binlog_*           Binlog_commits, Binlog_bytes_written,
//	                   Binlog_group_commits (MariaDB)
//	tokudb_*           TokuDB's engine status (any case: Percona 5.7
//	                   upper, MariaDB 10.5 lower): FILESYSTEM_FSYNC_NUM,
//	                   FILESYSTEM_FSYNC_TIME (us), LOGGER_WRITES_BYTES,
//	                   CHECKPOINT_TAKEN, CACHETABLE_MISS, and the leaf
//	                   node bytes flushed at and between checkpoints
//	semisync_yes_tx_ps, semisync_no_tx_ps   master: commits acknowledged
//	                   by a slave / committed without one (async)
//	semisync_avg_wait_us   master: average ack wait of the interval's
//	                   commits (delta tx_wait_time / delta tx_waits)
//	gtid_tx_ps         transactions in the GTID position per second: the
//	                   master's binlog writes, a slave's applies
//	threads_running, threads_connected   gauges
//	semisync_status    the role's Rpl_semi_sync_{master,slave}_status
//	semisync_clients   master: semi-sync slaves connected
//	io_running, sql_running   slave: Slave_IO_Running, Slave_SQL_Running
//	lag_s              slave: Seconds_Behind_Master (empty when NULL). It
//	                   reads 0 on a slave whose link is down: use lag_tx
//	lag_tx             slave: transactions in the master's GTID position
//	                   that the slave has not applied (flavor.Server.GTIDGap),
//	                   the master's latest sample carried to the slave's
//	                   instant at the master's last commit rate (a slave
//	                   read before the master in the same tick is not
//	                   compared with a position an interval old). A live
//	                   figure (orch's progress lines): the report
//	                   recomputes it from gtid_pos at the slave's sample
//	                   time, the master's position interpolated there
//	gtid_pos           master: gtid_binlog_pos / gtid_executed; slave:
//	                   gtid_slave_pos / gtid_executed (applied); read last
//	                   of the sample, so the row's time is the position's
//
// Status variable names come from the flavour (orchestrator/flavor), so
// MySQL 8's Rpl_semi_sync_source_* fill the same columns.
//
// os.csv, then:
//
//	cpu_user_pct, cpu_sys_pct, cpu_iowait_pct, cpu_idle_pct, cpu_steal_pct
//	                   shares of the interval's CPU time, all CPUs (user
//	                   includes nice; sys includes irq and softirq)
//	load1, load5, load15, procs_running   /proc/loadavg
//	disk               device followed: the datadir's (sda1, vda, dm-0...),
//	                   or "all" whole real disks when it is not a block
//	                   device, or empty when there is none
//	disk_read_mbps, disk_write_mbps   10^6 bytes per second
//	disk_reads_ps, disk_writes_ps     completed I/Os per second
//	disk_util_pct      share of the interval the device was busy (averaged
//	                   over the disks for "all")
//	disk_flushes_ps    flush requests completed per second (diskstats'
//	                   16th field, kernels 5.5+; empty before): what the
//	                   host's fsyncs reach a disk with a volatile cache as
//	ncpu               CPUs the host's /proc/stat lists
//
// The server's own counters, from /proc/PID of the pid in the server's
// pid_file (asked with SHOW VARIABLES: never a process-name guess, which
// on a shared kernel finds another host's server). Empty on a host
// without a server, and for the row after a restart (a new pid):
//
//	server_pid         the pid sampled
//	server_cpu_us_ps   CPU µs per second, utime+stime of /proc/PID/stat
//	                   (1000000 = one core busy)
//	server_cs_ps       context switches (voluntary and involuntary),
//	                   summed over /proc/PID/task/*/schedstat's third
//	                   field (a thread that exits takes its count: empty
//	                   row); runs before this one had server_vcs_ps and
//	                   server_ivcs_ps, whose sum it is
//	server_read_bps, server_write_bps   bytes read from / written to
//	                   storage (/proc/PID/io read_bytes, write_bytes; the
//	                   owner's or root's to read: ssh.sudo for non-root)
//	server_syscr_ps, server_syscw_ps    read and write syscalls
//	server_threads, server_threads_runnable   threads, and those in state R
//
// A load box (role loadbox) sums the processes its /proc shows (its own
// PID namespace in the lab, the whole machine elsewhere):
//
//	client_cpu_us_ps   CPU µs per second of the benchmark clients
//	                   (sysbench, mysqlslap, mariadb-slap, db-insert)
//	box_cpu_us_ps      CPU µs per second of all its processes
//	box_tasks_runnable threads in state R: the host's own run queue
//
// Every host, what watching costs there:
//
//	sampler_cpu_us_ps  CPU µs per second of the /proc sampler itself: the
//	                   session's shell (/proc/$$/stat utime+stime) and its
//	                   reaped children (cutime+cstime: getconf, once). On hosts sharing a
//	                   kernel this is orch's own share of the machine; the
//	                   SHOW statements of the mysql side are in the server's
//	                   CPU, sshd's share of the session is not counted.
//	                   Empty for the first row of a new session
//	mem_available_mb   /proc/meminfo's MemAvailable (2^20 bytes; the
//	                   whole kernel's on hosts sharing one)
//
// # Events and stalls
//
// events.jsonl holds one {"t","host","kind","detail"} object per line (t as
// in the CSVs), in the order they were detected; see the Kind constants.
// A stall is the master making no progress (client statements, GTID
// position, semi-sync yes_tx/no_tx all frozen) for Config.StallAfter while
// the runner says the load is active (SetLoadActive). Its status flags do
// not show it: with a huge semi-sync timeout and both slaves cut off the
// master stalls with Rpl_semi_sync_master_status ON and 2 clients. A stall
// reaching Config.StallLimit calls Config.OnStall once, with a diagnosis,
// so the runner stops the run instead of hanging.
//
// # Stack samples
//
// The monitors never stop or slow a server for its stacks inside the
// measured load: the runner takes them with a Profiler in the run's
// profiling tail, after the load and the checks, under a short extra load
// no figure reads, bracketed by profile_start and profile_end events. On
// the master and the first slave: up to three gdb snapshots 2 s apart,
// each its own command so that none starts that would outlast the tail,
// each timed as the server's stop (attach to detach), or one perf record.
// stacks_start and stacks_end events bracket each host's window;
// stacks/<host>-<mode>.txt holds the raw output, stacks/<host>-<mode>.json
// the aggregated profile (orchestrator/stacks). A host without a working
// sampler gets a stacks_error event; the run goes on.
package monitor
