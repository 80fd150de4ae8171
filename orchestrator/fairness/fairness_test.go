package fairness

import (
	"fmt"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// labVars are a lab host's variables as SHOW VARIABLES printed them in the
// issue's unfair demo (MariaDB 10.11, innodb and rocksdb profiles of
// before the fix), written out by hand.
func labVars(over map[string]string) map[string]string {
	v := map[string]string{
		"innodb_flush_log_at_trx_commit": "2", "innodb_doublewrite": "ON", "innodb_flush_method": "O_DIRECT",
		"innodb_buffer_pool_size": "134217728", "rocksdb_flush_log_at_trx_commit": "1",
		"rocksdb_block_cache_size": "67108864", "rocksdb_use_direct_reads": "OFF",
		"rocksdb_use_direct_io_for_flush_and_compaction": "OFF", "sync_binlog": "0", "binlog_format": "ROW",
		"gtid_pos_auto_engines": "", "rpl_semi_sync_master_wait_point": "AFTER_SYNC",
	}
	for k, x := range over {
		v[k] = x
	}
	return v
}

func cluster(label, engine string, over map[string]string) Config {
	c := Config{Label: label, Engine: engine}
	for _, h := range []struct{ name, role string }{{"master", "master"}, {"slave1", "slave"}, {"slave2", "slave"}} {
		c.Hosts = append(c.Hosts, Host{Name: h.name, Role: h.role, Vars: labVars(over), MemoryBytes: 24105 << 20})
	}
	return c
}

func TestLintUnfairRocksdbProfile(t *testing.T) {
	// The rocksdb cells: InnoDB at its default 1, RocksDB flushing as the
	// InnoDB profile does (2), gtid_slave_pos left in InnoDB, and a 64M
	// block cache against InnoDB's 128M buffer pool.
	inno := cluster("innodb", "innodb", nil)
	rocks := cluster("rocksdb", "rocksdb", map[string]string{"innodb_flush_log_at_trx_commit": "1", "rocksdb_flush_log_at_trx_commit": "2"})
	ws := Lint([]Config{inno, rocks}, nil)
	got := map[string]int{}
	for _, w := range ws {
		got[w.Host+" "+w.What]++
	}
	for _, want := range []string{"slave1, slave2 replica side tables (applied position)",
		"master, slave1, slave2 cache of the engine under test"} {
		if got[want] != 1 {
			t.Errorf("no warning %q in %v", want, ws)
		}
	}
	// Both engines under test write at each commit and fsync once a
	// second: their own flush policies match.
	if got["master flush policy of the engine under test"] != 0 {
		t.Errorf("flush policies 2 and 2 flagged: %v", ws)
	}
	if !HasDurability(ws) {
		t.Error("side tables fsynced by InnoDB on one side only are a durability asymmetry")
	}
	var side string
	for _, w := range ws {
		if w.Kind == Durability {
			side = w.String()
		}
	}
	want := "slave1, slave2: replica side tables (applied position) differs (durability): innodb: mysql.gtid_slave_pos in innodb (gtid_pos_auto_engines='') vs " +
		"rocksdb: mysql.gtid_slave_pos in innodb (gtid_pos_auto_engines=''), innodb_flush_log_at_trx_commit=1 (fsync at each commit)"
	if side != want {
		t.Errorf("warning =\n %q, want\n %q", side, want)
	}
}

func TestLintFixedProfilesAreFair(t *testing.T) {
	inno := cluster("innodb", "innodb", map[string]string{"rocksdb_block_cache_size": "134217728"})
	rocks := cluster("rocksdb", "rocksdb", map[string]string{"rocksdb_flush_log_at_trx_commit": "2",
		"gtid_pos_auto_engines": "rocksdb", "rocksdb_block_cache_size": "134217728",
		"rocksdb_use_direct_reads": "ON", "rocksdb_use_direct_io_for_flush_and_compaction": "ON"})
	if ws := Lint([]Config{inno, rocks}, nil); len(ws) != 0 {
		t.Errorf("fixed profiles: %v", ws)
	}
	// Buffered RocksDB against O_DIRECT InnoDB is an IO asymmetry.
	rocks.Hosts[0].Vars["rocksdb_use_direct_reads"] = "OFF"
	ws := Lint([]Config{inno, rocks}, nil)
	if len(ws) != 1 || ws[0].Kind != IO || !strings.Contains(ws[0].String(), "(direct) vs rocksdb: rocksdb_use_direct_reads=OFF") {
		t.Errorf("partly direct rocksdb: %v", ws)
	}
}

func TestLintAxesAndPlainVariables(t *testing.T) {
	a := cluster("innodb sync_binlog=0", "innodb", nil)
	b := cluster("innodb sync_binlog=1", "innodb", map[string]string{"sync_binlog": "1"})
	if ws := Lint([]Config{a, b}, []string{"sync_binlog"}); len(ws) != 0 {
		t.Errorf("a difference on the axis is the point: %v", ws)
	}
	ws := Lint([]Config{a, b}, nil)
	if len(ws) != 1 || ws[0].What != "sync_binlog" || ws[0].Host != "master, slave1, slave2" || !HasDurability(ws) {
		t.Errorf("sync_binlog off the axes: %v", ws)
	}
	// Doublewrite and direct IO, InnoDB under test on both sides.
	c := cluster("innodb dw", "innodb", map[string]string{"innodb_doublewrite": "OFF", "innodb_flush_method": "fsync"})
	kinds := map[Kind]int{}
	for _, w := range Lint([]Config{a, c}, nil) {
		kinds[w.Kind]++
	}
	if kinds[Durability] != 1 || kinds[IO] != 1 {
		t.Errorf("doublewrite and flush method: %v", kinds)
	}
}

func TestLintIdleTokuDBCache(t *testing.T) {
	// A loaded TokuDB with tokudb_cache_size=0 takes half the RAM while
	// InnoDB is under test (Percona, 2016-03-22).
	c := cluster("innodb", "innodb", map[string]string{"tokudb_cache_size": "0", "tokudb_commit_sync": "ON"})
	ws := Lint([]Config{c}, nil)
	if len(ws) != 1 || ws[0].Kind != Caching || !strings.Contains(ws[0].String(), "tokudb_cache_size=0 (half the RAM, 12053M), 50.0% of RAM") {
		t.Errorf("idle TokuDB: %v", ws)
	}
}

func TestEffectiveDefaults(t *testing.T) {
	// The rocksdb profile before the fix rendered only its own settings:
	// the rest are MariaDB's defaults.
	mariadb := flavor.Server{Flavor: flavor.MariaDB, Version: flavor.V(10, 11, 19)}
	v := Effective(mariadb, "rocksdb", map[string]string{"rocksdb_flush_log_at_trx_commit": "2", "loose-rocksdb_block_cache_size": "64M"})
	if v["innodb_flush_log_at_trx_commit"] != "1" || v["gtid_pos_auto_engines"] != "" || v["rocksdb_block_cache_size"] != "64M" {
		t.Errorf("effective = %v", v)
	}
	if _, ok := Effective(mariadb, "innodb", nil)["rocksdb_block_cache_size"]; ok {
		t.Error("an engine neither under test nor configured has no defaults to lint")
	}
	for in, want := range map[string]float64{"134217728": 134217728, "128M": 128 << 20, "4G": 4 << 30, "512k": 512 << 10} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %v, %v", in, got, err)
		}
	}
}

func TestLintKnobOfOneEngine(t *testing.T) {
	// Both profiles write at each commit and fsync once a second; the knob
	// --knobs innodb_flush_log_at_trx_commit=1 reaches both servers, but
	// only InnoDB under test takes it as its commit policy.
	knob := fixed(map[string]string{"innodb_flush_log_at_trx_commit": "1"})
	inno := cluster("innodb k=1", "innodb", knob)
	rocks := cluster("rocksdb k=1", "rocksdb", knob)
	ws := Lint([]Config{inno, rocks}, []string{"innodb_flush_log_at_trx_commit"})
	w, refused := Refusal(ws)
	if !refused || w.Kind != Durability || w.Knob == nil || w.What != "flush policy of the engine under test" {
		t.Fatalf("knob of one engine: %v", ws)
	}
	k := w.Knob
	if strings.Join(k.Knobs, ",") != "innodb_flush_log_at_trx_commit=1" || strings.Join(k.Set, ",") != "innodb" ||
		strings.Join(k.Unset, ",") != "rocksdb" || strings.Join(k.Counterparts, ",") != "rocksdb_flush_log_at_trx_commit" {
		t.Errorf("cause = %+v", k)
	}
	want := "--knobs innodb_flush_log_at_trx_commit=1 changes the durability of innodb and not of rocksdb " +
		"(rocksdb keeps rocksdb_flush_log_at_trx_commit=2 (written at each commit, fsync about once a second) on master, slave1, slave2): " +
		"give rocksdb the same with rocksdb_flush_log_at_trx_commit in --knobs, or pass --allow-asymmetry"
	if got := k.Line(w); got != want {
		t.Errorf("line =\n %q, want\n %q", got, want)
	}
	if !strings.HasSuffix(w.String(), "[--knobs innodb_flush_log_at_trx_commit=1 reaches innodb, not rocksdb]") {
		t.Errorf("warning = %q", w)
	}

	// The reverse, and a cache and direct IO of one engine: refused
	// although caching and IO differences of the profiles only warn.
	for _, c := range []struct {
		knob, value string
		kind        Kind
		set         string
	}{
		{"rocksdb_flush_log_at_trx_commit", "1", Durability, "rocksdb"},
		{"innodb_buffer_pool_size", "1073741824", Caching, "innodb"},
		{"rocksdb_use_direct_reads", "ON", IO, "rocksdb"},
	} {
		over := fixed(map[string]string{c.knob: c.value})
		if c.knob == "rocksdb_use_direct_reads" { // both buffered, then rocksdb partly direct
			over = fixed(map[string]string{c.knob: c.value, "rocksdb_use_direct_io_for_flush_and_compaction": "OFF", "innodb_flush_method": "fsync"})
		}
		ws := Lint([]Config{cluster("innodb", "innodb", over), cluster("rocksdb", "rocksdb", over)}, []string{c.knob})
		w, refused := Refusal(ws)
		if !refused || w.Kind != c.kind || w.Knob == nil || w.Knob.Set[0] != c.set {
			t.Errorf("--knobs %s=%s: %v", c.knob, c.value, ws)
		}
	}

	// Given to both engines alike, or on an axis whose values differ
	// between the configurations compared, it is fair.
	both := fixed(map[string]string{"innodb_flush_log_at_trx_commit": "1", "rocksdb_flush_log_at_trx_commit": "1"})
	if ws := Lint([]Config{cluster("innodb", "innodb", both), cluster("rocksdb", "rocksdb", both)},
		[]string{"innodb_flush_log_at_trx_commit", "rocksdb_flush_log_at_trx_commit"}); len(ws) != 0 {
		t.Errorf("both engines at 1: %v", ws)
	}
	two := fixed(nil)
	ws = Lint([]Config{inno, cluster("innodb k=2", "innodb", two), rocks, cluster("rocksdb k=2", "rocksdb", two)},
		[]string{"innodb_flush_log_at_trx_commit"})
	if len(ws) != 1 || len(ws[0].Values) != 2 || !strings.HasPrefix(ws[0].Values[0], "innodb k=1: ") ||
		!strings.HasPrefix(ws[0].Values[1], "rocksdb k=1: ") {
		t.Errorf("axis 1,2: only the k=1 pair differs: %v", ws)
	}
	// A profile asymmetry is not the knob's.
	if w := Lint([]Config{cluster("a", "innodb", nil), cluster("b", "innodb", map[string]string{"sync_binlog": "1"})}, nil); len(w) != 1 || w[0].Knob != nil {
		t.Errorf("profile difference: %v", w)
	}
}

// fixed are the fair profiles' variables (both engines write at each
// commit and fsync once a second, 128M caches, direct IO, the replicas'
// position in the engine under test), with over.
func fixed(over map[string]string) map[string]string {
	v := map[string]string{"innodb_flush_log_at_trx_commit": "2", "rocksdb_flush_log_at_trx_commit": "2",
		"gtid_pos_auto_engines": "rocksdb", "rocksdb_block_cache_size": "134217728",
		"rocksdb_use_direct_reads": "ON", "rocksdb_use_direct_io_for_flush_and_compaction": "ON"}
	for k, x := range over {
		v[k] = x
	}
	return v
}

// The seed's TokuDB question on MariaDB 10.5 (the TokuDB lab): its own
// profiles write InnoDB's log at each commit and fsync it once a second
// (=2) against TokuDB's log kept in the server until its fsync every
// 1000 ms (commit_sync ON does nothing while tokudb_fsync_log_period is
// above 0: hatoku_hton.cc's tokudb_sync_on_commit) — unfair;
// asked with both logs written and synced once a second (InnoDB =0,
// TokuDB commit_sync OFF every 1000 ms), the engines are equally durable,
// and so are the replicas' positions, which stay in InnoDB at =0 on the
// TokuDB side (MariaDB keeps gtid_slave_pos in InnoDB unless
// gtid_pos_auto_engines names TokuDB).
func TestLintTokuDBDurability(t *testing.T) {
	toku := map[string]string{"tokudb_commit_sync": "ON", "tokudb_fsync_log_period": "1000", "tokudb_cache_size": "134217728",
		"tokudb_directio": "ON", "innodb_flush_log_at_trx_commit": "1"}
	seed := Lint([]Config{cluster("innodb", "innodb", nil), cluster("tokudb", "tokudb", toku)}, nil)
	if !HasDurability(seed) {
		t.Errorf("the seed's profiles (InnoDB =2, TokuDB commit_sync ON every 1000 ms) are not flagged: %v", seed)
	}
	if s := fmt.Sprint(seed); !strings.Contains(s, "tokudb_commit_sync=ON tokudb_fsync_log_period=1000 (written and fsynced about once a second)") {
		t.Errorf("TokuDB's period not taken over commit_sync: %s", s)
	}
	// Only with the period at 0 does commit_sync=ON fsync at each commit.
	perCommit := Lint([]Config{cluster("innodb", "innodb", map[string]string{"innodb_flush_log_at_trx_commit": "1"}),
		cluster("tokudb", "tokudb", map[string]string{"tokudb_commit_sync": "ON", "tokudb_fsync_log_period": "0", "innodb_flush_log_at_trx_commit": "1"})}, nil)
	if s := fmt.Sprint(perCommit); strings.Contains(s, "flush policy") {
		t.Errorf("InnoDB =1 against TokuDB commit_sync ON, period 0 (both fsync at each commit) flagged: %s", s)
	}
	aligned := map[string]string{"innodb_flush_log_at_trx_commit": "0", "tokudb_commit_sync": "OFF"}
	for k, v := range toku {
		if _, set := aligned[k]; !set {
			aligned[k] = v
		}
	}
	fair := Lint([]Config{cluster("innodb", "innodb", map[string]string{"innodb_flush_log_at_trx_commit": "0"}),
		cluster("tokudb", "tokudb", aligned)}, nil)
	if HasDurability(fair) {
		t.Errorf("InnoDB =0 against TokuDB commit_sync OFF every 1000 ms flagged as unequally durable: %v", fair)
	}
	// With InnoDB left at =1 on the TokuDB side, each applied transaction
	// also fsyncs InnoDB's log for the position: a different replica.
	aligned["innodb_flush_log_at_trx_commit"] = "1"
	side := Lint([]Config{cluster("innodb", "innodb", map[string]string{"innodb_flush_log_at_trx_commit": "0"}),
		cluster("tokudb", "tokudb", aligned)}, nil)
	found := false
	for _, w := range side {
		found = found || w.What == "replica side tables (applied position)"
	}
	if !found {
		t.Errorf("the TokuDB replicas' position fsynced by InnoDB at each commit is not flagged: %v", side)
	}
}
