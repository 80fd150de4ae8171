package history

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"gopkg.in/yaml.v3"
	_ "modernc.org/sqlite" // the embedded store's driver ("sqlite")
)

// DefaultFile is the embedded store's name under the runs folder.
const DefaultFile = "history.sqlite"

// Config says which store to use: an SQLite file (Path), or a
// MariaDB/MySQL database (Address) shared by a team. It is read from a
// YAML file (LoadConfig); the password is read from PasswordFile, never
// given on a command line.
type Config struct {
	Path string `yaml:"path"`
	// Address is host:port, or the path of a server's Unix socket.
	Address      string `yaml:"address"`
	User         string `yaml:"user"`
	Database     string `yaml:"database"`
	PasswordFile string `yaml:"password_file"`
}

// LoadConfig reads a store's configuration file; an unknown key or a
// half-set server store is an error naming the file.
func LoadConfig(path string) (Config, error) {
	var c Config
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case c.Address == "" && c.Path == "":
		return c, fmt.Errorf("%s: neither path (an SQLite file) nor address (a MariaDB/MySQL server) is set", path)
	case c.Address != "" && c.Path != "":
		return c, fmt.Errorf("%s: path and address both set: one store", path)
	case c.Address != "" && (c.User == "" || c.Database == ""):
		return c, fmt.Errorf("%s: address %s needs user and database", path, c.Address)
	}
	if c.PasswordFile != "" && !filepath.IsAbs(c.PasswordFile) {
		c.PasswordFile = filepath.Join(filepath.Dir(path), c.PasswordFile)
	}
	if c.Path != "" && !filepath.IsAbs(c.Path) {
		c.Path = filepath.Join(filepath.Dir(path), c.Path)
	}
	return c, nil
}

// Open opens (creating or migrating) the store c names.
func Open(ctx context.Context, c Config) (*Store, error) {
	if c.Address != "" {
		s, err := openMySQL(c)
		if err != nil {
			return nil, err
		}
		if err := s.prepare(ctx); err != nil {
			s.db.Close()
			return nil, err
		}
		return s, nil
	}
	// SQLite answers "busy" without waiting while another process turns a
	// new file to WAL: opening is tried again, for as long as a writer
	// waits for another's transaction (TestConcurrentProcessesLoseNothing
	// met it).
	deadline := time.Now().Add(busyWait)
	for {
		s, err := openSQLite(ctx, c.Path)
		if err == nil {
			if err = s.prepare(ctx); err != nil {
				s.db.Close()
			}
		}
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return s, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// busyWait is how long a writer waits for the others.
const busyWait = 30 * time.Second

func isBusy(err error) bool {
	return strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked")
}

// sqliteMagic starts every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

func openSQLite(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("history store: no file named")
	}
	// A file that is not SQLite is refused before the driver could take
	// it for an empty database; an empty file holds nothing to lose.
	if f, err := os.Open(path); err == nil {
		head := make([]byte, len(sqliteMagic))
		n, _ := io.ReadFull(f, head)
		f.Close()
		if n > 0 && !bytes.Equal(head[:n], sqliteMagic) {
			return nil, fmt.Errorf("history store %s: not an SQLite database (damaged, or another file): nothing was changed", path)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("history store %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("history store %s: %w", path, err)
	}
	// busy_timeout: a writer waits for another's transaction instead of
	// failing; _txlock=immediate takes the write lock when a transaction
	// begins, so two writers never deadlock upgrading a read lock; WAL
	// keeps readers going while one writes.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(" + strconv.Itoa(int(busyWait.Milliseconds())) + ")&_pragma=journal_mode(WAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("history store %s: %w", path, err)
	}
	s := &Store{db: db, d: sqliteDialect, where: path}
	var check string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&check); err != nil || check != "ok" {
		db.Close()
		if err == nil {
			err = errors.New(check)
		}
		return nil, s.damaged(err)
	}
	// A database of someone else's is not ours to add tables to.
	var others []string
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'orch_history_%' AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		db.Close()
		return nil, s.damaged(err)
	}
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			others = append(others, n)
		}
	}
	rows.Close()
	if len(others) > 0 {
		db.Close()
		return nil, fmt.Errorf("history store %s: an SQLite database that is not an orch history (tables %s): nothing was changed", path, strings.Join(others, ", "))
	}
	return s, nil
}

func openMySQL(c Config) (*Store, error) {
	mc := mysql.NewConfig()
	mc.User, mc.DBName = c.User, c.Database
	mc.Net, mc.Addr = "tcp", c.Address
	if strings.HasPrefix(c.Address, "/") {
		mc.Net = "unix"
	}
	if c.PasswordFile != "" {
		pw, err := readPassword(c.PasswordFile)
		if err != nil {
			return nil, err
		}
		mc.Passwd = pw
	}
	mc.Timeout = 10 * time.Second
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, fmt.Errorf("history store %s: %w", c.Address, err)
	}
	where := fmt.Sprintf("%s@%s/%s", c.User, c.Address, c.Database)
	return &Store{db: sql.OpenDB(conn), d: mysqlDialect, where: where}, nil
}

// readPassword reads a password file, refusing one others can read.
func readPassword(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("history store password: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("history store password: %s is readable by others (mode %o): chmod 600 it", path, st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("history store password: %w", err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// lock serialises schema changes between processes: SQLite's immediate
// transaction; a named lock on a MariaDB/MySQL server (its DDL commits by
// itself, so a transaction would not hold). done ends it, keeping the
// changes when ok.
func (s *Store) lock(ctx context.Context) (execer, func(ok bool) error, error) {
	if s.d.name == "sqlite" {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return nil, nil, s.damaged(err)
		}
		return tx, func(ok bool) error {
			if ok {
				return tx.Commit()
			}
			return tx.Rollback()
		}, nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("history store %s: %w", s.where, err)
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, `SELECT GET_LOCK('orch_history_schema', 60)`).Scan(&got); err != nil || got.Int64 != 1 {
		conn.Close()
		if err == nil {
			err = errors.New("another orch held the schema lock for 60 s")
		}
		return nil, nil, fmt.Errorf("history store %s: %w", s.where, err)
	}
	return conn, func(bool) error {
		_, err := conn.ExecContext(context.WithoutCancel(ctx), `SELECT RELEASE_LOCK('orch_history_schema')`)
		return errors.Join(err, conn.Close())
	}, nil
}
