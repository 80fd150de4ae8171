package server

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/mysqlconn"
	"github.com/orch-bench/orch/orchestrator/sqlrows"
	"github.com/orch-bench/orch/topology"
)

// Bounds for remote work: none may hang a command.
const (
	commandTimeout = 30 * time.Second
	// DefaultStartTimeout covers crash recovery (12 s seen in the lab
	// after a kill -9 under load) with a wide margin.
	DefaultStartTimeout = 3 * time.Minute
)

// Node is one database host orch configures: its command channel, a
// connection pool to its server, and what was learned about both.
type Node struct {
	Host *topology.Host
	Exec executor.Executor
	// DB stays valid across restarts: its idle connections are dropped and
	// new ones dialled once the server is back.
	DB     *sql.DB
	Server flavor.Server
	Facts  Facts
	// StartTimeout bounds a server start (default DefaultStartTimeout).
	StartTimeout time.Duration

	db sqlrows.Session
}

// Facts are what Open learns about a host and its server.
type Facts struct {
	Datadir   string
	PluginDir string
	// ErrorLog is the server's error log file ("" when it logs elsewhere).
	ErrorLog string
	// ConfigDir is where orch's file goes: mysql.config_dir, else the
	// include directory the server's option files read last.
	ConfigDir string
	// ConfigFile is orch's file in ConfigDir: FileName, or FileNameLate
	// where the package's fragments sort after FileName.
	ConfigFile string
	// PrintDefaults is the command that shows the options mysqld will
	// read (my_print_defaults --mysqld).
	PrintDefaults string
	Service       Service
	// THP is the selected transparent huge pages mode for enabled and
	// defrag ("" when the kernel has none).
	THPEnabled, THPDefrag string
	// PluginFiles are the engine plugin libraries present in PluginDir.
	PluginFiles []string
	// Preloads maps a library an engine needs preloaded (its soname
	// prefix, libjemalloc.so) to its path on the host.
	Preloads map[string]string
	// UnitEnv is the systemd unit's Environment= ("" without systemd);
	// DropIn is orch's drop-in for the unit ("" when there is none).
	UnitEnv, DropIn string
}

// Opener opens a connection pool to h's server over ex. The nil Opener
// goes through ex's own tunnel (mysqlconn.Open); tests put a simulated
// server here.
type Opener func(ctx context.Context, h *topology.Host, ex executor.Executor) (*sql.DB, error)

func (o Opener) open(ctx context.Context, h *topology.Host, ex executor.Executor) (*sql.DB, error) {
	if o != nil {
		return o(ctx, h, ex)
	}
	d, ok := ex.(mysqlconn.Dialer)
	if !ok {
		return nil, fmt.Errorf("%s: executor %T cannot open MySQL connections", h, ex)
	}
	return mysqlconn.Open(ctx, d, h)
}

// Open connects to the host's server through ex with open (nil: ex's own
// tunnel, which the SSH and local executors can dial), detects the server,
// and probes the host: service manager, include directory, engine plugins.
func Open(ctx context.Context, h *topology.Host, ex executor.Executor, open Opener) (*Node, error) {
	db, err := open.open(ctx, h, ex)
	if err != nil {
		return nil, err
	}
	n := &Node{Host: h, Exec: ex, DB: db, db: dbConn{db}}
	if err := n.detect(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return n, nil
}

// String names the node the way errors do: "slave1 10.0.0.2".
func (n *Node) String() string {
	if n == nil || n.Host == nil {
		return "<unknown host>"
	}
	return n.Host.String()
}

// Close closes the connection pool (not the executor, which the caller owns).
func (n *Node) Close() error {
	if n.DB != nil {
		return n.DB.Close()
	}
	return nil
}

func (n *Node) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: "+format, append([]any{n.Host}, args...)...)
}

// detect identifies the server and probes the host.
func (n *Node) detect(ctx context.Context) error {
	rows, err := n.db.Query(ctx, "SELECT VERSION(), @@version_comment, @@datadir, @@plugin_dir, @@log_error")
	if err != nil || len(rows) != 1 || len(rows[0]) != 5 {
		return n.errorf("detect server: %v", orNoRow(err))
	}
	r := rows[0]
	if n.Server, err = flavor.Detect(r[0], r[1]); err != nil {
		return n.errorf("%w", err)
	}
	m := n.Host.MySQL
	n.Facts.Datadir = firstSet(m.Datadir, r[2])
	n.Facts.PluginDir = r[3]
	n.Facts.ErrorLog = errorLogPath(m.ErrorLog, r[4], n.Facts.Datadir)
	return n.probe(ctx)
}

func orNoRow(err error) error {
	if err == nil {
		return fmt.Errorf("unexpected result")
	}
	return err
}

// Target describes the connected host for Render.
func (n *Node) Target(ctx context.Context, inv *topology.Inventory) (Target, error) {
	engines, err := n.engines(ctx)
	if err != nil {
		return Target{}, err
	}
	var have []string
	for _, e := range engines {
		have = append(have, e.name)
	}
	return Target{Host: n.Host, Inventory: inv, Server: n.Server, ConfigDir: n.Facts.ConfigDir,
		ConfigFile: n.Facts.ConfigFile, Datadir: n.Facts.Datadir, Engines: orderEngines(have), PluginFiles: n.Facts.PluginFiles}, nil
}

// Variables returns SHOW GLOBAL VARIABLES, names in lower case.
func (n *Node) Variables(ctx context.Context) (map[string]string, error) {
	rows, err := n.db.Query(ctx, "SHOW GLOBAL VARIABLES")
	if err != nil {
		return nil, n.errorf("show variables: %w", err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		if len(r) == 2 {
			out[strings.ToLower(r[0])] = r[1]
		}
	}
	return out, nil
}

// engineState is one row of SHOW ENGINES that the server can use.
type engineState struct {
	name    string // lower case
	support string // YES or DEFAULT
}

// engines lists the engines the server can use now.
func (n *Node) engines(ctx context.Context) ([]engineState, error) {
	rows, err := n.db.Query(ctx, "SELECT ENGINE, SUPPORT FROM information_schema.ENGINES")
	if err != nil {
		return nil, n.errorf("engines: %w", err)
	}
	var out []engineState
	for _, r := range rows {
		if len(r) == 2 && (strings.EqualFold(r[1], "YES") || strings.EqualFold(r[1], "DEFAULT")) {
			out = append(out, engineState{strings.ToLower(r[0]), strings.ToUpper(r[1])})
		}
	}
	return out, nil
}

// dbConn is a Node's SQL through its pool, each statement under
// commandTimeout. The statements orch runs through it (INSTALL PLUGIN)
// need no shared session. Paths no lab can run (TokuDB on Percona 5.7,
// MySQL 8) are tested with a recording fake in its place.
type dbConn struct{ db *sql.DB }

func (c dbConn) Query(ctx context.Context, q string) ([][]string, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	t, err := sqlrows.Query(ctx, c.db, q)
	return t.Strings(), err
}

func (c dbConn) Exec(ctx context.Context, stmts ...string) error {
	for _, stmt := range stmts {
		ctx, cancel := context.WithTimeout(ctx, commandTimeout)
		_, err := c.db.ExecContext(ctx, stmt)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}
