package fakemaria

import (
	"context"
	"database/sql/driver"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"

	"github.com/orch-bench/orch/orchestrator/internal/sqlfake"
)

// DB is the SQL side of a simulated MariaDB 10.11 server: global
// variables (dynamic or not, as the manual lists them), built-in semi-sync,
// GTID replication from another simulated host, and the statements a DBA
// would type, spelled as MariaDB spells them.
type DB struct {
	host *Host
	mu   *sync.Mutex // the lab's: replication touches two servers at once

	vars     map[string]string
	readOnly map[string]bool
	users    map[string]bool
	seq      int // last GTID sequence number written here (domain 0)
	slavePos string
	replica  *replicaSetup
	ioOn     bool
	sqlOn    bool
	semiOn   bool // this slave acknowledges as semi-sync (set when its IO thread connects)
	stalled  bool // this slave's applier applies nothing, its threads still "Yes" (StallApplier)
	tokens   map[string]bool
	canary   bool // orch.canary exists
	refuse   bool // refuse every login (a wrong password)
	sql      []string
	cat      catalog
	general  []string // the general log
	// locks are the user-level locks by name (locks.go); conns the open
	// connections by id.
	locks    map[string]*session
	conns    map[int64]*session
	lastConn int64
}

type replicaSetup struct {
	host, user string
	port       int
}

func newDB(h *Host) *DB {
	d := &DB{host: h, mu: &h.lab.sql, users: map[string]bool{}, tokens: map[string]bool{},
		locks: map[string]*session{}, conns: map[int64]*session{}}
	d.boot(nil)
	return d
}

// defaults are a stock MariaDB 10.11's values for the variables involved.
var mariaDefaults = map[string]string{
	"server_id": "1", "report_host": "", "bind_address": "127.0.0.1", "log_bin": "OFF", "relay_log": "",
	"binlog_format": "MIXED", "default_storage_engine": "InnoDB", "gtid_strict_mode": "OFF",
	"rpl_semi_sync_master_enabled": "OFF", "rpl_semi_sync_master_timeout": "10000",
	"rpl_semi_sync_master_wait_point": "AFTER_COMMIT", "rpl_semi_sync_slave_enabled": "OFF",
	"innodb_flush_log_at_trx_commit": "1", "innodb_buffer_pool_size": "134217728", "sync_binlog": "0",
	"read_only": "OFF", "version": "10.11.19-MariaDB-0+deb12u1-log", "datadir": "/var/lib/mysql/",
	"plugin_dir": "/usr/lib/mysql/plugin/", "log_error": boxLog, "gtid_binlog_pos": "", "gtid_slave_pos": "",
	"gtid_current_pos": "", "log_slave_updates": "OFF", "binlog_commit_wait_count": "0",
}

// mariaReadOnly are the variables that only an option file changes.
var mariaReadOnly = []string{"report_host", "bind_address", "log_bin", "relay_log", "version", "datadir", "plugin_dir", "log_error", "log_slave_updates"}

// boot (re)starts the server on the given --options.
func (d *DB) boot(opts []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.vars = map[string]string{}
	// A restart ends every connection, and with them their locks.
	d.locks, d.conns = map[string]*session{}, map[int64]*session{}
	for k, v := range mariaDefaults {
		d.vars[k] = v
	}
	d.readOnly = map[string]bool{}
	for _, k := range mariaReadOnly {
		d.readOnly[k] = true
	}
	for _, o := range opts {
		name, value, _ := strings.Cut(strings.TrimPrefix(o, "--"), "=")
		name = strings.TrimPrefix(name, "loose_")
		if _, known := d.vars[name]; known {
			d.vars[name] = shown(name, value)
		}
	}
	d.ioOn, d.sqlOn = d.replica != nil, d.replica != nil
	d.semiOn = d.replica != nil && d.vars["rpl_semi_sync_slave_enabled"] == "ON"
}

// shown is how SHOW VARIABLES prints an option value: sizes in bytes,
// booleans ON/OFF, log_bin ON when it names a base name.
func shown(name, v string) string {
	switch {
	case name == "log_bin":
		return "ON"
	case strings.EqualFold(v, "on") || strings.EqualFold(v, "true"):
		return "ON"
	case strings.EqualFold(v, "off") || strings.EqualFold(v, "false"):
		return "OFF"
	}
	mult := map[string]int64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
	if n := len(v); n > 1 && mult[strings.ToUpper(v[n-1:])] != 0 {
		if x, err := strconv.ParseInt(v[:n-1], 10, 64); err == nil {
			return strconv.FormatInt(x*mult[strings.ToUpper(v[n-1:])], 10)
		}
	}
	return v
}

// seqOf is the sequence number of a domain-0 GTID position "0-1-42"
// (this lab writes one domain); 0 for an empty position.
func seqOf(pos string) int {
	f := strings.Split(pos, "-")
	n, err := strconv.Atoi(f[len(f)-1])
	if err != nil {
		return 0
	}
	return n
}

func (d *DB) gtid() string {
	if d.seq == 0 {
		return ""
	}
	return fmt.Sprintf("0-%s-%d", d.vars["server_id"], d.seq)
}

type table = sqlfake.Result

func row(cols []string, vals ...any) table { return table{Cols: cols, Rows: [][]any{vals}} }

func nameValue(m map[string]string, filter []string) table {
	t := table{Cols: []string{"Variable_name", "Value"}}
	var names []string
	for k := range m {
		if filter == nil || contains(filter, k) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		t.Rows = append(t.Rows, []any{k, m[k]})
	}
	return t
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

var reQuoted = regexp.MustCompile(`'((?:[^']|'')*)'`)

// quotedList is every '...' string in s, unquoted.
func quotedList(s string) []string {
	var out []string
	for _, m := range reQuoted.FindAllStringSubmatch(s, -1) {
		out = append(out, strings.ReplaceAll(m[1], "''", "'"))
	}
	return out
}

func mariaErr(num uint16, msg string) error { return &mysql.MySQLError{Number: num, Message: msg} }

var (
	reSetGlobalSelf = regexp.MustCompile(`^SET GLOBAL (\w+) = @@GLOBAL\.(\w+)$`)
	reSetGlobal     = regexp.MustCompile(`^SET GLOBAL (\w+) = (.+)$`)
	reChange        = regexp.MustCompile(`^CHANGE MASTER TO MASTER_HOST = '([^']*)', MASTER_PORT = (\d+), MASTER_USER = '([^']*)', MASTER_PASSWORD = '(?:[^']|'')*', MASTER_CONNECT_RETRY = \d+, MASTER_USE_GTID = slave_pos$`)
	reWait          = regexp.MustCompile(`^SELECT MASTER_GTID_WAIT\('([^']*)', \d+\)$`)
)

// handle runs one statement on a session whose sql_log_bin is *binlog.
func (d *DB) handle(q string, binlog *bool) (table, error) {
	if !d.host.Running() {
		return table{}, driver.ErrBadConn
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sql = append(d.sql, q)
	v := d.vars
	switch {
	case q == "SELECT 1":
		return row([]string{"1"}, "1"), nil
	case q == "SELECT VERSION(), @@version_comment, @@datadir, @@plugin_dir, @@log_error":
		return row([]string{"VERSION()", "@@version_comment", "@@datadir", "@@plugin_dir", "@@log_error"}, v["version"], "Debian 12", v["datadir"], v["plugin_dir"], v["log_error"]), nil
	case q == "SELECT VERSION(), @@version_comment":
		return row([]string{"VERSION()", "@@version_comment"}, v["version"], "Debian 12"), nil
	case q == "SELECT VERSION(), @@version_comment, @@GLOBAL.read_only, @@GLOBAL.default_storage_engine":
		return row([]string{"VERSION()", "@@version_comment", "@@GLOBAL.read_only", "@@GLOBAL.default_storage_engine"}, v["version"], "Debian 12", "0", v["default_storage_engine"]), nil
	case q == "SELECT ENGINE, SUPPORT FROM information_schema.ENGINES":
		return table{Cols: []string{"ENGINE", "SUPPORT"}, Rows: [][]any{{"InnoDB", "DEFAULT"}, {"MyISAM", "YES"}, {"CSV", "YES"}, {"MEMORY", "YES"}}}, nil
	case q == "SHOW GLOBAL VARIABLES":
		return nameValue(v, nil), nil
	case strings.HasPrefix(q, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ("):
		return nameValue(v, quotedList(q)), nil
	case q == "SHOW GLOBAL STATUS":
		return nameValue(d.status(), nil), nil
	case strings.HasPrefix(q, "SHOW GLOBAL STATUS WHERE Variable_name IN ("):
		return nameValue(d.status(), quotedList(q)), nil
	case strings.HasPrefix(q, "SELECT READ_ONLY FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = "):
		name := strings.ToLower(quotedList(q)[0])
		if _, ok := v[name]; !ok {
			return table{Cols: []string{"READ_ONLY"}}, nil
		}
		ro := "NO"
		if d.readOnly[name] {
			ro = "YES"
		}
		return row([]string{"READ_ONLY"}, ro), nil
	case q == "SELECT PLUGIN_NAME FROM information_schema.PLUGINS WHERE PLUGIN_STATUS = 'ACTIVE'":
		return table{Cols: []string{"PLUGIN_NAME"}, Rows: [][]any{{"InnoDB"}, {"MyISAM"}, {"CSV"}, {"MEMORY"}}}, nil
	case reSetGlobalSelf.MatchString(q):
		m := reSetGlobalSelf.FindStringSubmatch(q)
		return table{}, d.setGlobal(m[1], v[strings.ToLower(m[2])])
	case reSetGlobal.MatchString(q):
		m := reSetGlobal.FindStringSubmatch(q)
		val := strings.Trim(m[2], "'")
		return table{}, d.setGlobal(m[1], shown(strings.ToLower(m[1]), val))
	case q == "SET SESSION sql_log_bin = 0", q == "SET SESSION sql_log_bin = 1":
		*binlog = strings.HasSuffix(q, "1")
		return table{}, nil
	case strings.HasPrefix(q, "SELECT 1 FROM mysql.user WHERE User = "):
		acct := quotedList(q)
		if d.users[acct[0]+"@"+acct[1]] {
			return row([]string{"1"}, "1"), nil
		}
		return table{Cols: []string{"1"}}, nil
	case strings.HasPrefix(q, "CREATE USER IF NOT EXISTS "):
		acct := quotedList(q)
		d.users[acct[0]+"@"+acct[1]] = true
		d.write(*binlog)
		return table{}, nil
	case strings.HasPrefix(q, "DROP USER IF EXISTS "):
		acct := quotedList(q)
		delete(d.users, acct[0]+"@"+acct[1])
		d.write(*binlog)
		return table{}, nil
	case strings.HasPrefix(q, "ALTER USER "), strings.HasPrefix(q, "GRANT REPLICATION SLAVE"):
		d.write(*binlog)
		return table{}, nil
	case q == "SHOW SLAVE STATUS":
		return d.slaveStatus(), nil
	case q == "STOP SLAVE":
		d.ioOn, d.sqlOn, d.semiOn = false, false, false
		return table{}, nil
	case q == "RESET SLAVE ALL":
		d.replica = nil
		return table{}, nil
	case q == "RESET MASTER":
		d.seq = 0
		return table{}, nil
	case q == "SET GLOBAL gtid_slave_pos = ''":
		d.slavePos = ""
		return table{}, nil
	case reChange.MatchString(q):
		m := reChange.FindStringSubmatch(q)
		port, _ := strconv.Atoi(m[2])
		d.replica = &replicaSetup{host: m[1], port: port, user: m[3]}
		return table{}, nil
	case q == "START SLAVE", q == "START SLAVE IO_THREAD":
		if d.replica == nil {
			return table{}, mariaErr(1200, "Misconfigured slave: MASTER_HOST was not set; Fix in config file or with CHANGE MASTER TO")
		}
		d.ioOn = true
		d.semiOn = v["rpl_semi_sync_slave_enabled"] == "ON"
		if q == "START SLAVE" {
			d.sqlOn = true
		}
		return table{}, nil
	case q == "STOP SLAVE IO_THREAD":
		d.ioOn, d.semiOn = false, false
		return table{}, nil
	case q == "SELECT @@GLOBAL.gtid_binlog_pos":
		return row([]string{"@@GLOBAL.gtid_binlog_pos"}, d.gtid()), nil
	case q == "SELECT @@GLOBAL.gtid_slave_pos":
		return row([]string{"@@GLOBAL.gtid_slave_pos"}, d.slavePos), nil
	case strings.HasPrefix(q, "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'orch'"):
		if d.canary {
			return row([]string{"1"}, "1"), nil
		}
		return table{Cols: []string{"1"}}, nil
	case q == "CREATE DATABASE IF NOT EXISTS orch", strings.HasPrefix(q, "CREATE TABLE IF NOT EXISTS orch.canary ("):
		d.canary = true
		d.write(*binlog)
		return table{}, nil
	case strings.HasPrefix(q, "INSERT INTO orch.canary (token, at) VALUES ("):
		d.tokens[quotedList(q)[0]] = true
		d.write(*binlog)
		return table{}, nil
	case reWait.MatchString(q):
		// MariaDB's MASTER_GTID_WAIT: 0 once this server has applied the
		// position, -1 when the timeout passed first (answered at once
		// here: a wait this lab cannot end would only take the timeout).
		if seqOf(d.slavePos) >= seqOf(reWait.FindStringSubmatch(q)[1]) {
			return row([]string{"r"}, "0"), nil
		}
		return row([]string{"r"}, "-1"), nil
	case strings.HasPrefix(q, "SELECT COUNT(*) FROM orch.canary WHERE token = "):
		n := 0
		if d.tokens[quotedList(q)[0]] {
			n = 1
		}
		return row([]string{"COUNT(*)"}, strconv.Itoa(n)), nil
	}
	if t, ok := d.catalogStatement(q, *binlog); ok {
		return t, nil
	}
	return table{}, mariaErr(1064, fmt.Sprintf("fake server %s: unexpected statement %q", d.host.Name(), q))
}

func (d *DB) setGlobal(name, value string) error {
	name = strings.ToLower(name)
	if _, ok := d.vars[name]; !ok {
		return mariaErr(1193, "Unknown system variable '"+name+"'")
	}
	if d.readOnly[name] {
		return mariaErr(1238, "Variable '"+name+"' is a read only variable")
	}
	d.vars[name] = value
	return nil
}

// write commits one transaction here and, with binary logging on, on every
// slave replicating from this host (replication is instant in this lab).
func (d *DB) write(binlog bool) {
	if !binlog || d.vars["log_bin"] != "ON" {
		return
	}
	d.seq++
	pos := d.gtid()
	d.vars["gtid_binlog_pos"] = pos
	for _, h := range d.host.lab.Hosts {
		s := h.db
		if s == d || !h.Running() {
			continue
		}
		if s.replica != nil && s.replica.host == d.host.addr && s.ioOn && s.sqlOn && !s.stalled {
			for t := range d.tokens {
				s.tokens[t] = true
			}
			s.canary = s.canary || d.canary
			s.slavePos = pos
		}
	}
}

// status is SHOW GLOBAL STATUS: the statements received and semi-sync.
func (d *DB) status() map[string]string {
	clients := 0
	for _, h := range d.host.lab.Hosts {
		s := h.db
		if s == d || !h.Running() {
			continue
		}
		if s.replica != nil && s.replica.host == d.host.addr && s.ioOn && s.semiOn {
			clients++
		}
	}
	onOff := map[bool]string{true: "ON", false: "OFF"}
	return map[string]string{
		"Questions":                    strconv.Itoa(len(d.sql)),
		"Rpl_semi_sync_master_status":  onOff[d.vars["rpl_semi_sync_master_enabled"] == "ON" && clients > 0],
		"Rpl_semi_sync_master_clients": strconv.Itoa(clients),
		"Rpl_semi_sync_master_yes_tx":  strconv.Itoa(d.seq),
		"Rpl_semi_sync_master_no_tx":   "0",
		"Rpl_semi_sync_slave_status":   onOff[d.semiOn && d.ioOn],
	}
}

// slaveStatus is SHOW SLAVE STATUS with MariaDB 10.11's columns that
// matter here (an empty set on a server that is no replica).
func (d *DB) slaveStatus() table {
	cols := []string{"Slave_IO_State", "Master_Host", "Master_User", "Master_Port", "Connect_Retry", "Master_Log_File",
		"Read_Master_Log_Pos", "Relay_Master_Log_File", "Slave_IO_Running", "Slave_SQL_Running", "Last_Errno", "Last_Error",
		"Exec_Master_Log_Pos", "Seconds_Behind_Master", "Last_IO_Errno", "Last_IO_Error", "Last_SQL_Errno", "Last_SQL_Error",
		"Using_Gtid", "Gtid_IO_Pos", "Gtid_Slave_Pos"}
	if d.replica == nil {
		return table{Cols: cols}
	}
	yn := map[bool]string{true: "Yes", false: "No"}
	state := ""
	if d.ioOn {
		state = "Waiting for master to send event"
	}
	return row(cols, state, d.replica.host, d.replica.user, strconv.Itoa(d.replica.port), "2", "mysql-bin.000001",
		"4", "mysql-bin.000001", yn[d.ioOn], yn[d.sqlOn], "0", "", "4", "0", "0", "", "0", "", "Slave_Pos", d.slavePos, d.slavePos)
}

// connect opens a session on the host's server, as the driver would.
// Through a dead link (ln not nil) there is no connection at all.
func (h *Host) connect(ln *link) (sqlfake.Session, error) {
	if ln != nil && !ln.alive() {
		return nil, errLinkLost
	}
	h.mu.Lock()
	noSocket := h.noSocket
	h.mu.Unlock()
	if noSocket {
		return nil, errNoSocket
	}
	if !h.Running() {
		return nil, errDown
	}
	h.db.mu.Lock()
	refuse := h.db.refuse
	h.db.mu.Unlock()
	if refuse {
		return nil, mariaErr(1045, "Access denied for user 'orch'@'localhost' (using password: YES)")
	}
	s := &session{db: h.db, binlog: true, ln: ln}
	h.db.opened(s)
	return s, nil
}

// session is one session; binlog is its sql_log_bin.
type session struct {
	db     *DB
	id     int64 // CONNECTION_ID()
	binlog bool
	logOff bool // sql_log_off
	ln     *link
}

// Ping fails on a connection whose server went away, as the driver finds.
func (c *session) Ping(context.Context) error {
	if !c.db.host.Running() || (c.ln != nil && !c.ln.alive()) {
		return driver.ErrBadConn
	}
	return nil
}

func (c *session) Handle(_ context.Context, q string) (sqlfake.Result, error) {
	if !c.db.host.Running() {
		return table{}, driver.ErrBadConn
	}
	if t, ok := c.userLock(q); ok {
		return t, nil
	}
	// The general log: every statement of a session whose sql_log_off is 0.
	switch q {
	case "SET SESSION sql_log_off = 1":
		c.logOff = true
		return table{}, nil
	case "SET SESSION sql_log_off = @@GLOBAL.sql_log_off":
		c.logOff = false
		return table{}, nil
	}
	if strings.HasPrefix(q, "SET SESSION long_query_time = ") {
		return table{}, nil
	}
	if !c.logOff {
		c.db.mu.Lock()
		c.db.general = append(c.db.general, q)
		c.db.mu.Unlock()
	}
	return c.db.handle(q, &c.binlog)
}

// Statements returns the server's statements from index from.
func (d *DB) Statements(from int) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.sql[from:]...)
}
