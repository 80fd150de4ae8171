package server

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// An existing MySQL 8 server: a dynamic knob is set with SET GLOBAL and
// put back; a static one (innodb_log_file_size before 8.0.30, error 1238
// on SET GLOBAL, as the manual says of read-only variables), an unknown
// name, and log_bin (read only, whatever the option file means by it)
// are refused before anything is set. No file, no restart.
func TestDynamicKnobs(t *testing.T) {
	ctx := context.Background()
	h := newFakeHost(mysqlVars())
	h.vars["log_bin"] = "ON"
	h.readOnly["innodb_log_file_size"], h.readOnly["log_bin"] = true, true
	n := fakeNode(h, testInventory(nil).Hosts[0], mustServer(t, flavor.MySQL, flavor.V(8, 0, 28)))

	_, err := n.CheckDynamic(ctx, []KV{{"sync_binlog", "0"}, {"innodb_log_file_size", "1G"}, {"sync_binlogg", "1"}, {"log_bin", "OFF"}})
	for _, want := range []string{
		"innodb_log_file_size: not dynamic: an existing server is changed only at run time",
		"sync_binlogg: no such server variable on MySQL 8.0.28; did you mean sync_binlog?",
		"log_bin: not dynamic",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if h.vars["sync_binlog"] != "1" {
		t.Error("a refused set of knobs changed the server")
	}

	ch, err := n.CheckDynamic(ctx, []KV{{"sync_binlog", "0"}, {"max_connections", "151"}})
	if err != nil || len(ch) != 1 || ch[0] != (Change{Name: "sync_binlog", From: "1", To: "0"}) {
		t.Fatalf("changes %+v, %v (max_connections already 151)", ch, err)
	}
	h.sql = nil
	if err := n.SetDynamic(ctx, ch); err != nil || h.vars["sync_binlog"] != "0" {
		t.Fatalf("set: %v, sync_binlog %s", err, h.vars["sync_binlog"])
	}
	if err := n.PutBack(ctx, ch); err != nil || h.vars["sync_binlog"] != "1" {
		t.Fatalf("put back: %v, sync_binlog %s", err, h.vars["sync_binlog"])
	}
	if want := []string{"SET GLOBAL sync_binlog = 0", "SET GLOBAL sync_binlog = 1"}; !slices.Equal(h.sql, want) {
		t.Errorf("statements %q, want %q", h.sql, want)
	}
	if len(h.cmds) != 0 {
		t.Errorf("commands on the host: %q", h.cmds)
	}
}
