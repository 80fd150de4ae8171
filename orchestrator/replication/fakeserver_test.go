package replication

import (
	"context"
	"fmt"
	"regexp"
	"slices"
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
// Each server speaks its version's dialect (fakedialect_test.go), written
// from the server's manual; what it is not told is refused as the real
// server refuses it.
type fakeCluster struct {
	mu      sync.Mutex
	servers []*fakeServer
}

const fakeUUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"

type fakeServer struct {
	c          *fakeCluster
	name, addr string
	id         int               // server_id
	srv        flavor.Server     // what the fake was told it is (for the code under test)
	d          *fakeDialect      // what it speaks
	vars       map[string]string // global variables, lower-case names
	plugins    map[string]bool
	users      map[string]string // 'user'@'host' -> password
	replica    *fakeReplica
	seq        int64 // transactions this server holds (MySQL: gtid_executed)
	ownSeq     int64 // its own last binlogged transaction (MariaDB: gtid_binlog_pos)
	slaveSeq   int64 // applied by replication (MariaDB: gtid_slave_pos) ...
	slaveFrom  int   // ... from this server_id
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
	port, retry                    int
	io, sql, semi                  bool // threads started; registered as semi-sync
}

func newFakeCluster(srv flavor.Server, names ...string) *fakeCluster {
	c := &fakeCluster{}
	d := dialectFor(srv)
	for i, n := range names {
		s := &fakeServer{c: c, name: n, addr: fmt.Sprintf("10.0.0.%d", i+1), id: i + 1, srv: srv, d: d,
			vars: map[string]string{}, plugins: map[string]bool{}, users: map[string]string{}, failOn: map[string]error{}}
		for k, v := range d.globals {
			s.vars[k] = v
		}
		for _, side := range d.semiSync {
			if side.plugin == "" { // built in: there from the start
				s.addVars(side)
			}
		}
		c.servers = append(c.servers, s)
	}
	return c
}

func (s *fakeServer) addVars(side fakeSemiSync) {
	for k, v := range side.vars {
		s.vars[k] = v
	}
}

// semi is the loaded semi-sync side of a role (built in or installed).
func (s *fakeServer) semi(master bool) *fakeSemiSync {
	for i, side := range s.d.semiSync {
		if side.master == master && (side.plugin == "" || s.plugins[side.plugin]) {
			return &s.d.semiSync[i]
		}
	}
	return nil
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
		return "Connecting", 2003, fmt.Sprintf(s.d.ioConnectErr, r.user, r.host, r.port, r.retry)
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
		s.slaveSeq, s.slaveFrom = m.seq, m.id
	}
}

var (
	reSetSession  = regexp.MustCompile(`^SET SESSION sql_log_bin = ([01])$`)
	reSessionLogs = regexp.MustCompile(`^SET SESSION (sql_log_off|long_query_time) = \S+$`)
	reSetGlobal   = regexp.MustCompile(`^SET GLOBAL (\w+) = (.+)$`)
	reUserVar     = regexp.MustCompile(`^SET @(\w+) = @@GLOBAL\.(\w+)$`)
	reShow        = regexp.MustCompile(`^SHOW GLOBAL (VARIABLES|STATUS) WHERE Variable_name IN \((.*)\)$`)
	reQuoted      = regexp.MustCompile(`'((?:[^']|'')*)'`)
	reSelectVar   = regexp.MustCompile(`^SELECT @@GLOBAL\.(\w+)$`)
	reAccount     = regexp.MustCompile(`^(CREATE USER IF NOT EXISTS|ALTER USER|DROP USER IF EXISTS|GRANT ([A-Z ,]+) ON \*\.\* TO) ('[^']*'@'[^']*')(?: IDENTIFIED BY '((?:[^']|'')*)')?$`)
	reUserExists  = regexp.MustCompile(`^SELECT 1 FROM mysql.user WHERE User = '(.*)' AND Host = '(.*)'$`)
	reThreads     = regexp.MustCompile(`^(STOP|START) (\w+)( IO_THREAD)?$`)
	reResetRepl   = regexp.MustCompile(`^RESET (\w+) ALL$`)
	reShowRepl    = regexp.MustCompile(`^SHOW (\w+) STATUS$`)
	reChange      = regexp.MustCompile(`^(CHANGE [A-Z ]+ TO) (.*)$`)
	reOption      = regexp.MustCompile(`^(\w+) = ('(?:[^']|'')*'|\w+)(?:, |$)`)
	rePluginNot   = regexp.MustCompile(`^SELECT 1 FROM DUAL WHERE NOT EXISTS \(SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = '(\w+)'\)$`)
	rePluginOn    = regexp.MustCompile(`^SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = '(\w+)' AND PLUGIN_STATUS = 'ACTIVE'$`)
	reInstall     = regexp.MustCompile(`^INSTALL PLUGIN (\w+) SONAME '([^']*)'$`)
	reFuncCall    = regexp.MustCompile(`^SELECT (\w+)\('([^']*)', \d+\)$`)
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
		v, err := s.globalVar(m[2])
		if err != nil {
			return fakeResult{}, err
		}
		if c.user == nil {
			c.user = map[string]string{}
		}
		c.user[m[1]] = v
	case match(reSessionLogs):
		// the session's general and slow log switches: no log here
	case match(reSetGlobal):
		return fakeResult{}, s.setGlobal(c, m[1], m[2])
	case match(reShow):
		return s.show(m[1], reQuoted.FindAllStringSubmatch(m[2], -1)), nil
	case q == "SELECT VERSION(), @@version_comment, @@GLOBAL.read_only, @@GLOBAL.default_storage_engine":
		return one("VERSION(),@@version_comment,@@GLOBAL.read_only,@@GLOBAL.default_storage_engine",
			s.srv.Version.String()+s.d.versionSuffix, s.d.versionComment, s.vars["read_only"], s.vars["default_storage_engine"]), nil
	case match(reSelectVar):
		v, err := s.globalVar(m[1])
		if err != nil {
			return fakeResult{}, err
		}
		return one("@@GLOBAL."+m[1], v), nil
	case match(reUserExists):
		if _, ok := s.users["'"+m[1]+"'@'"+m[2]+"'"]; ok {
			return one("1", "1"), nil
		}
		return fakeResult{Cols: []string{"1"}}, nil
	case match(reAccount):
		return fakeResult{}, s.account(ctx, c, m[1], m[2], m[3], unquote("'"+m[4]+"'"))
	case match(reThreads):
		if !slices.Contains(s.d.replicaWords, m[2]) {
			return fakeResult{}, s.syntaxErr(strings.TrimPrefix(q, m[1]+" "))
		}
		return fakeResult{}, s.threads(m[1] == "START", m[3] != "")
	case match(reResetRepl):
		if !slices.Contains(s.d.replicaWords, m[1]) {
			return fakeResult{}, s.syntaxErr(strings.TrimPrefix(q, "RESET "))
		}
		if s.replica != nil && (s.replica.io || s.replica.sql) {
			return fakeResult{}, sqlErr(1198, "HY000", "This operation cannot be performed as you have a running slave; run STOP SLAVE first")
		}
		s.replica = nil
	case match(reShowRepl):
		cols, ok := s.d.statusColumns[m[1]]
		if !ok {
			return fakeResult{}, s.syntaxErr(strings.TrimPrefix(q, "SHOW "))
		}
		return s.replicaStatus(cols), nil
	case q == "RESET MASTER":
		s.ownSeq = 0
		if !s.d.mariadbGTID { // MySQL: clears gtid_executed too
			s.seq = 0
		}
	case match(reChange):
		return fakeResult{}, s.change(q, m[1], m[2])
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
		return fakeResult{}, s.install(m[1], m[2])
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
	case match(reFuncCall):
		return s.gtidWait(m[1], m[2])
	case match(reCount):
		n := 0
		for _, t := range s.tokens {
			if t == m[1] {
				n++
			}
		}
		return one("COUNT(*)", strconv.Itoa(n)), nil
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
	if m := s.semi(true); m != nil && isOnValue(s.vars[m.enabled]) && s.clients() == 0 {
		s.c.mu.Unlock()
		<-ctx.Done()
		s.c.mu.Lock()
		return fmt.Errorf("waiting for semi-sync ACK: %w", ctx.Err())
	}
	s.seq++
	s.ownSeq = s.seq
	s.localWrites++
	if s.clients() > 0 {
		s.yesTx++
	} else {
		s.noTx++
	}
	return nil
}

func (s *fakeServer) account(ctx context.Context, c *fakeConn, verb, grants, acct, password string) error {
	_, exists := s.users[acct]
	switch {
	case strings.HasPrefix(verb, "CREATE"):
		if !exists {
			s.users[acct] = password
		}
	case strings.HasPrefix(verb, "ALTER"):
		if !exists {
			return sqlErr(1396, "HY000", "Operation ALTER USER failed for %s", acct)
		}
		s.users[acct] = password
	case strings.HasPrefix(verb, "DROP"):
		delete(s.users, acct)
	default:
		for _, p := range strings.Split(grants, ", ") {
			if !slices.Contains(s.d.privileges, p) {
				return s.syntaxErr(strings.TrimPrefix(verb, "GRANT ")[strings.Index(grants, p):])
			}
		}
		if !exists {
			return sqlErr(1133, "28000", "Can't find any matching row in the user table")
		}
	}
	return s.write(ctx, c)
}

func (s *fakeServer) threads(start, ioOnly bool) error {
	r := s.replica
	if r == nil {
		if start {
			return sqlErr(1200, "HY000", "Misconfigured slave: MASTER_HOST was not set; Fix in config file or with CHANGE MASTER TO")
		}
		return nil // a note on real servers
	}
	r.io = start
	if !ioOnly {
		r.sql = start
	}
	if start {
		sl := s.semi(false)
		r.semi = sl != nil && isOnValue(s.vars[sl.enabled])
	}
	return nil
}
