package lab

import (
	"fmt"
	"os"
	"testing"
)

// TestMain lets the test binary stand in for orch as a lab host's PID 1:
// Up copies os.Executable() (this binary, in tests) into the state dir and
// starts it as `... lab hostinit --name N --root DIR`.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "lab" && os.Args[2] == "hostinit" {
		if err := HostInit(os.Args[3:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
