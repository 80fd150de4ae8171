package replication

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/internal/sqlfake"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// my84 is a MySQL 8.4 server written from the 8.4 manual and release notes,
// independently of the flavour table: 8.4.0 removed SHOW MASTER STATUS,
// CHANGE MASTER TO, START/STOP/RESET SLAVE, SHOW SLAVE STATUS and RESET
// MASTER (ERROR 1064), and with the semisync_source/semisync_replica
// plugins only the rpl_semi_sync_source_* and _replica_* names exist (the
// old names are not aliases: ERROR 1193).
type my84 struct {
	lab  *my84Lab
	addr string

	vars     map[string]string
	status   map[string]string
	plugins  map[string]bool
	users    map[string]bool
	executed int // transactions in gtid_executed (one source UUID)
	source   string
	ioOn     bool
	sqlOn    bool
	tokens   map[string]bool
	canary   bool
	log      []string
}

type my84Lab struct {
	mu      sync.Mutex
	servers []*my84
}

const uuid84 = "3e11fa47-71ca-11e1-9e33-c80aa9429562"

var (
	removed84 = regexp.MustCompile(`^(SHOW MASTER STATUS|CHANGE MASTER TO|START SLAVE|STOP SLAVE|RESET SLAVE|SHOW SLAVE STATUS|RESET MASTER)\b`)
	userVar84 = regexp.MustCompile(`^SET @(\w+) = @@GLOBAL\.(\w+)$`)
	install84 = regexp.MustCompile(`^INSTALL PLUGIN (\w+) SONAME '(\w+\.so)'$`)
	setVar84  = regexp.MustCompile(`^SET GLOBAL (\w+) = '?([^']*)'?$`)
	change84  = regexp.MustCompile(`^CHANGE REPLICATION SOURCE TO SOURCE_HOST = '([^']+)', SOURCE_PORT = 3306, SOURCE_USER = 'repl', SOURCE_PASSWORD = '(?:[^']|'')*', SOURCE_CONNECT_RETRY = \d+, SOURCE_AUTO_POSITION = 1, GET_SOURCE_PUBLIC_KEY = 1$`)
	quoted84  = regexp.MustCompile(`'((?:[^']|'')*)'`)
)

func err84(n uint16, msg string) error { return &mysql.MySQLError{Number: n, Message: msg} }

func (s *my84) gtidSet() string {
	if s.executed == 0 {
		return ""
	}
	return fmt.Sprintf("%s:1-%d", uuid84, s.executed)
}

func (s *my84) names(q string) []string {
	var out []string
	for _, m := range quoted84.FindAllStringSubmatch(q, -1) {
		out = append(out, m[1])
	}
	return out
}

func pairs(m map[string]string, want []string) sqlfake.Result {
	r := sqlfake.Result{Cols: []string{"Variable_name", "Value"}}
	for _, n := range want {
		if v, ok := m[n]; ok {
			r.Rows = append(r.Rows, []any{n, v})
		}
	}
	return r
}

func one84(col string, v any) sqlfake.Result {
	return sqlfake.Result{Cols: []string{col}, Rows: [][]any{{v}}}
}

// handle runs q in session c (its sql_log_bin and user variables).
func (s *my84) handle(q string, c *my84Conn) (sqlfake.Result, error) {
	binlog := &c.binlog
	s.lab.mu.Lock()
	defer s.lab.mu.Unlock()
	s.log = append(s.log, q)
	none := sqlfake.Result{}
	switch {
	case removed84.MatchString(q):
		return none, err84(1064, "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '"+q+"'")
	case q == "SET SESSION sql_log_bin = 0", q == "SET SESSION sql_log_bin = 1":
		*binlog = strings.HasSuffix(q, "1")
	case strings.HasPrefix(q, "SET SESSION sql_log_off = "), strings.HasPrefix(q, "SET SESSION long_query_time = "):
	case strings.HasPrefix(q, "SELECT 1 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = "):
		if s.plugins[s.names(q)[0]] {
			return sqlfake.Result{Cols: []string{"1"}}, nil
		}
		return one84("1", "1"), nil
	case userVar84.MatchString(q):
		m := userVar84.FindStringSubmatch(q)
		if c.user == nil {
			c.user = map[string]string{}
		}
		c.user[m[1]] = s.vars[m[2]]
	case install84.MatchString(q):
		m := install84.FindStringSubmatch(q)
		if s.vars["super_read_only"] == "ON" {
			// INSTALL PLUGIN writes mysql.plugin.
			return none, err84(1290, "The MySQL server is running with the --super-read-only option so it cannot execute this statement")
		}
		switch m[1] + " " + m[2] {
		case "rpl_semi_sync_source semisync_source.so":
			s.vars["rpl_semi_sync_source_enabled"], s.vars["rpl_semi_sync_source_timeout"] = "OFF", "10000"
			s.vars["rpl_semi_sync_source_wait_point"], s.vars["rpl_semi_sync_source_wait_for_replica_count"] = "AFTER_SYNC", "1"
		case "rpl_semi_sync_replica semisync_replica.so":
			s.vars["rpl_semi_sync_replica_enabled"] = "OFF"
		default:
			return none, err84(1126, "Can't open shared library '"+m[2]+"'")
		}
		s.plugins[m[1]] = true
	case setVar84.MatchString(q):
		m := setVar84.FindStringSubmatch(q)
		if _, ok := s.vars[m[1]]; !ok {
			return none, err84(1193, "Unknown system variable '"+m[1]+"'")
		}
		v := m[2]
		if name, ok := strings.CutPrefix(v, "@"); ok {
			v = c.user[name]
		}
		s.vars[m[1]] = v
	case strings.HasPrefix(q, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ("):
		return pairs(s.vars, s.names(q)), nil
	case strings.HasPrefix(q, "SHOW GLOBAL STATUS WHERE Variable_name IN ("):
		return pairs(s.semiStatus(), s.names(q)), nil
	case strings.HasPrefix(q, "SELECT 1 FROM mysql.user WHERE User = "):
		if n := s.names(q); s.users[n[0]+"@"+n[1]] {
			return one84("1", "1"), nil
		}
		return sqlfake.Result{Cols: []string{"1"}}, nil
	case strings.HasPrefix(q, "CREATE USER IF NOT EXISTS "):
		n := s.names(q)
		s.users[n[0]+"@"+n[1]] = true
		s.commit(*binlog)
	case strings.HasPrefix(q, "ALTER USER "), strings.HasPrefix(q, "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO "):
		s.commit(*binlog)
	case q == "SHOW REPLICA STATUS":
		return s.replicaStatus(), nil
	case q == "STOP REPLICA":
		s.ioOn, s.sqlOn = false, false
	case q == "RESET REPLICA ALL":
		s.source = ""
	case q == "RESET BINARY LOGS AND GTIDS":
		s.executed = 0
	case change84.MatchString(q):
		s.source = change84.FindStringSubmatch(q)[1]
	case q == "START REPLICA", q == "START REPLICA IO_THREAD":
		if s.source == "" {
			return none, err84(13117, "Replica failed to initialize applier metadata structure from the repository")
		}
		s.ioOn, s.sqlOn = true, true
	case q == "STOP REPLICA IO_THREAD":
		s.ioOn = false
	case q == "SELECT VERSION(), @@version_comment, @@GLOBAL.read_only, @@GLOBAL.default_storage_engine":
		return sqlfake.Result{Cols: []string{"VERSION()", "@@version_comment", "@@GLOBAL.read_only", "@@GLOBAL.default_storage_engine"},
			Rows: [][]any{{"8.4.3", "MySQL Community Server - GPL", "0", "InnoDB"}}}, nil
	case q == "SELECT @@GLOBAL.gtid_executed":
		return one84("@@GLOBAL.gtid_executed", s.gtidSet()), nil
	case strings.HasPrefix(q, "SELECT WAIT_FOR_EXECUTED_GTID_SET("):
		return one84("r", "0"), nil
	case strings.HasPrefix(q, "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'orch'"):
		if s.canary {
			return one84("1", "1"), nil
		}
		return sqlfake.Result{Cols: []string{"1"}}, nil
	case q == "CREATE DATABASE IF NOT EXISTS orch", strings.HasPrefix(q, "CREATE TABLE IF NOT EXISTS orch.canary ("):
		s.canary = true
		s.commit(*binlog)
	case strings.HasPrefix(q, "INSERT INTO orch.canary (token, at) VALUES ("):
		s.tokens[s.names(q)[0]] = true
		s.commit(*binlog)
	case strings.HasPrefix(q, "SELECT COUNT(*) FROM orch.canary WHERE token = "):
		n := 0
		if s.tokens[s.names(q)[0]] {
			n = 1
		}
		return one84("COUNT(*)", strconv.Itoa(n)), nil
	default:
		return none, err84(1064, fmt.Sprintf("fake 8.4 %s: statement not simulated: %q", s.addr, q))
	}
	return none, nil
}

// commit writes one transaction and replicates it to running replicas.
func (s *my84) commit(binlog bool) {
	if !binlog {
		return
	}
	s.executed++
	for _, r := range s.lab.servers {
		if r.source == s.addr && r.ioOn && r.sqlOn {
			r.executed, r.canary = s.executed, s.canary
			for t := range s.tokens {
				r.tokens[t] = true
			}
		}
	}
}

func (s *my84) semiStatus() map[string]string {
	st := map[string]string{}
	clients := 0
	for _, r := range s.lab.servers {
		if r.source == s.addr && r.ioOn && r.vars["rpl_semi_sync_replica_enabled"] == "ON" {
			clients++
		}
	}
	onOff := map[bool]string{true: "ON", false: "OFF"}
	if s.plugins["rpl_semi_sync_source"] {
		st["Rpl_semi_sync_source_status"] = onOff[s.vars["rpl_semi_sync_source_enabled"] == "ON" && clients > 0]
		st["Rpl_semi_sync_source_clients"] = strconv.Itoa(clients)
		st["Rpl_semi_sync_source_yes_tx"], st["Rpl_semi_sync_source_no_tx"] = strconv.Itoa(s.executed), "0"
	}
	if s.plugins["rpl_semi_sync_replica"] {
		st["Rpl_semi_sync_replica_status"] = onOff[s.ioOn && s.vars["rpl_semi_sync_replica_enabled"] == "ON"]
	}
	return st
}

// replicaStatus is SHOW REPLICA STATUS with 8.4's column names.
func (s *my84) replicaStatus() sqlfake.Result {
	cols := []string{"Replica_IO_State", "Source_Host", "Source_User", "Source_Port", "Connect_Retry", "Source_Log_File",
		"Read_Source_Log_Pos", "Relay_Source_Log_File", "Replica_IO_Running", "Replica_SQL_Running", "Last_Errno", "Last_Error",
		"Exec_Source_Log_Pos", "Seconds_Behind_Source", "Last_IO_Errno", "Last_IO_Error", "Last_SQL_Errno", "Last_SQL_Error",
		"Retrieved_Gtid_Set", "Executed_Gtid_Set", "Auto_Position"}
	if s.source == "" {
		return sqlfake.Result{Cols: cols}
	}
	yn := map[bool]string{true: "Yes", false: "No"}
	return sqlfake.Result{Cols: cols, Rows: [][]any{{"Waiting for source to send event", s.source, "repl", "3306", "2", "binlog.000001",
		"157", "binlog.000001", yn[s.ioOn], yn[s.sqlOn], "0", "", "157", "0", "0", "", "0", "", s.gtidSet(), s.gtidSet(), "1"}}}
}

type my84Conn struct {
	s      *my84
	binlog bool
	user   map[string]string // @variables
}

func (c *my84Conn) Handle(_ context.Context, q string) (sqlfake.Result, error) {
	return c.s.handle(q, c)
}

// TestSetupOnMySQL84: Setup and Verify wire and prove semi-sync GTID
// replication on MySQL 8.4 servers that refuse every removed spelling.
func TestSetupOnMySQL84(t *testing.T) {
	lab := &my84Lab{}
	srv := flavor.Server{Flavor: flavor.MySQL, Version: flavor.V(8, 4, 3)}
	var nodes []*server.Node
	for i, name := range []string{"src", "rep1", "rep2"} {
		// A replica starts read-only, as orch's option file makes it.
		ro := map[bool]string{true: "OFF", false: "ON"}[i == 0]
		s := &my84{lab: lab, addr: fmt.Sprintf("192.0.2.%d", 21+i), vars: map[string]string{"read_only": ro, "super_read_only": ro},
			plugins: map[string]bool{}, users: map[string]bool{}, tokens: map[string]bool{}}
		lab.servers = append(lab.servers, s)
		db := sqlfake.Open(func(context.Context) (sqlfake.Session, error) { return &my84Conn{s: s, binlog: true}, nil })
		t.Cleanup(func() { db.Close() })
		role := topology.RoleSlave
		if i == 0 {
			role = topology.RoleMaster
		}
		nodes = append(nodes, &server.Node{Host: &topology.Host{Name: name, Role: role, Address: s.addr}, DB: db, Server: srv})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := Setup(ctx, nodes[0], nodes[1:], flavor.Params{ReplPassword: "pw-84", Fresh: true}, nil); err != nil {
		t.Fatalf("setup on 8.4: %v", err)
	}
	st, err := Verify(ctx, nodes[0], nodes[1:], 5*time.Second)
	if err != nil {
		t.Fatalf("verify on 8.4: %v", err)
	}
	if p := st.Problems(); len(p) > 0 {
		t.Errorf("problems: %v", p)
	}
	src := lab.servers[0]
	if src.vars["rpl_semi_sync_source_enabled"] != "ON" || src.vars["rpl_semi_sync_source_wait_point"] != "AFTER_SYNC" {
		t.Errorf("source semi-sync: %v", src.vars)
	}
	for _, s := range lab.servers {
		for _, q := range s.log {
			if removed84.MatchString(q) || strings.Contains(q, "_master_") || strings.Contains(q, "_slave_") {
				t.Errorf("%s was sent a spelling 8.4 does not have: %s", s.addr, q)
			}
		}
	}
	for _, r := range lab.servers[1:] {
		if r.vars["super_read_only"] != "ON" {
			t.Errorf("%s: super_read_only %q after setup, want ON again", r.addr, r.vars["super_read_only"])
		}
		if r.source != src.addr || !r.ioOn || r.vars["rpl_semi_sync_replica_enabled"] != "ON" || len(r.tokens) != 1 {
			t.Errorf("%s: source %q io %v semi-sync %s canary %v", r.addr, r.source, r.ioOn, r.vars["rpl_semi_sync_replica_enabled"], r.tokens)
		}
	}
}
