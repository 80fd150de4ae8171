package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/orch-bench/orch/internal/privatemariadb"
)

// privateMariaDB starts a private MariaDB (internal/privatemariadb) and
// names it as a store's configuration: the server store is tested
// against it for real.
func privateMariaDB(t *testing.T) Config {
	t.Helper()
	m := privatemariadb.Start(t, false)
	return Config{Address: m.Socket, User: m.User, Database: m.Database, PasswordFile: m.PasswordFile}
}

// One MariaDB for the server store's tests (it takes seconds to start).
func TestMariaDBStore(t *testing.T) {
	c := privateMariaDB(t)
	ctx := context.Background()

	t.Run("created, recorded once, read back", func(t *testing.T) {
		s, err := Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.Version != SchemaVersion {
			t.Errorf("schema version %d, want %d", s.Version, SchemaVersion)
		}
		es := entries("m", 6, func(i int) float64 { return float64(1000 + i) })
		for i := 0; i < 2; i++ {
			n, err := s.Record(ctx, es)
			if err != nil || n != []int{6, 0}[i] {
				t.Fatalf("record %d: %d, %v", i+1, n, err)
			}
		}
		got, err := s.Entries(ctx, Filter{Workload: "pure-random-writes"})
		if err != nil || len(got) != 6 || got[5].Value != 1005 || got[5].Identity != es[5].Identity {
			t.Fatalf("read back %d: %v", len(got), err)
		}
	})

	t.Run("two writers at once lose nothing", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Open(ctx, c) // each its own connections, as two orch processes
				if err != nil {
					errs <- err
					return
				}
				defer s.Close()
				es := entries(fmt.Sprintf("w%d", w), 30, func(i int) float64 { return float64(i) })
				for i := range es {
					if _, err := s.Record(ctx, es[i:i+1]); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		s, err := Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got, _ := s.Entries(ctx, Filter{})
		if len(got) != 6+60 {
			t.Fatalf("%d runs, want 66", len(got))
		}
	})

	t.Run("a newer schema is refused and left alone", func(t *testing.T) {
		s, err := Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.Exec(`UPDATE orch_history_meta SET value = '7' WHERE name = 'schema_version'`); err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err = Open(ctx, c)
		if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "orch@"+c.Address+"/orch_history") {
			t.Fatalf("newer schema: %v", err)
		}
	})

	t.Run("a password file others can read is refused", func(t *testing.T) {
		loose := filepath.Join(t.TempDir(), "pw")
		os.WriteFile(loose, []byte("x"), 0o644)
		bad := c
		bad.PasswordFile = loose
		if _, err := Open(ctx, bad); err == nil || !strings.Contains(err.Error(), "readable by others") {
			t.Fatalf("loose password file: %v", err)
		}
	})

	// Last: it replaces the store by one of schema version 1 (the tables
	// are the test's own, in the private server's database).
	t.Run("a version 1 store is migrated to 2, its rows kept", func(t *testing.T) {
		s, err := openMySQL(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{`DROP TABLE orch_history_runs`, `DROP TABLE orch_history_meta`,
			`CREATE TABLE orch_history_meta (name VARCHAR(64) NOT NULL PRIMARY KEY, value VARCHAR(255) NOT NULL)` + mysqlDialect.tableTail} {
			if _, err := s.db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.migrate(ctx, s.db, 1); err != nil {
			t.Fatal(err)
		}
		if n, err := s.Record(ctx, entries("v1", 3, func(i int) float64 { return float64(10 + i) })); err != nil || n != 3 {
			t.Fatalf("recording in the version 1 store: %d, %v", n, err)
		}
		indexes := func() int {
			var n int
			if err := s.db.QueryRow(`SELECT count(*) FROM information_schema.statistics WHERE table_schema = DATABASE()
				AND table_name = 'orch_history_runs' AND index_name = 'orch_history_runs_workload'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := indexes(); n != 0 {
			t.Fatalf("a version 1 store with version 2's index (%d columns)", n)
		}
		m, err := Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		var v string
		if err := m.db.QueryRow(`SELECT value FROM orch_history_meta WHERE name = 'schema_version'`).Scan(&v); err != nil || v != "2" || m.Version != 2 {
			t.Errorf("after opening: schema_version %q (%v), Version %d; want 2", v, err, m.Version)
		}
		// The index of version 2: (workload, started).
		if n := indexes(); n != 2 {
			t.Errorf("version 2's index has %d columns, want 2 (workload, started)", n)
		}
		got, err := m.Entries(ctx, Filter{})
		if err != nil || len(got) != 3 || got[2].Value != 12 {
			t.Errorf("after the migration: %d rows (%v), want the 3 recorded", len(got), err)
		}
		s.db.Close()
	})
}
