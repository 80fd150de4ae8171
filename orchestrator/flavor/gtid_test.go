package flavor

import (
	"testing"
)

func gtidServer(t testing.TB, f Flavor, v Version) Server {
	t.Helper()
	s, err := New(f, v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func gtidMariaDB(t testing.TB) Server { return gtidServer(t, MariaDB, V(10, 11, 19)) }
func gtidMySQL80(t testing.TB) Server { return gtidServer(t, MySQL, V(8, 0, 36)) }

const (
	uuidA = "3E11FA47-71CA-11E1-9E33-C80AA9429562"
	uuidB = "4d5e6f70-0000-11e1-9e33-c80aa9429562"
)

func TestGTIDGap(t *testing.T) {
	for _, tc := range []struct {
		name          string
		mysql         bool
		master, slave string
		want          int64
	}{
		{"mariadb caught up", false, "0-1-3", "0-1-3", 0},
		{"mariadb behind", false, "0-1-30000", "0-1-12", 29988},
		{"mariadb slave ahead", false, "0-1-5", "0-1-9", 0},
		{"mariadb empty slave", false, "0-1-40", "", 40},
		{"mariadb domains", false, "0-1-100,1-2-50", "1-2-40,0-1-100", 10},
		{"mariadb domain unknown to slave", false, "0-1-100,7-2-5", "0-1-100", 5},
		// gtid_binlog_pos lists each server that wrote in a domain.
		{"mariadb servers in a domain", false, "0-1-100,0-2-120", "0-2-110", 10},
		{"mysql behind", true, uuidA + ":1-100", uuidA + ":1-90", 10},
		{"mysql holes", true, uuidA + ":1-100", uuidA + ":1-50:60-100", 9},
		{"mysql case and newlines", true, uuidA + ":1-10,\n" + uuidB + ":1-5", "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-10", 5},
		{"mysql single numbers", true, uuidA + ":1-3:5:7", uuidA + ":5", 4},
		{"mysql tags", true, uuidA + ":1-10:nightly:1-5", uuidA + ":1-10", 5},
		{"mysql overlapping ranges", true, uuidA + ":1-10:5-20", uuidA + ":1-3", 17},
		{"mysql empty", true, "", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := gtidMariaDB(t)
			if tc.mysql {
				srv = gtidMySQL80(t)
			}
			got, err := srv.GTIDGap(tc.master, tc.slave)
			if err != nil || got != tc.want {
				t.Fatalf("GTIDGap(%q, %q) = %d, %v; want %d", tc.master, tc.slave, got, err, tc.want)
			}
		})
	}
}

func TestGTIDCount(t *testing.T) {
	for _, tc := range []struct {
		mysql bool
		pos   string
		want  uint64
	}{
		{false, "0-1-3", 3},
		{false, "0-1-3,1-1-7", 10},
		{false, "", 0},
		{true, uuidA + ":1-5:7-9," + uuidB + ":1", 9},
	} {
		srv := gtidMariaDB(t)
		if tc.mysql {
			srv = gtidMySQL80(t)
		}
		if got, err := srv.GTIDCount(tc.pos); err != nil || got != tc.want {
			t.Errorf("gtidCount(%q) = %d, %v; want %d", tc.pos, got, err, tc.want)
		}
	}
}

func TestGTIDGapRejectsGarbage(t *testing.T) {
	for _, tc := range []struct {
		mysql         bool
		master, slave string
	}{
		{false, "0-1", "0-1-1"},
		{false, "0-1-x", ""},
		{false, "0-1-1", "a-b-c"},
		{true, uuidA, ""},
		{true, uuidA + ":5-3", ""},
		{true, uuidA + ":1-", ""},
		{true, "", uuidA + "::1"},
	} {
		srv := gtidMariaDB(t)
		if tc.mysql {
			srv = gtidMySQL80(t)
		}
		if n, err := srv.GTIDGap(tc.master, tc.slave); err == nil {
			t.Errorf("GTIDGap(%q, %q) = %d, want an error", tc.master, tc.slave, n)
		}
	}
}
