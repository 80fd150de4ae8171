package flavor

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// fakeSession records what runs; guards answer from exists, and failOn
// makes the statement starting with that prefix fail with failErr.
type fakeSession struct {
	ran     []string
	exists  map[string]bool
	failOn  string
	failErr error
}

func (f *fakeSession) Exec(_ context.Context, stmts ...string) error {
	for _, q := range stmts {
		f.ran = append(f.ran, q)
		if f.failOn != "" && strings.HasPrefix(q, f.failOn) {
			return f.failErr
		}
	}
	return nil
}

// Query answers a guard: one row when it is to pass, none otherwise.
func (f *fakeSession) Query(_ context.Context, q string) ([][]string, error) {
	ok, known := f.exists[q]
	if !known {
		return nil, fmt.Errorf("unexpected guard %s", q)
	}
	if !ok {
		return nil, nil
	}
	return [][]string{{"1"}}, nil
}

func TestRunHonoursGuards(t *testing.T) {
	s := mustServer(t, MySQL, V(8, 0, 36))
	sts, err := s.SlaveSetup(testParams())
	if err != nil {
		t.Fatal(err)
	}
	guard := pluginGuard("rpl_semi_sync_replica")
	for _, installed := range []bool{false, true} {
		f := &fakeSession{exists: map[string]bool{guard: !installed}}
		if err := Run(context.Background(), f, sts); err != nil {
			t.Fatal(err)
		}
		ranInstall := false
		for _, q := range f.ran {
			ranInstall = ranInstall || strings.HasPrefix(q, "INSTALL PLUGIN")
		}
		// Installed: neither the install nor lifting super_read_only for it.
		if ranInstall == installed || len(f.ran) != len(sts)-2*btoi(installed) {
			t.Errorf("plugin installed=%t: ran %q", installed, f.ran)
		}
		if f.ran[len(f.ran)-1] != "START REPLICA IO_THREAD" {
			t.Errorf("did not run to the end: %q", f.ran)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestRunStopsAndScrubsSecrets(t *testing.T) {
	s := mustServer(t, MariaDB, V(10, 11, 19))
	p := testParams()
	p.ReplPassword = "pa'ss-XYZZY"
	sts, err := s.SlaveSetup(p)
	if err != nil {
		t.Fatal(err)
	}
	// A syntax error quotes the statement from the failing token on, and
	// some drivers repeat the statement: neither may reach the caller.
	driverErr := errors.New("Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near 'pa''ss-XYZZY', MASTER_USE_GTID = slave_pos' at line 1 (statement: MASTER_PASSWORD = 'pa''ss-XYZZY' / pa'ss-XYZZY)")
	f := &fakeSession{failOn: "CHANGE MASTER", failErr: driverErr}
	err = Run(context.Background(), f, sts)
	if err == nil {
		t.Fatal("failure not reported")
	}
	if strings.Contains(err.Error(), "XYZZY") || errors.Is(err, driverErr) {
		t.Fatalf("secret reaches the caller: %v", err)
	}
	for _, want := range []string{"CHANGE MASTER TO MASTER_HOST = '10.0.0.1'", "MASTER_PASSWORD = '<redacted>'", "Error 1064 (42000)", "near <redacted> at line 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if last := f.ran[len(f.ran)-1]; !strings.HasPrefix(last, "CHANGE MASTER") {
		t.Errorf("kept running after the failure: %q", f.ran)
	}

	// Statements without secrets wrap the driver error for errors.Is/As.
	plainErr := errors.New("Error 1198 (HY000): This operation cannot be performed with a running slave")
	f = &fakeSession{failOn: "RESET SLAVE", failErr: plainErr}
	if err := Run(context.Background(), f, sts); !errors.Is(err, plainErr) || !strings.HasPrefix(err.Error(), "RESET SLAVE ALL: ") {
		t.Errorf("plain failure = %v", err)
	}
	if !reflect.DeepEqual(f.ran, []string{"STOP SLAVE", "RESET SLAVE ALL"}) {
		t.Errorf("ran %q", f.ran)
	}
}
