package server

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/labenv"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/topology"
)

// The lab tests run against a real MariaDB 10.11 master of an `orch lab`
// (ORCH_TEST_LAB_INVENTORY=path/to/lab.yaml) and leave it as they found it.
// They run in order: each step starts from the state the previous left.

type labMaster struct {
	inv *topology.Inventory
	n   *Node
}

func openLab(t *testing.T) *labMaster {
	t.Helper()
	path := labenv.Inventory(t)
	inv, err := topology.Load(path, topology.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The lab's hosts share one small machine: keep memory small.
	inv.Profile.Vars = map[string]string{"innodb_buffer_pool_size": "128M", "rocksdb_block_cache_size": "64M"}
	if ss := inv.Replication.SemiSync; !ss.Enabled || ss.TimeoutMs != topology.DefaultSemiSyncTimeoutMs {
		t.Fatalf("the lab inventory should have the default semi-sync settings: %+v", ss)
	}
	ctx := context.Background()
	h := inv.Master()
	ex, err := executor.Dial(ctx, h, executor.DialConfig{KnownHostsFile: inv.KnownHostsFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	n, err := Open(ctx, h, ex, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return &labMaster{inv: inv, n: n}
}

// plan renders and checks a config.
func (l *labMaster) plan(t *testing.T, d Desired) (*Config, *Plan, error) {
	t.Helper()
	tg, err := l.n.Target(context.Background(), l.inv)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Render(tg, d)
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.n.Check(context.Background(), cfg)
	return cfg, p, err
}

func (l *labMaster) apply(t *testing.T, d Desired) (*Plan, *Result, error) {
	t.Helper()
	cfg, p, err := l.plan(t, d)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	events := &step.Stream{}
	events.Subscribe(func(e step.Event) { t.Logf("  %-10s %-40s %s", e.Kind, e.Step, e.Took.Round(time.Millisecond)) })
	res, err := l.n.Apply(context.Background(), cfg, p, step.HostEvents{Stream: events, Host: "master"})
	return p, res, err
}

func (l *labMaster) vars(t *testing.T) map[string]string {
	t.Helper()
	v, err := l.n.Variables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func (l *labMaster) want(t *testing.T, name, value string) {
	t.Helper()
	if got := l.vars(t)[name]; !sameValue(value, got) {
		t.Errorf("%s = %q, want %q", name, got, value)
	}
}

func (l *labMaster) file(t *testing.T) fileState {
	t.Helper()
	st, err := l.n.readState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func (l *labMaster) uptime(t *testing.T) time.Duration {
	t.Helper()
	rows, err := l.n.db.Query(context.Background(), "SHOW GLOBAL STATUS LIKE 'Uptime'")
	if err != nil || len(rows) != 1 {
		t.Fatalf("uptime: %v %v", rows, err)
	}
	s, err := strconv.Atoi(rows[0][1])
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration(s) * time.Second
}

// foreignCnf stands for a file an admin had at orch's path before orch.
const foreignCnf = "[mysqld]\nmax_connections = 123\n"

func TestLabApplyRestore(t *testing.T) {
	l := openLab(t)
	ctx := context.Background()
	n := l.n
	if n.Facts.ConfigDir != "/etc/mysql/mariadb.conf.d" {
		t.Fatalf("config dir %q: Debian's MariaDB reads mariadb.conf.d last", n.Facts.ConfigDir)
	}
	if err := n.Exec.Upload(ctx, strings.NewReader(foreignCnf), n.configPath(), 0o644, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // whatever happens, leave the host as the lab made it
		n.Exec.Run(ctx, executor.Command{Script: "rm -f /etc/mysql/mariadb.conf.d/99-orch.cnf*", Sudo: true})
		if err := n.Restart(ctx); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	base := []KV{}
	knobs := func(kv ...KV) Desired { return Desired{Knobs: append(base, kv...)} }

	t.Run("first apply restarts", func(t *testing.T) {
		p, res, err := l.apply(t, knobs())
		if err != nil {
			t.Fatal(err)
		}
		if !p.NeedsRestart || !res.Restarted {
			t.Fatalf("log_bin and bind_address are static: want a restart, plan %+v", p)
		}
		for name, v := range map[string]string{"log_bin": "ON", "bind_address": "0.0.0.0", "server_id": "1",
			"binlog_format": "ROW", "innodb_flush_log_at_trx_commit": "2", "innodb_buffer_pool_size": "128M",
			"sync_binlog": "0", "gtid_strict_mode": "ON", "report_host": n.Host.Address, "relay_log": "relay-bin",
			"rpl_semi_sync_master_enabled": "ON", "rpl_semi_sync_master_wait_point": "AFTER_SYNC",
			"rpl_semi_sync_master_timeout": "1000000000000000000", "max_connections": "151"} {
			l.want(t, name, v)
		}
		st := l.file(t)
		if !st.owned() || !st.origExists {
			t.Errorf("want orch's file with the admin's kept as .orig: %+v", st)
		}
	})

	t.Run("same config again: no restart", func(t *testing.T) {
		before := l.uptime(t)
		time.Sleep(1100 * time.Millisecond)
		p, res, err := l.apply(t, knobs())
		if err != nil {
			t.Fatal(err)
		}
		if p.Changed() || !res.Unchanged {
			t.Fatalf("nothing changed, yet plan %+v", p)
		}
		if after := l.uptime(t); after <= before {
			t.Errorf("uptime %s -> %s: the server restarted", before, after)
		}
	})

	t.Run("dynamic knob: SET GLOBAL, no restart", func(t *testing.T) {
		before := l.uptime(t)
		base = append(base, KV{"sync_binlog", "1"})
		p, res, err := l.apply(t, knobs())
		if err != nil {
			t.Fatal(err)
		}
		if p.NeedsRestart || res.Restarted || len(res.SetGlobal) != 1 || res.SetGlobal[0] != "sync_binlog" {
			t.Fatalf("want only SET GLOBAL sync_binlog: plan %+v, result %+v", p, res)
		}
		l.want(t, "sync_binlog", "1")
		if after := l.uptime(t); after < before {
			t.Errorf("uptime %s -> %s: the server restarted", before, after)
		}
		if !strings.Contains(l.file(t).text, "\nsync_binlog = 1\n") {
			t.Errorf("sync_binlog=1 not persisted:\n%s", l.file(t).text)
		}
	})

	t.Run("static knob restarts", func(t *testing.T) {
		base = append(base, KV{"innodb_log_buffer_size", "32M"})
		p, res, err := l.apply(t, knobs())
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Static) != 1 || p.Static[0].Name != "innodb_log_buffer_size" || !res.Restarted {
			t.Fatalf("want a restart for innodb_log_buffer_size: plan %+v", p)
		}
		l.want(t, "innodb_log_buffer_size", "33554432")
		l.want(t, "sync_binlog", "1")
	})

	// MariaDB 10.8.4 and later bypass the file-system cache for the redo
	// log unless the server starts with innodb_flush_log_at_trx_commit=2,
	// which turns innodb_log_file_buffering ON (MDEV-28766); the profile's
	// =2 started this server.
	t.Run("flush setting changed by restart: the log's buffering follows", func(t *testing.T) {
		l.want(t, "innodb_flush_log_at_trx_commit", "2")
		l.want(t, "innodb_log_file_buffering", "ON")
		p, res, err := l.apply(t, knobs(KV{"innodb_flush_log_at_trx_commit", "1"}))
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Static) != 1 || p.Static[0].Name != "innodb_flush_log_at_trx_commit" || len(p.Dynamic) != 0 ||
			!strings.Contains(p.Static[0].Reason, "innodb_log_file_buffering") || !res.Restarted {
			t.Fatalf("want a restart for innodb_flush_log_at_trx_commit: plan %+v", p)
		}
		l.want(t, "innodb_flush_log_at_trx_commit", "1")
		l.want(t, "innodb_log_file_buffering", "OFF")

		// Set behind orch's back: the value is the config's, the start
		// that chose the log's buffering is not.
		if err := n.db.Exec(ctx, "SET GLOBAL innodb_flush_log_at_trx_commit = 2"); err != nil {
			t.Fatal(err)
		}
		p, res, err = l.apply(t, knobs())
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Static) != 1 || !strings.Contains(p.Static[0].Reason, "GLOBAL_VALUE_ORIGIN SQL") || !res.Restarted {
			t.Fatalf("want a restart for a value set at run time: plan %+v", p)
		}
		l.want(t, "innodb_log_file_buffering", "ON")

		// With its derived variable in the config, both are set at run
		// time.
		before := l.uptime(t)
		p, res, err = l.apply(t, knobs(KV{"innodb_flush_log_at_trx_commit", "1"}, KV{"innodb_log_file_buffering", "ON"}))
		if err != nil {
			t.Fatal(err)
		}
		if p.NeedsRestart || res.Restarted || len(res.SetGlobal) != 1 || res.SetGlobal[0] != "innodb_flush_log_at_trx_commit" {
			t.Fatalf("want only SET GLOBAL innodb_flush_log_at_trx_commit: plan %+v, result %+v", p, res)
		}
		l.want(t, "innodb_flush_log_at_trx_commit", "1")
		l.want(t, "innodb_log_file_buffering", "ON")
		if after := l.uptime(t); after < before {
			t.Errorf("uptime %s -> %s: the server restarted", before, after)
		}

		// An existing server (run time only) must be told which buffering
		// the run measures.
		_, err = n.CheckDynamic(ctx, []KV{{"innodb_flush_log_at_trx_commit", "2"}})
		if err == nil || !strings.Contains(err.Error(), "add --knob innodb_log_file_buffering=ON or OFF") {
			t.Errorf("existing server, flush setting alone: %v", err)
		}
		ch, err := n.CheckDynamic(ctx, []KV{{"innodb_flush_log_at_trx_commit", "2"}, {"innodb_log_file_buffering", "OFF"}})
		if err != nil || len(ch) != 2 {
			t.Errorf("existing server, with the buffering: changes %+v, %v", ch, err)
		}
		// Back to the profile's config for the steps after this one.
		if _, res, err := l.apply(t, knobs()); err != nil || !res.Restarted {
			t.Fatalf("back to the profile: restarted %t, %v", res != nil && res.Restarted, err)
		}
		l.want(t, "innodb_log_file_buffering", "ON")
	})

	t.Run("unknown variable rejected before writing", func(t *testing.T) {
		before := l.file(t).text
		_, _, err := l.plan(t, knobs(KV{"binlog_sync", "0"}))
		want := "master " + n.Host.Address + ": binlog_sync: no such server variable on MariaDB 10.11.19; did you mean sync_binlog?"
		if err == nil || err.Error() != want {
			t.Fatalf("error %v\nwant %s", err, want)
		}
		if l.file(t).text != before {
			t.Error("the file changed")
		}
	})

	t.Run("another flavour's variable refused, nothing changed", func(t *testing.T) {
		before, text := l.uptime(t), l.file(t).text
		tg, err := l.n.Target(context.Background(), l.inv)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Render(tg, knobs(KV{"binlog_order_commits", "OFF"}))
		if err == nil || !strings.Contains(err.Error(), "binlog_order_commits: no such variable on MariaDB 10.11") ||
			!strings.Contains(err.Error(), "--flavor mysql") {
			t.Errorf("binlog_order_commits on MariaDB: %v", err)
		}
		// An existing server is asked at run time: the same why.
		_, err = n.CheckDynamic(context.Background(), []KV{{"binlog_order_commits", "OFF"}})
		if err == nil || !strings.Contains(err.Error(), "binlog_order_commits: no such server variable on MariaDB 10.11") ||
			!strings.Contains(err.Error(), "--flavor mysql") {
			t.Errorf("existing MariaDB server, binlog_order_commits: %v", err)
		}
		if l.file(t).text != text {
			t.Error("the file changed")
		}
		if l.uptime(t) < before {
			t.Error("the server restarted")
		}
	})

	t.Run("server that will not start: rolled back", func(t *testing.T) {
		dir := t.TempDir()
		bad := "{{template \"base.cnf\" .}}\ninnodb_log_buffer_size = banana\n"
		if err := os.WriteFile(filepath.Join(dir, "innodb.cnf"), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		before := l.file(t).text
		_, _, err := l.apply(t, Desired{ProfileDir: dir})
		if err == nil {
			t.Fatal("apply succeeded with innodb_log_buffer_size = banana")
		}
		msg := err.Error()
		t.Log(msg)
		if !strings.HasPrefix(msg, "master "+n.Host.Address+": server did not start with the new config: [ERROR] ") ||
			!strings.HasSuffix(msg, " (restored the previous config)") ||
			!strings.Contains(msg, "banana") {
			t.Errorf("error: %s", msg)
		}
		if l.file(t).text != before {
			t.Error("the previous file is not back")
		}
		l.want(t, "innodb_log_buffer_size", "32M") // running on the previous config
	})

	t.Run("rocksdb profile", func(t *testing.T) {
		base = nil
		if _, _, err := l.apply(t, Desired{Engine: "rocksdb"}); err != nil {
			t.Fatal(err)
		}
		l.want(t, "default_storage_engine", "ROCKSDB")
		l.want(t, "rocksdb_block_cache_size", "64M")
		l.want(t, "rocksdb_flush_log_at_trx_commit", "2")
		l.want(t, "sync_binlog", "0")
	})

	t.Run("tokudb is not available on MariaDB", func(t *testing.T) {
		tg, err := l.n.Target(ctx, l.inv)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Render(tg, Desired{Engine: "tokudb"})
		want := "master " + n.Host.Address + ": tokudb is not available on MariaDB 10.11.19 (removed in 10.6); engines: innodb, rocksdb, "
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("error %v\nwant prefix %s", err, want)
		}
	})

	t.Run("restore", func(t *testing.T) {
		res, err := n.Restore(ctx, step.HostEvents{})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Restarted {
			t.Error("no restart")
		}
		if st := l.file(t); st.text != foreignCnf || st.origExists {
			t.Errorf("want the admin's file back and no .orig: %+v", st)
		}
		l.want(t, "bind_address", "127.0.0.1")
		l.want(t, "log_bin", "OFF")
		l.want(t, "max_connections", "123")
		l.want(t, "default_storage_engine", "InnoDB")
		res, err = n.Restore(ctx, step.HostEvents{})
		if err != nil || !res.Unchanged {
			t.Errorf("second restore: %+v, %v", res, err)
		}
	})
}
