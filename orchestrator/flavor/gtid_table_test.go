package flavor

import "testing"

// TestGTIDGapTable: the cases the replication package pinned before the gap
// arithmetic moved here, with errors checked only for being errors.
func TestGTIDGapTable(t *testing.T) {
	for _, tc := range []struct {
		name           string
		master, slave  string
		mariadb        bool
		want           int64
		wantErrContain string
	}{
		{"mariadb equal", "0-1-100", "0-1-100", true, 0, ""},
		{"mariadb behind", "0-1-100", "0-1-90", true, 10, ""},
		{"mariadb empty slave", "0-1-7", "", true, 7, ""},
		{"mariadb both empty", "", "", true, 0, ""},
		// Sequence numbers count per domain, whichever server wrote them.
		{"mariadb domains", "0-1-100,1-2-50", "0-3-95, 1-2-50", true, 5, ""},
		{"mariadb slave ahead", "0-1-5", "0-1-9", true, 0, ""},
		{"mariadb missing domain", "0-1-5,2-1-3", "0-1-5", true, 3, ""},
		{"mariadb garbage", "0-1", "", true, 0, "want domain-server-sequence"},
		{"mariadb not a number", "0-1-x", "", true, 0, "master position"},

		{"mysql equal", "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5", "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5", false, 0, ""},
		{"mysql behind", "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-500", "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-480", false, 20, ""},
		{"mysql holes", "u1:1-10:20-30", "u1:1-5:25", false, 5 + 10, ""},
		{"mysql multi uuid with newline", "u1:1-3,\nu2:1-4", "u2:2-3", false, 3 + 2, ""},
		{"mysql slave extra uuid", "u1:1-3", "u1:1-3,u9:1-100", false, 0, ""},
		{"mysql tags", "u1:1-3:tag1:1-2", "u1:1-3", false, 2, ""},
		{"mysql overlapping ranges", "u1:1-5:3-8", "", false, 8, ""},
		{"mysql bad range", "u1:5-1", "", false, 0, "ends before it starts"},
		{"mysql no ranges", "u1", "", false, 0, "want uuid:ranges"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := gtidMySQL80(t)
			if tc.mariadb {
				srv = gtidMariaDB(t)
			}
			got, err := srv.GTIDGap(tc.master, tc.slave)
			if tc.wantErrContain != "" {
				if err == nil {
					t.Fatalf("no error, want one like %q", tc.wantErrContain)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("GTIDGap = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}
