package preflight

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// A load box's client versions are keys of their own in the host's facts,
// as the manifest and the report's evidence have always read them.
func TestFactsClientsJSON(t *testing.T) {
	f := Facts{Host: "lb1", Role: "loadbox", Clients: map[string]string{"sysbench": "sysbench 1.0.20", "mysqlslap": "mariadb-slap Ver 1.0"}}
	b, err := json.Marshal(&f)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if m["sysbench"] != "sysbench 1.0.20" || m["mysqlslap"] != "mariadb-slap Ver 1.0" || m["host"] != "lb1" {
		t.Errorf("facts JSON %s", b)
	}
	if strings.Contains(string(b), "Clients") || strings.Contains(string(b), `"clients"`) {
		t.Errorf("clients nested: %s", b)
	}
	var back Facts
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(back.Clients, f.Clients) || back.Host != "lb1" {
		t.Errorf("read back %+v", back)
	}
	none, _ := json.Marshal(&Facts{Host: "db1"})
	if strings.Contains(string(none), "sysbench") {
		t.Errorf("no clients: %s", none)
	}
}
