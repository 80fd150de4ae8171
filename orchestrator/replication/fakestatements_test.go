package replication

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// The fake server's statements whose words differ between versions: each
// accepts only its dialect's spelling (fakedialect_test.go) and refuses
// any other with the real server's error.

func isOnValue(v string) bool { return strings.EqualFold(v, "ON") || v == "1" }

// sqlErr is an error as the driver reports the server's.
func sqlErr(num uint16, state, format string, args ...any) error {
	e := &mysql.MySQLError{Number: num, Message: fmt.Sprintf(format, args...)}
	copy(e.SQLState[:], state)
	return e
}

// syntaxErr is ERROR 1064 with the text from the first word not understood.
func (s *fakeServer) syntaxErr(near string) error {
	return sqlErr(1064, "42000", "You have an error in your SQL syntax; check the manual that corresponds to your %s server version for the right syntax to use near '%s' at line 1", s.d.product, near)
}

func unknownVar(name string) error {
	return sqlErr(1193, "HY000", "Unknown system variable '%s'", name)
}

// globalVar reads a global variable as SELECT @@GLOBAL.name does.
func (s *fakeServer) globalVar(name string) (string, error) {
	name = strings.ToLower(name)
	if v, ok := s.vars[name]; ok {
		return v, nil
	}
	if f, ok := s.d.gtidVars[name]; ok {
		return f(s), nil
	}
	return "", unknownVar(name)
}

func (s *fakeServer) setGlobal(c *fakeConn, name, value string) error {
	lname := strings.ToLower(name)
	v := unquote(value)
	if u, ok := strings.CutPrefix(value, "@"); ok {
		v = c.user[u]
	}
	if _, ok := s.d.gtidVars[lname]; ok {
		if lname != s.d.gtidSettable {
			return sqlErr(1238, "HY000", "Variable '%s' is a read only variable", name)
		}
		if s.replica != nil && (s.replica.io || s.replica.sql) {
			return sqlErr(1198, "HY000", "This operation cannot be performed as you have a running slave ''; run STOP SLAVE '' first")
		}
		if !s.d.gtidSyntax.MatchString(v) {
			return sqlErr(s.d.badGTID.num, s.d.badGTID.state, s.d.badGTID.msg, v)
		}
		s.slaveSeq = gtidSeq(v)
		return nil
	}
	if _, ok := s.vars[lname]; !ok {
		return unknownVar(name)
	}
	s.vars[lname] = v
	return nil
}

// gtidSeq is the last transaction number of a one-source position.
func gtidSeq(pos string) int64 {
	n, _ := strconv.ParseInt(pos[strings.LastIndexAny(pos, "-:")+1:], 10, 64)
	return n
}

// gtidWait is SELECT <func>('<position>', <timeout>): only the dialect's
// wait function exists; it answers at once (the fake applies on every
// statement), 0 when reached, else the dialect's timed-out value.
func (s *fakeServer) gtidWait(fn, pos string) (fakeResult, error) {
	if fn != s.d.waitFunc {
		return fakeResult{}, sqlErr(1305, "42000", "FUNCTION test.%s does not exist", fn)
	}
	if !s.d.gtidSyntax.MatchString(pos) {
		return fakeResult{}, sqlErr(s.d.badGTID.num, s.d.badGTID.state, s.d.badGTID.msg, pos)
	}
	col := fmt.Sprintf("%s('%s', n)", fn, pos)
	if gtidSeq(s.d.gtidVars[s.d.waitOn](s)) >= gtidSeq(pos) {
		return one(col, "0"), nil
	}
	return one(col, s.d.waitTimedOut), nil
}

// install is INSTALL PLUGIN name SONAME 'library'.
func (s *fakeServer) install(name, library string) error {
	if v := s.d.pluginBlockedBy; v != "" && isOnValue(s.vars[v]) {
		return sqlErr(1290, "HY000", "The MySQL server is running with the --%s option so it cannot execute this statement", strings.ReplaceAll(v, "_", "-"))
	}
	if s.plugins[name] {
		return sqlErr(1125, "HY000", "Function '%s' already exists", name)
	}
	var side *fakeSemiSync
	known := false
	for i, p := range s.d.semiSync {
		known = known || p.library != "" && p.library == library
		if p.plugin != "" && p.plugin == name && p.library == library {
			side = &s.d.semiSync[i]
		}
	}
	switch {
	case !known:
		return sqlErr(1126, "HY000", "Can't open shared library '%s' (errno: 2 cannot open shared object file: No such file or directory)", library)
	case side == nil:
		return sqlErr(1127, "HY000", "Can't find symbol '%s' in library", name)
	case s.semi(side.master) != nil: // the side's other plugin is loaded
		return sqlErr(1123, "HY000", "Can't initialize function '%s'; Plugin initialization function failed.", name)
	}
	s.plugins[name] = true
	s.addVars(*side)
	return nil
}

// change is CHANGE MASTER TO / CHANGE REPLICATION SOURCE TO: the
// statement and every option must be the dialect's.
func (s *fakeServer) change(q, stmt, opts string) error {
	if !slices.Contains(s.d.changeStmts, stmt) {
		return s.syntaxErr(strings.TrimPrefix(q, "CHANGE "))
	}
	if s.replica != nil && (s.replica.io || s.replica.sql) {
		return sqlErr(1198, "HY000", "This operation cannot be performed as you have a running slave; run STOP SLAVE first")
	}
	r := &fakeReplica{gtidMode: "No", retry: 60}
	if s.d.mariadbGTID { // 10.10+: GTID by default
		r.gtidMode = "Slave_Pos"
	}
	for rest := opts; rest != ""; {
		o := reOption.FindStringSubmatch(rest)
		if o == nil {
			return s.syntaxErr(rest)
		}
		what, ok := s.d.changeOptions[o[1]]
		if !ok {
			return s.syntaxErr(rest)
		}
		v := unquote(o[2])
		switch what {
		case optHost:
			r.host = v
		case optPort:
			r.port, _ = strconv.Atoi(v)
		case optUser:
			r.user = v
		case optPassword:
			r.password = v
		case optRetry:
			r.retry, _ = strconv.Atoi(v)
		case optUseGTID:
			mode, ok := map[string]string{"slave_pos": "Slave_Pos", "current_pos": "Current_Pos", "no": "No"}[strings.ToLower(v)]
			if !ok {
				return s.syntaxErr(rest[len(o[1])+3:])
			}
			r.gtidMode = mode
		case optAutoPosition:
			if v != "0" && v != "1" {
				return s.syntaxErr(rest[len(o[1])+3:])
			}
			r.gtidMode = map[bool]string{true: "AUTO", false: "No"}[v == "1"]
		}
		rest = rest[len(o[0]):]
	}
	s.replica = r
	return nil
}

func (s *fakeServer) show(kind string, names [][]string) fakeResult {
	res := fakeResult{Cols: []string{"Variable_name", "Value"}}
	for _, q := range names {
		name := q[1]
		if kind == "VARIABLES" {
			if v, err := s.globalVar(name); err == nil {
				res.Rows = append(res.Rows, []any{name, v})
			}
			continue
		}
		for _, master := range []bool{true, false} {
			if side := s.semi(master); side != nil {
				if what, ok := side.status[name]; ok {
					res.Rows = append(res.Rows, []any{name, s.semiStatus(side, what)})
				}
			}
		}
	}
	return res
}

func (s *fakeServer) semiStatus(side *fakeSemiSync, what semiStat) string {
	onOff := map[bool]string{true: "ON", false: "OFF"}
	switch what {
	case statMasterOn:
		return onOff[isOnValue(s.vars[side.enabled])]
	case statClients:
		return strconv.FormatInt(s.clients(), 10)
	case statYesTx:
		return strconv.FormatInt(s.yesTx, 10)
	case statNoTx:
		return strconv.FormatInt(s.noTx, 10)
	}
	st, _, _ := s.ioState()
	return onOff[st == "Yes" && s.replica.semi]
}

// replicaStatus is SHOW SLAVE/REPLICA STATUS with the given columns.
func (s *fakeServer) replicaStatus(cols []fakeCol) fakeResult {
	res := fakeResult{}
	for _, c := range cols {
		res.Cols = append(res.Cols, c.name)
	}
	r := s.replica
	if r == nil {
		return res
	}
	io, errno, msg := s.ioState()
	var behind any
	if io == "Yes" && r.sql {
		behind = "0" // even when frozen: the server cannot tell
	}
	val := map[colKind]any{colIOState: "", colHost: r.host, colUser: r.user, colPort: strconv.Itoa(r.port),
		colRetry: strconv.Itoa(r.retry), colIORunning: io, colSQLRunning: map[bool]string{true: "Yes", false: "No"}[r.sql],
		colBehind: behind, colIOErrno: strconv.Itoa(errno), colIOError: msg, colSQLErrno: "0", colSQLError: "",
		colUsingGTID: r.gtidMode, colGTIDIOPos: s.slavePos(), colExecuted: s.executed(),
		colAutoPosition: map[bool]string{true: "1", false: "0"}[r.gtidMode == "AUTO"]}
	row := make([]any, len(cols))
	for i, c := range cols {
		row[i] = val[c.what]
	}
	res.Rows = [][]any{row}
	return res
}
