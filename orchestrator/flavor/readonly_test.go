package flavor

import (
	"reflect"
	"testing"
)

// From the manuals: MySQL 5.7.8+ and Percona Server have super_read_only
// (which also stops SUPER); MariaDB has read_only only (10.11: READ ONLY
// ADMIN bypasses it). RESET MASTER clears MySQL's gtid_executed;
// MariaDB forgets applied GTIDs with SET GLOBAL gtid_slave_pos = ”.
func TestReadOnlyAndGTIDReset(t *testing.T) {
	for _, tc := range []struct {
		s     Server
		ro    []Setting
		reset string
	}{
		{Server{Flavor: MySQL, Version: V(8, 0, 36)}, []Setting{{"read_only", "ON"}, {"super_read_only", "ON"}}, "RESET MASTER"},
		{Server{Flavor: MySQL, Version: V(8, 4, 0)}, []Setting{{"read_only", "ON"}, {"super_read_only", "ON"}}, "RESET BINARY LOGS AND GTIDS"},
		{Server{Flavor: Percona, Version: V(5, 7, 44)}, []Setting{{"read_only", "ON"}, {"super_read_only", "ON"}}, "RESET MASTER"},
		{Server{Flavor: MariaDB, Version: V(10, 11, 6)}, []Setting{{"read_only", "ON"}}, "SET GLOBAL gtid_slave_pos = ''"},
	} {
		if got := tc.s.ReadOnlySettings(); !reflect.DeepEqual(got, tc.ro) {
			t.Errorf("%s: read-only settings %v, want %v", tc.s, got, tc.ro)
		}
		if got := tc.s.GTIDReset().SQL; got != tc.reset {
			t.Errorf("%s: GTID reset %q, want %q", tc.s, got, tc.reset)
		}
	}
}
