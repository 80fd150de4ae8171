package flavor

import (
	"strings"
	"testing"
)

// manualRule is what a manual says a server's replication setup must say
// (must) and cannot say (mustNot: removed there, or unknown).
type manualRule struct {
	why           string
	must, mustNot []string
}

// manualRules are written by hand from the manuals, as digested in
// ../shared/reference/mysql-sysbench.md (§1 semi-sync, §2 statements by
// flavour) and mysql-9.7.md, never from this package's tables: the golden
// files are rendered by the code, so they can only say the code did not
// change; these say whether it is right.
func manualRules(s Server) []manualRule {
	at := func(ma, mi, pa int) bool { return s.Version.AtLeast(V(ma, mi, pa)) }
	rules := []manualRule{{why: "§2 replication user: GRANT REPLICATION SLAVE", must: []string{"GRANT REPLICATION SLAVE"}}}
	if s.Flavor == MariaDB {
		return append(rules,
			manualRule{why: "§1.3: semi-sync is built in (no plugin); its wait point defaults to AFTER_COMMIT, so AFTER_SYNC is set; there is no wait_for_slave_count",
				must:    []string{"SET GLOBAL rpl_semi_sync_master_enabled = ON", "SET GLOBAL rpl_semi_sync_master_wait_point = 'AFTER_SYNC'", "SET GLOBAL rpl_semi_sync_slave_enabled = ON"},
				mustNot: []string{"INSTALL PLUGIN", "wait_for_slave_count", "rpl_semi_sync_source"}},
			manualRule{why: "§2 MariaDB: CHANGE MASTER TO with MASTER_USE_GTID = slave_pos; CHANGE REPLICATION SOURCE TO and RESET BINARY LOGS AND GTIDS are syntax errors",
				must:    []string{"CHANGE MASTER TO", "MASTER_USE_GTID = slave_pos"},
				mustNot: []string{"CHANGE REPLICATION SOURCE", "RESET BINARY LOGS AND GTIDS", "AUTO_POSITION"}},
			manualRule{why: "§1.4: the IO thread is restarted after semi-sync is enabled on a running replica",
				must: []string{"STOP SLAVE IO_THREAD;", "START SLAVE IO_THREAD;"}},
		)
	}
	rules = append(rules, manualRule{why: "§2 GTID on MySQL: gtid_mode and enforce_gtid_consistency ON on every node",
		must: []string{"-- config on every node: gtid_mode=ON enforce_gtid_consistency=ON"}})
	if at(8, 0, 26) {
		rules = append(rules, manualRule{why: "§1.2: from 8.0.26 the source/replica plugins and names; the old ones are not aliases",
			must: []string{"INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'", "INSTALL PLUGIN rpl_semi_sync_replica SONAME 'semisync_replica.so'",
				"SET GLOBAL rpl_semi_sync_source_wait_point = 'AFTER_SYNC'", "SET GLOBAL rpl_semi_sync_source_wait_for_replica_count = 2",
				"SET GLOBAL rpl_semi_sync_source_enabled = ON", "SET GLOBAL rpl_semi_sync_replica_enabled = ON"},
			mustNot: []string{"semisync_master", "semisync_slave", "rpl_semi_sync_master", "rpl_semi_sync_slave"}})
	} else {
		rules = append(rules, manualRule{why: "§1.1: before 8.0.26 the master/slave plugins (semisync_master.so, semisync_slave.so)",
			must: []string{"INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'", "INSTALL PLUGIN rpl_semi_sync_slave SONAME 'semisync_slave.so'",
				"SET GLOBAL rpl_semi_sync_master_wait_point = 'AFTER_SYNC'", "SET GLOBAL rpl_semi_sync_master_wait_for_slave_count = 2",
				"SET GLOBAL rpl_semi_sync_master_enabled = ON", "SET GLOBAL rpl_semi_sync_slave_enabled = ON"},
			mustNot: []string{"semisync_source", "rpl_semi_sync_source", "rpl_semi_sync_replica"}})
	}
	if at(8, 0, 22) {
		rules = append(rules, manualRule{why: "§2: START/STOP REPLICA and SHOW REPLICA STATUS from 8.0.22; §1.4 the IO thread restarted",
			must: []string{"START REPLICA;", "SHOW REPLICA STATUS", "STOP REPLICA IO_THREAD;", "START REPLICA IO_THREAD;"}})
	} else {
		rules = append(rules, manualRule{why: "§2: START/STOP SLAVE and SHOW SLAVE STATUS before 8.0.22; §1.4 the IO thread restarted",
			must:    []string{"START SLAVE;", "SHOW SLAVE STATUS", "STOP SLAVE IO_THREAD;", "START SLAVE IO_THREAD;"},
			mustNot: []string{"REPLICA;", "SHOW REPLICA STATUS"}})
	}
	if at(8, 0, 23) {
		rules = append(rules, manualRule{why: "§2: CHANGE REPLICATION SOURCE TO ... SOURCE_AUTO_POSITION = 1 from 8.0.23",
			must: []string{"CHANGE REPLICATION SOURCE TO", "SOURCE_AUTO_POSITION = 1"}, mustNot: []string{"CHANGE MASTER TO"}})
	} else {
		rules = append(rules, manualRule{why: "§2: CHANGE MASTER TO ... MASTER_AUTO_POSITION = 1 before 8.0.23",
			must: []string{"CHANGE MASTER TO", "MASTER_AUTO_POSITION = 1"}, mustNot: []string{"CHANGE REPLICATION SOURCE"}})
	}
	switch {
	case at(8, 0, 23):
		rules = append(rules, manualRule{why: "§2 caching_sha2_password: GET_SOURCE_PUBLIC_KEY = 1 from 8.0.23",
			must: []string{"GET_SOURCE_PUBLIC_KEY = 1"}})
	case at(8, 0, 0):
		rules = append(rules, manualRule{why: "§2 caching_sha2_password: GET_MASTER_PUBLIC_KEY = 1 before 8.0.23",
			must: []string{"GET_MASTER_PUBLIC_KEY = 1"}})
	default:
		rules = append(rules, manualRule{why: "5.7 has no caching_sha2_password default: no public key option",
			mustNot: []string{"PUBLIC_KEY"}})
	}
	if at(8, 4, 0) {
		rules = append(rules, manualRule{why: "§2: 8.4.0 removed the old statements and MASTER_* options (ERROR 1064); RESET BINARY LOGS AND GTIDS, SHOW BINARY LOG STATUS",
			must:    []string{"RESET BINARY LOGS AND GTIDS;", "SHOW BINARY LOG STATUS;"},
			mustNot: []string{"START SLAVE", "STOP SLAVE", "SHOW SLAVE STATUS", "CHANGE MASTER", "RESET MASTER", "SHOW MASTER STATUS", "MASTER_"}})
	} else {
		rules = append(rules, manualRule{why: "§2: RESET MASTER and SHOW MASTER STATUS before 8.4",
			must: []string{"RESET MASTER;", "SHOW MASTER STATUS;"}, mustNot: []string{"RESET BINARY LOGS AND GTIDS", "SHOW BINARY LOG STATUS"}})
	}
	return rules
}

// TestGoldenFollowsTheManuals holds every pinned server's statements (the
// code's text, which TestGolden also compares with its file) to the
// manuals' vocabulary for that server.
func TestGoldenFollowsTheManuals(t *testing.T) {
	for _, s := range goldenServers {
		got := renderGolden(t, s)
		for _, r := range manualRules(s) {
			for _, m := range r.must {
				if !strings.Contains(got, m) {
					t.Errorf("%s: no %q (%s)", s, m, r.why)
				}
			}
			for _, m := range r.mustNot {
				if strings.Contains(got, m) {
					t.Errorf("%s: %q, which the manual rules out (%s)", s, m, r.why)
				}
			}
		}
	}
}

// The rules can fail: a 5.7 text in 8.4's place breaks several.
func TestManualRulesCatchTheWrongServer(t *testing.T) {
	got := renderGolden(t, Server{MySQL, V(5, 7, 44)})
	broken := 0
	for _, r := range manualRules(Server{MySQL, V(8, 4, 3)}) {
		for _, m := range r.must {
			if !strings.Contains(got, m) {
				broken++
			}
		}
	}
	if broken < 5 {
		t.Errorf("only %d of 8.4's required fragments missing from 5.7's text", broken)
	}
}
