package flavor

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Defaults for Params.
const (
	DefaultMasterPort = 3306
	DefaultReplUser   = "repl"
	DefaultReplHost   = "%"
	// DefaultSemiSyncTimeoutMS is large enough that the master never falls
	// back to asynchronous replication during a benchmark.
	DefaultSemiSyncTimeoutMS uint64 = 1_000_000_000_000_000_000
	DefaultWaitPoint                = "AFTER_SYNC"
	// DefaultWaitForReplicaCount is the acknowledgement count when Params
	// leave it zero (the golden files: with two slaves, a commit waits for
	// both). orch up always passes the inventory's
	// replication.semi_sync.wait_for_slave_count, whose default is 1 (the
	// server's own). MariaDB has no such setting and always waits for one.
	DefaultWaitForReplicaCount = 2
)

// maxUserLen is the shortest user name limit of the supported servers
// (MySQL 5.7.8+: 32 characters).
const maxUserLen = 32

// CheckReplPassword says, in one line, when the server cannot take
// password as its replication password (too long for CHANGE MASTER / CHANGE
// REPLICATION SOURCE): checked before anything changes, where otherwise the
// server would refuse it only once every host had restarted.
func (s Server) CheckReplPassword(password string) error {
	limit, err := strconv.Atoi(s.value(MaxReplPassword))
	if err != nil {
		return nil // not in the table: the server says
	}
	if n := utf8.RuneCountInString(password); n > limit {
		return fmt.Errorf("the replication password is %d characters; %s takes at most %d (%s's password)", n, s, limit, s.value(ChangeSourceStmt))
	}
	return nil
}

// Params are the inputs of the replication phases. Zero fields take the
// defaults above; ReplPassword and MasterHost are required.
type Params struct {
	MasterHost string
	MasterPort int
	ReplUser   string
	// ReplHost is the host part of the replication account ('repl'@'%').
	ReplHost     string
	ReplPassword string
	// SemiSyncTimeoutMS is how long, in milliseconds, the master waits for
	// an acknowledgement before falling back to asynchronous replication.
	SemiSyncTimeoutMS uint64
	// WaitPoint is AFTER_SYNC (lossless) or AFTER_COMMIT. MariaDB defaults
	// to AFTER_COMMIT, so it is always set explicitly.
	WaitPoint string
	// WaitForReplicaCount is how many acknowledgements a commit waits for,
	// on servers that have the setting.
	WaitForReplicaCount int
	// Fresh means the slaves start from the master's first binlog: each
	// slave's own binlog and GTID state are wiped. Set it when building a
	// cluster; leave it off when re-pointing slaves that hold data.
	Fresh bool
	// ReplAccountKept, when set, says why the replication account is not
	// orch's to change (the inventory names it, orch did not make it):
	// Setup uses an existing one as it is, Teardown keeps it.
	ReplAccountKept string
}

// Resolve fills defaults and validates p.
func (p Params) Resolve() (Params, error) {
	if p.MasterPort == 0 {
		p.MasterPort = DefaultMasterPort
	}
	if p.ReplUser == "" {
		p.ReplUser = DefaultReplUser
	}
	if p.ReplHost == "" {
		p.ReplHost = DefaultReplHost
	}
	if p.SemiSyncTimeoutMS == 0 {
		p.SemiSyncTimeoutMS = DefaultSemiSyncTimeoutMS
	}
	if p.WaitPoint == "" {
		p.WaitPoint = DefaultWaitPoint
	}
	p.WaitPoint = strings.ToUpper(strings.TrimSpace(p.WaitPoint))
	if p.WaitForReplicaCount == 0 {
		p.WaitForReplicaCount = DefaultWaitForReplicaCount
	}
	var errs []error
	if p.MasterHost == "" {
		errs = append(errs, errors.New("master host is empty"))
	}
	if p.MasterPort < 1 || p.MasterPort > 65535 {
		errs = append(errs, fmt.Errorf("master port %d is out of range 1-65535", p.MasterPort))
	}
	if n := utf8.RuneCountInString(p.ReplUser); n > maxUserLen {
		errs = append(errs, fmt.Errorf("replication user is %d characters long (max %d)", n, maxUserLen))
	}
	if p.ReplPassword == "" {
		errs = append(errs, errors.New("replication password is empty"))
	}
	for _, f := range []struct{ what, v string }{
		{"master host", p.MasterHost}, {"replication user", p.ReplUser},
		{"replication account host", p.ReplHost}, {"replication password", p.ReplPassword},
	} {
		if err := checkText(f.what, f.v); err != nil {
			errs = append(errs, err)
		}
	}
	if p.WaitPoint != "AFTER_SYNC" && p.WaitPoint != "AFTER_COMMIT" {
		errs = append(errs, fmt.Errorf("semi-sync wait point %q: want AFTER_SYNC or AFTER_COMMIT", p.WaitPoint))
	}
	if p.WaitForReplicaCount < 1 {
		errs = append(errs, fmt.Errorf("semi-sync replica count %d: want at least 1", p.WaitForReplicaCount))
	}
	if err := errors.Join(errs...); err != nil {
		return p, fmt.Errorf("replication parameters: %w", err)
	}
	return p, nil
}

// keyword builds "<verb> SLAVE<rest>" / "<verb> REPLICA<rest>".
func (s Server) keyword(verb, rest string) Statement {
	return plain(verb + " " + s.value(ReplicaKeyword) + rest)
}

// pluginGuard is true (returns a row) while plugin is not installed.
func pluginGuard(plugin string) string {
	return "SELECT 1 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = " +
		QuoteString(plugin) + ")"
}

// pluginActive is true (returns a row) while plugin is installed and active.
func pluginActive(plugin string) string {
	return "SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = " + QuoteString(plugin) +
		" AND PLUGIN_STATUS = 'ACTIVE'"
}

// installPlugin installs a plugin unless it is already there; nothing
// where the feature is built in. Where a read-only switch refuses INSTALL
// PLUGIN (PluginInstallBlockedBy), it is lifted around the install and put
// back as it was.
func (s Server) installPlugin(plugin, library string) []Statement {
	if plugin == "" {
		return nil
	}
	st := new(stmtBuilder).raw("INSTALL PLUGIN ", plugin, " SONAME ").str(library).done()
	st.OnlyIf = pluginGuard(plugin)
	v := s.value(PluginInstallBlockedBy)
	if v == "" {
		return []Statement{st}
	}
	lift := plain("SET GLOBAL " + v + " = OFF")
	lift.OnlyIf = st.OnlyIf
	return []Statement{
		plain("SET @orch_" + v + " = @@GLOBAL." + v),
		lift, st,
		plain("SET GLOBAL " + v + " = @orch_" + v),
	}
}

// ReplUser creates or updates the replication account with binary logging
// off for the session: the account then never replicates (no errant GTIDs
// on the slaves) and its creation cannot block on a semi-sync master that
// has no slave yet (the lab's "ordering trap").
func (s Server) ReplUser(p Params) ([]Statement, error) {
	p, err := p.Resolve()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s, err)
	}
	acct := quoteAccount(p.ReplUser, p.ReplHost)
	return slices.Concat([]Statement{plain("SET SESSION sql_log_bin = 0")},
		s.unlogged(
			new(stmtBuilder).raw("CREATE USER IF NOT EXISTS ", acct, " IDENTIFIED BY ").secretStr(p.ReplPassword).done(),
			// IF NOT EXISTS keeps an old password: set it again.
			new(stmtBuilder).raw("ALTER USER ", acct, " IDENTIFIED BY ").secretStr(p.ReplPassword).done(),
		),
		[]Statement{
			plain("GRANT " + s.value(ReplGrants) + " ON *.* TO " + acct),
			plain("SET SESSION sql_log_bin = 1"),
		}), nil
}

// MasterSemiSyncSettings are the master's semi-sync settings, in the order
// they are applied: enabling comes last, once timeout and wait point hold.
func (s Server) MasterSemiSyncSettings(p Params) ([]Setting, error) {
	p, err := p.Resolve()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s, err)
	}
	n := s.SemiSync()
	out := []Setting{
		{n.MasterWaitPoint, p.WaitPoint},
		{n.MasterTimeout, strconv.FormatUint(p.SemiSyncTimeoutMS, 10)},
	}
	if n.MasterWaitCount != "" {
		out = append(out, Setting{n.MasterWaitCount, strconv.Itoa(p.WaitForReplicaCount)})
	}
	return append(out, Setting{n.MasterEnabled, "ON"}), nil
}

// SlaveSemiSyncSettings are a slave's semi-sync settings.
func (s Server) SlaveSemiSyncSettings() []Setting {
	return []Setting{{s.SemiSync().SlaveEnabled, "ON"}}
}

// MasterSetup prepares the master: replication account, then semi-sync.
func (s Server) MasterSetup(p Params) ([]Statement, error) {
	user, err := s.ReplUser(p)
	if err != nil {
		return nil, err
	}
	semi, err := s.MasterSemiSync(p)
	if err != nil {
		return nil, err
	}
	return append(user, semi...), nil
}

// MasterSemiSync makes the master semi-synchronous: the plugin where
// semi-sync is one, then the settings, enabling last.
func (s Server) MasterSemiSync(p Params) ([]Statement, error) {
	settings, err := s.MasterSemiSyncSettings(p)
	if err != nil {
		return nil, err
	}
	n := s.SemiSync()
	out := s.installPlugin(n.MasterPlugin, n.MasterLibrary)
	for _, st := range settings {
		out = append(out, SetGlobal(st))
	}
	return out, nil
}

// connectRetrySeconds is how often a slave retries a lost master connection.
const connectRetrySeconds = 2

// changeSource builds CHANGE MASTER TO / CHANGE REPLICATION SOURCE TO with
// GTID positioning and, on MySQL 8, the public key option.
func (s Server) changeSource(p Params) Statement {
	pre := s.value(SourceOptionPrefix)
	b := new(stmtBuilder).raw(s.value(ChangeSourceStmt), " ")
	b.raw(pre, "HOST = ").str(p.MasterHost)
	b.raw(", ", pre, "PORT = ", strconv.Itoa(p.MasterPort))
	b.raw(", ", pre, "USER = ").str(p.ReplUser)
	b.raw(", ", pre, "PASSWORD = ").secretStr(p.ReplPassword)
	// The default retry (60 s) would keep a slave away for up to a minute
	// after every master restart that `orch up` does.
	b.raw(", ", pre, "CONNECT_RETRY = ", strconv.Itoa(connectRetrySeconds))
	if s.UsesMariaDBGTID() {
		b.raw(", MASTER_USE_GTID = slave_pos")
	} else {
		b.raw(", ", pre, "AUTO_POSITION = 1")
	}
	if opt := s.value(PublicKeyOption); opt != "" {
		b.raw(", ", opt, " = 1")
	}
	return b.done()
}

// unlogged wraps statements that hold a secret so that the server's
// general and slow logs never see them.
func (s Server) unlogged(sts ...Statement) []Statement {
	var out []Statement
	for _, q := range strings.Split(s.value(UnloggedSession), "; ") {
		out = append(out, plain(q))
	}
	out = append(out, sts...)
	for _, q := range strings.Split(s.value(LoggedSession), "; ") {
		out = append(out, plain(q))
	}
	return out
}

// SlaveSetup points a slave at the master with GTID positioning and
// semi-sync. The slave's semi-sync is enabled before replication starts;
// the IO thread is restarted anyway, because a slave registers as
// semi-sync only when its IO thread connects, and a re-run that finds
// replication running must still end up semi-synchronous.
func (s Server) SlaveSetup(p Params) ([]Statement, error) {
	p, err := p.Resolve()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s, err)
	}
	out := s.StopReplication()
	if p.Fresh {
		out = append(out, s.ResetBinlogs())
		if s.UsesMariaDBGTID() {
			// Empty: replicate from the start of the master's binlogs.
			out = append(out, plain("SET GLOBAL gtid_slave_pos = ''"))
		}
	}
	out = append(out, s.unlogged(s.changeSource(p))...)
	out = append(out, s.SlaveSemiSync()...)
	out = append(out, s.keyword("START", ""))
	return append(out, s.IOThreadRestart()...), nil
}

// SlaveSemiSync enables a slave's side of semi-sync: the plugin where
// semi-sync is one, then the setting. A running slave acknowledges only
// after its IO thread reconnects (EnableSlaveSemiSync).
func (s Server) SlaveSemiSync() []Statement {
	n := s.SemiSync()
	out := s.installPlugin(n.SlavePlugin, n.SlaveLibrary)
	for _, st := range s.SlaveSemiSyncSettings() {
		out = append(out, SetGlobal(st))
	}
	return out
}

// EnableSlaveSemiSync makes a slave that already replicates the right
// master semi-synchronous: SlaveSemiSync, then an IO thread reconnect.
func (s Server) EnableSlaveSemiSync() []Statement {
	return append(s.SlaveSemiSync(), s.IOThreadRestart()...)
}

// IOThreadRestart reconnects a slave's IO thread: the only way a running
// slave starts (or stops) acknowledging as semi-sync after its
// rpl_semi_sync_*_enabled changes.
func (s Server) IOThreadRestart() []Statement {
	return []Statement{s.keyword("STOP", " IO_THREAD"), s.keyword("START", " IO_THREAD")}
}

// ResetBinlogs wipes the server's binary logs and GTID history (RESET
// MASTER, or RESET BINARY LOGS AND GTIDS on MySQL 8.4+): for freshly
// initialised servers, so that slaves inherit no local transactions.
func (s Server) ResetBinlogs() Statement { return plain(s.value(ResetBinlogsStmt)) }

// disableSemiSync turns a semi-sync role off, only if its plugin is loaded
// where it is a plugin (otherwise the variable does not exist).
func disableSemiSync(variable, plugin string) Statement {
	st := SetGlobal(Setting{variable, "OFF"})
	if plugin != "" {
		st.OnlyIf = pluginActive(plugin)
	}
	return st
}

// SlaveTeardown stops replication and forgets the master, then turns the
// slave's semi-sync off (StopReplication, SlaveSemiSyncOff).
func (s Server) SlaveTeardown() []Statement {
	return append(s.StopReplication(), s.SlaveSemiSyncOff()...)
}

// StopReplication stops a slave and makes it forget its master.
func (s Server) StopReplication() []Statement {
	return []Statement{s.keyword("STOP", ""), s.keyword("RESET", " ALL")}
}

// SlaveSemiSyncOff turns a slave's semi-sync off; where semi-sync is a
// plugin, only while the plugin is loaded (else the variable is absent).
func (s Server) SlaveSemiSyncOff() []Statement {
	n := s.SemiSync()
	return []Statement{disableSemiSync(n.SlaveEnabled, n.SlavePlugin)}
}

// MasterTeardown turns semi-sync off on the master, so that writes no
// longer wait for slaves that are gone.
func (s Server) MasterTeardown() []Statement {
	n := s.SemiSync()
	return []Statement{disableSemiSync(n.MasterEnabled, n.MasterPlugin)}
}

// SetupPlan is what orch up runs to wire replication on a cluster that does
// not replicate yet: the master's phase, then every slave's. On a cluster
// where a part already holds (the account exists, a slave replicates from
// this master with semi-sync active) replication.Setup skips or narrows
// that part; it never runs anything that is not here.
func (s Server) SetupPlan(p Params) ([]Phase, error) {
	master, err := s.MasterSetup(p)
	if err != nil {
		return nil, err
	}
	slave, err := s.SlaveSetup(p)
	if err != nil {
		return nil, err
	}
	return []Phase{
		{Name: "master-setup", Target: TargetMaster, Statements: master},
		{Name: "slave-setup", Target: TargetSlaves, Statements: slave},
	}, nil
}

// TeardownPlan lists the teardown statements of each role, for golden
// files: every slave forgets its master and turns semi-sync off, and the
// master turns semi-sync off. replication.Teardown (orch down) runs them
// in another order, the master's first so that no write waits for slaves
// about to go, each only where it is still set up, and then drops the
// replication account.
func (s Server) TeardownPlan() []Phase {
	return []Phase{
		{Name: "slave-teardown", Target: TargetSlaves, Statements: s.SlaveTeardown()},
		{Name: "master-teardown", Target: TargetMaster, Statements: s.MasterTeardown()},
	}
}
