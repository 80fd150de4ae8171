package replication

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// fakeCluster simulates the servers of a cluster closely enough to test the
// orchestration: replication threads that connect only when the master and
// the account are right, semi-sync registration on IO thread connect, the
// semi-sync ordering trap (a binlogged write on a semi-sync master without
// clients blocks until its context ends), GTID positions and the canary.
type fakeCluster struct {
	mu      sync.Mutex
	servers []*fakeServer
}

const fakeUUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"

type fakeServer struct {
	c          *fakeCluster
	name, addr string
	srv        flavor.Server
	vars       map[string]string // global variables, lower-case names
	plugins    map[string]bool
	users      map[string]string // 'user'@'host' -> password
	replica    *fakeReplica
	seq        int64 // transactions in this server's binary log / applied
	tokens     []string
	hasCanary  bool
	yesTx      int64
	noTx       int64
	// Injected faults.
	failOn      map[string]error // statement prefix -> error
	unreachable bool             // everything blocks until its context ends
	cut         bool             // the slave cannot reach its master
	frozen      bool             // status looks fine but nothing is applied
	// Observations.
	log         []string // statements received
	localWrites int      // binlogged writes made on this server itself
}

type fakeReplica struct {
	host, user, password, gtidMode string
	port                           int
	io, sql, semi                  bool // threads started; registered as semi-sync
}

func newFakeCluster(srv flavor.Server, names ...string) *fakeCluster {
	c := &fakeCluster{}
	for i, n := range names {
		s := &fakeServer{c: c, name: n, addr: fmt.Sprintf("10.0.0.%d", i+1), srv: srv,
			plugins: map[string]bool{}, users: map[string]string{}, failOn: map[string]error{}}
		s.vars = map[string]string{"read_only": "0", "default_storage_engine": "InnoDB"}
		if srv.Flavor == flavor.MariaDB { // semi-sync built in, MariaDB defaults
			s.setSemiSyncVars(true, true)
			s.vars["gtid_slave_pos"] = ""
		} else { // MySQL 5.7.8+ has super_read_only too
			s.vars["super_read_only"] = "0"
		}
		c.servers = append(c.servers, s)
	}
	return c
}

// setSemiSyncVars creates a side's variables, as built in or a plugin does.
func (s *fakeServer) setSemiSyncVars(master, slave bool) {
	n := s.srv.SemiSync()
	if master {
		s.vars[n.MasterEnabled], s.vars[n.MasterTimeout], s.vars[n.MasterWaitPoint] = "OFF", "10000", "AFTER_COMMIT"
		if n.MasterWaitCount != "" {
			s.vars[n.MasterWaitCount] = "1"
		}
	}
	if slave {
		s.vars[n.SlaveEnabled] = "OFF"
	}
}

func (c *fakeCluster) byAddr(addr string) *fakeServer {
	for _, s := range c.servers {
		if s.addr == addr {
			return s
		}
	}
	return nil
}

// reachable blocks an unreachable server's callers until ctx ends.
func (s *fakeServer) reachable(ctx context.Context) error {
	s.c.mu.Lock()
	down := s.unreachable
	s.c.mu.Unlock()
	if down {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

// ioState is the IO thread's state and error, evaluated now.
func (s *fakeServer) ioState() (string, int, string) {
	r := s.replica
	if r == nil || !r.io {
		return "No", 0, ""
	}
	m := s.c.byAddr(r.host)
	if s.cut || m == nil || r.port != 3306 {
		return "Connecting", 2003, fmt.Sprintf("error connecting to master '%s@%s:%d' - message: Can't connect", r.user, r.host, r.port)
	}
	if pw, ok := m.users["'"+r.user+"'@'%'"]; !ok || pw != r.password {
		return "Connecting", 1045, "Access denied for user '" + r.user + "'"
	}
	return "Yes", 0, ""
}

// clients counts the slaves registered as semi-sync with s.
func (s *fakeServer) clients() int64 {
	var n int64
	for _, o := range s.c.servers {
		if st, _, _ := o.ioState(); st == "Yes" && o.replica.semi && o.replica.host == s.addr {
			n++
		}
	}
	return n
}

// sync applies the master's transactions on every healthy, unfrozen slave.
func (c *fakeCluster) sync() {
	for _, s := range c.servers {
		if st, _, _ := s.ioState(); st != "Yes" || !s.replica.sql || s.frozen {
			continue
		}
		m := c.byAddr(s.replica.host)
		s.seq, s.tokens, s.hasCanary = m.seq, append([]string(nil), m.tokens...), m.hasCanary
	}
}

func (s *fakeServer) gtidPos(seq int64) string {
	switch {
	case seq == 0:
		return ""
	case s.srv.UsesMariaDBGTID():
		return fmt.Sprintf("0-1-%d", seq)
	}
	return fmt.Sprintf("%s:1-%d", fakeUUID, seq)
}

var (
	reSetSession  = regexp.MustCompile(`^SET SESSION sql_log_bin = ([01])$`)
	reSessionLogs = regexp.MustCompile(`^SET SESSION (sql_log_off|long_query_time) = \S+$`)
	reSetGlobal   = regexp.MustCompile(`^SET GLOBAL (\w+) = (.+)$`)
	reUserVar     = regexp.MustCompile(`^SET @(\w+) = @@GLOBAL\.(\w+)$`)
	reShow        = regexp.MustCompile(`^SHOW GLOBAL (VARIABLES|STATUS) WHERE Variable_name IN \((.*)\)$`)
	reQuoted      = regexp.MustCompile(`'((?:[^']|'')*)'`)
	reSelectVar   = regexp.MustCompile(`^SELECT @@GLOBAL\.(\w+)$`)
	reAccount     = regexp.MustCompile(`^(CREATE USER IF NOT EXISTS|ALTER USER|DROP USER IF EXISTS|GRANT [A-Z ,]+ ON \*\.\* TO) ('[^']*'@'[^']*')(?: IDENTIFIED BY '((?:[^']|'')*)')?$`)
	reUserExists  = regexp.MustCompile(`^SELECT 1 FROM mysql.user WHERE User = '(.*)' AND Host = '(.*)'$`)
	reThreads     = regexp.MustCompile(`^(STOP|START) (?:SLAVE|REPLICA)( IO_THREAD)?$`)
	reResetRepl   = regexp.MustCompile(`^RESET (?:SLAVE|REPLICA) ALL$`)
	reChange      = regexp.MustCompile(`^CHANGE (?:MASTER|REPLICATION SOURCE) TO (.*)$`)
	reOption      = regexp.MustCompile(`(\w+) = ('(?:[^']|'')*'|\w+)`)
	rePluginNot   = regexp.MustCompile(`^SELECT 1 FROM DUAL WHERE NOT EXISTS \(SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = '(\w+)'\)$`)
	rePluginOn    = regexp.MustCompile(`^SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = '(\w+)' AND PLUGIN_STATUS = 'ACTIVE'$`)
	reInstall     = regexp.MustCompile(`^INSTALL PLUGIN (\w+) SONAME '[\w.]+'$`)
	reGTIDWait    = regexp.MustCompile(`^SELECT (?:MASTER_GTID_WAIT|WAIT_FOR_EXECUTED_GTID_SET)\('(.*)', \d+\)$`)
	reInsert      = regexp.MustCompile(`^INSERT INTO orch\.canary \(token, at\) VALUES \('(\w+)', NOW\(6\)\)$`)
	reCount       = regexp.MustCompile(`^SELECT COUNT\(\*\) FROM orch\.canary WHERE token = '(\w+)'$`)
)

func unquote(v string) string {
	if strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") && len(v) >= 2 {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}

func one(cols string, vals ...any) fakeResult {
	return fakeResult{Cols: strings.Split(cols, ","), Rows: [][]any{vals}}
}

// handle runs one statement on session c.
func (s *fakeServer) handle(ctx context.Context, c *fakeConn, q string) (fakeResult, error) {
	if err := s.reachable(ctx); err != nil {
		return fakeResult{}, err
	}
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	s.log = append(s.log, q)
	for prefix, err := range s.failOn {
		if strings.HasPrefix(q, prefix) {
			return fakeResult{}, err
		}
	}
	s.c.sync()
	var m []string
	match := func(re *regexp.Regexp) bool { m = re.FindStringSubmatch(q); return m != nil }
	switch {
	case match(reSetSession):
		c.binlog = m[1] == "1"
	case match(reUserVar):
		if c.user == nil {
			c.user = map[string]string{}
		}
		c.user[m[1]] = s.vars[strings.ToLower(m[2])]
	case match(reSessionLogs):
		// the session's general and slow log switches: no log here
	case match(reSetGlobal):
		name := strings.ToLower(m[1])
		if _, ok := s.vars[name]; !ok {
			return fakeResult{}, fmt.Errorf("Error 1193 (HY000): Unknown system variable '%s'", m[1])
		}
		s.vars[name] = unquote(m[2])
		if v, ok := strings.CutPrefix(m[2], "@"); ok {
			s.vars[name] = c.user[v]
		}
		if name == "gtid_slave_pos" {
			s.seq = 0
		}
	case match(reShow):
		return s.show(m[1], reQuoted.FindAllStringSubmatch(m[2], -1)), nil
	case q == "SELECT VERSION(), @@version_comment, @@GLOBAL.read_only, @@GLOBAL.default_storage_engine":
		v := s.srv.Version.String() + "-fake"
		if s.srv.Flavor == flavor.MariaDB {
			v = s.srv.Version.String() + "-MariaDB-fake"
		}
		return one("v,c,ro,e", v, "test", s.vars["read_only"], s.vars["default_storage_engine"]), nil
	case match(reSelectVar):
		return one(m[1], s.gtidPos(s.seq)), nil
	case match(reUserExists):
		if _, ok := s.users["'"+m[1]+"'@'"+m[2]+"'"]; ok {
			return one("1", "1"), nil
		}
		return fakeResult{Cols: []string{"1"}}, nil
	case match(reAccount):
		return fakeResult{}, s.account(ctx, c, m[1], m[2], unquote("'"+m[3]+"'"))
	case match(reThreads):
		return fakeResult{}, s.threads(m[1] == "START", m[2] != "")
	case match(reResetRepl):
		if s.replica != nil && (s.replica.io || s.replica.sql) {
			return fakeResult{}, errors.New("Error 1198 (HY000): This operation cannot be performed as you have a running slave")
		}
		s.replica = nil
	case q == "RESET MASTER":
		s.seq = 0
	case match(reChange):
		return fakeResult{}, s.change(m[1])
	case match(rePluginNot):
		if s.plugins[m[1]] {
			return fakeResult{Cols: []string{"1"}}, nil
		}
		return one("1", "1"), nil
	case match(rePluginOn):
		if !s.plugins[m[1]] {
			return fakeResult{Cols: []string{"1"}}, nil
		}
		return one("1", "1"), nil
	case match(reInstall):
		s.plugins[m[1]] = true
		n := s.srv.SemiSync()
		s.setSemiSyncVars(m[1] == n.MasterPlugin, m[1] == n.SlavePlugin)
	case q == s.srv.ReplicaStatusQuery():
		return s.replicaStatus(), nil
	case strings.HasPrefix(q, "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'orch'"):
		if s.hasCanary {
			return one("1", "1"), nil
		}
		return fakeResult{Cols: []string{"1"}}, nil
	case strings.HasPrefix(q, "CREATE DATABASE IF NOT EXISTS orch") || strings.HasPrefix(q, "CREATE TABLE IF NOT EXISTS orch.canary"):
		if err := s.write(ctx, c); err != nil {
			return fakeResult{}, err
		}
		s.hasCanary = true
	case match(reInsert):
		if err := s.write(ctx, c); err != nil {
			return fakeResult{}, err
		}
		s.tokens = append(s.tokens, m[1])
	case match(reGTIDWait):
		want, _ := strconv.ParseInt(m[1][strings.LastIndexAny(m[1], "-")+1:], 10, 64)
		if s.seq >= want {
			return one("w", "0"), nil
		}
		return one("w", map[bool]string{true: "-1", false: "1"}[s.srv.UsesMariaDBGTID()]), nil
	case match(reCount):
		n := 0
		for _, t := range s.tokens {
			if t == m[1] {
				n++
			}
		}
		return one("n", strconv.Itoa(n)), nil
	default:
		return fakeResult{}, fmt.Errorf("fake %s: unsupported statement %q", s.name, q)
	}
	return fakeResult{}, nil
}

// write is a binlogged (or not) write. A semi-sync master with no client
// blocks it until its context ends: the ordering trap, as on MariaDB with
// rpl_semi_sync_master_wait_no_slave=ON and a huge timeout.
func (s *fakeServer) write(ctx context.Context, c *fakeConn) error {
	if !c.binlog {
		return nil
	}
	n := s.srv.SemiSync()
	if strings.EqualFold(s.vars[strings.ToLower(n.MasterEnabled)], "ON") && s.clients() == 0 {
		s.c.mu.Unlock()
		<-ctx.Done()
		s.c.mu.Lock()
		return fmt.Errorf("waiting for semi-sync ACK: %w", ctx.Err())
	}
	s.seq++
	s.localWrites++
	if s.clients() > 0 {
		s.yesTx++
	} else {
		s.noTx++
	}
	return nil
}

func (s *fakeServer) account(ctx context.Context, c *fakeConn, verb, acct, password string) error {
	_, exists := s.users[acct]
	switch {
	case strings.HasPrefix(verb, "CREATE"):
		if !exists {
			s.users[acct] = password
		}
	case strings.HasPrefix(verb, "ALTER"):
		if !exists {
			return fmt.Errorf("Error 1396 (HY000): Operation ALTER USER failed for %s", acct)
		}
		s.users[acct] = password
	case strings.HasPrefix(verb, "DROP"):
		delete(s.users, acct)
	case !exists:
		return fmt.Errorf("Error 1133 (28000): Can't find any matching row in the user table")
	}
	return s.write(ctx, c)
}

func (s *fakeServer) threads(start, ioOnly bool) error {
	r := s.replica
	if r == nil {
		if start {
			return errors.New("Error 1200 (HY000): Misconfigured slave: MASTER_HOST was not set")
		}
		return nil // a note on real servers
	}
	r.io = start
	if !ioOnly {
		r.sql = start
	}
	if start {
		r.semi = strings.EqualFold(s.vars[s.srv.SemiSync().SlaveEnabled], "ON")
	}
	return nil
}

func (s *fakeServer) change(opts string) error {
	if s.replica != nil && (s.replica.io || s.replica.sql) {
		return errors.New("Error 1198 (HY000): This operation cannot be performed as you have a running slave")
	}
	r := &fakeReplica{gtidMode: "No"}
	for _, o := range reOption.FindAllStringSubmatch(opts, -1) {
		v := unquote(o[2])
		switch strings.TrimPrefix(strings.TrimPrefix(o[1], "MASTER_"), "SOURCE_") {
		case "HOST":
			r.host = v
		case "PORT":
			r.port, _ = strconv.Atoi(v)
		case "USER":
			r.user = v
		case "PASSWORD":
			r.password = v
		case "USE_GTID":
			r.gtidMode = map[string]string{"slave_pos": "Slave_Pos", "current_pos": "Current_Pos"}[v]
		case "AUTO_POSITION":
			r.gtidMode = "AUTO"
		}
	}
	s.replica = r
	return nil
}

func (s *fakeServer) show(kind string, names [][]string) fakeResult {
	n := s.srv.SemiSync()
	res := fakeResult{Cols: []string{"Variable_name", "Value"}}
	for _, q := range names {
		name, v, ok := q[1], "", false
		if kind == "VARIABLES" {
			v, ok = s.vars[strings.ToLower(name)]
		} else {
			ok = true
			switch name {
			case n.MasterStatus:
				v = strings.ToUpper(s.vars[n.MasterEnabled])
			case n.MasterClients:
				v = strconv.FormatInt(s.clients(), 10)
			case n.MasterYesTx:
				v = strconv.FormatInt(s.yesTx, 10)
			case n.MasterNoTx:
				v = strconv.FormatInt(s.noTx, 10)
			case n.SlaveStatus:
				st, _, _ := s.ioState()
				v = map[bool]string{true: "ON", false: "OFF"}[st == "Yes" && s.replica.semi]
			default:
				ok = false
			}
		}
		if ok {
			res.Rows = append(res.Rows, []any{name, v})
		}
	}
	return res
}

func (s *fakeServer) replicaStatus() fakeResult {
	r := s.replica
	col := s.srv.ReplicaStatusColumn
	res := fakeResult{Cols: []string{col("Slave_IO_State"), col("Master_Host"), col("Master_User"), col("Master_Port"),
		col("Slave_IO_Running"), col("Slave_SQL_Running"), "Last_IO_Errno", "Last_IO_Error", "Last_SQL_Errno",
		"Last_SQL_Error", col("Seconds_Behind_Master")}}
	if s.srv.UsesMariaDBGTID() {
		res.Cols = append(res.Cols, "Using_Gtid")
	} else {
		res.Cols = append(res.Cols, "Auto_Position")
	}
	if r == nil {
		return res
	}
	io, errno, msg := s.ioState()
	var behind any
	if io == "Yes" && r.sql {
		behind = "0" // even when frozen: the server cannot tell
	}
	gtid := r.gtidMode
	if !s.srv.UsesMariaDBGTID() {
		gtid = map[bool]string{true: "1", false: "0"}[r.gtidMode == "AUTO"]
	}
	sqlRun := map[bool]string{true: "Yes", false: "No"}[r.sql]
	res.Rows = [][]any{{"", r.host, r.user, strconv.Itoa(r.port), io, sqlRun, strconv.Itoa(errno), msg, "0", "", behind, gtid}}
	return res
}
