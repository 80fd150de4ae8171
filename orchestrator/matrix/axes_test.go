package matrix

import (
	"reflect"
	"testing"
)

func TestParseKnobAxes(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		want  []Axis
	}{
		{"none", nil, nil},
		{"bare boolean sweeps ON then OFF", []string{"binlog_order_commits"},
			[]Axis{{Name: "binlog_order_commits", Values: []string{"ON", "OFF"}}}},
		{"values in the order given", []string{"sync_binlog=1,0,100"},
			[]Axis{{Name: "sync_binlog", Values: []string{"1", "0", "100"}}}},
		{"several knobs in one flag", []string{"sync_binlog=0,1;binlog_order_commits"},
			[]Axis{{Name: "sync_binlog", Values: []string{"0", "1"}}, {Name: "binlog_order_commits", Values: []string{"ON", "OFF"}}}},
		{"repeated flag keeps the order", []string{"binlog_order_commits", "sync_binlog=0,1"},
			[]Axis{{Name: "binlog_order_commits", Values: []string{"ON", "OFF"}}, {Name: "sync_binlog", Values: []string{"0", "1"}}}},
		{"both forms together", []string{"a=1;b=2,3", "c"},
			[]Axis{{Name: "a", Values: []string{"1"}}, {Name: "b", Values: []string{"2", "3"}}, {Name: "c", Values: []string{"ON", "OFF"}}}},
		{"names normalised", []string{" Sync-Binlog = 0 , 1 ;LOOSE-Binlog_Order_Commits"},
			[]Axis{{Name: "sync_binlog", Values: []string{"0", "1"}}, {Name: "binlog_order_commits", Values: []string{"ON", "OFF"}}}},
		{"values keep their spelling", []string{"innodb_flush_method=O_DIRECT,fsync;innodb_buffer_pool_size=1G"},
			[]Axis{{Name: "innodb_flush_method", Values: []string{"O_DIRECT", "fsync"}}, {Name: "innodb_buffer_pool_size", Values: []string{"1G"}}}},
		{"a value may hold '='", []string{"optimizer_switch=index_merge=off"},
			[]Axis{{Name: "optimizer_switch", Values: []string{"index_merge=off"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseKnobAxes(tt.flags)
			if err != nil {
				t.Fatalf("ParseKnobAxes(%q): %v", tt.flags, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseKnobAxes(%q)\n got %+v\nwant %+v", tt.flags, got, tt.want)
			}
		})
	}
}

func TestParseKnobAxesErrors(t *testing.T) {
	tests := []struct {
		flags []string
		want  string
	}{
		{[]string{""}, `--knobs "": empty; want NAME, NAME=V1,V2,... or several joined by ';'`},
		{[]string{"  "}, `--knobs "": empty; want NAME, NAME=V1,V2,... or several joined by ';'`},
		{[]string{"sync_binlog=0;"}, `--knobs "sync_binlog=0;": empty knob (';' at an end or twice in a row)`},
		{[]string{"a;;b"}, `--knobs "a;;b": empty knob (';' at an end or twice in a row)`},
		{[]string{"sync_binlog="}, `--knobs "sync_binlog=": sync_binlog has an empty value`},
		{[]string{"sync_binlog=0,,1"}, `--knobs "sync_binlog=0,,1": sync_binlog has an empty value`},
		{[]string{"sync_binlog=0,1,"}, `--knobs "sync_binlog=0,1,": sync_binlog has an empty value`},
		{[]string{"=1"}, `--knobs "=1": missing the knob name before '='`},
		{[]string{"sync binlog=1"}, `--knobs "sync binlog=1": "sync binlog" is not a server variable name`},
		{[]string{"x;sync.binlog"}, `--knobs "sync.binlog": "sync.binlog" is not a server variable name`},
		{[]string{"sync_binlog=0,1;sync-binlog=1"}, `--knobs "sync-binlog=1": sync_binlog is given twice`},
		{[]string{"binlog_order_commits", "BINLOG_ORDER_COMMITS=OFF"}, `--knobs "BINLOG_ORDER_COMMITS=OFF": binlog_order_commits is given twice`},
		{[]string{"binlog_order_commits=ON,on"}, `--knobs "binlog_order_commits=ON,on": binlog_order_commits value on is given twice`},
		{[]string{"init_connect=a#b"}, `--knobs "init_connect=a#b": init_connect: value "a#b" holds # or a quote, which an option file would read differently`},
	}
	for _, tt := range tests {
		got, err := ParseKnobAxes(tt.flags)
		if err == nil {
			t.Errorf("ParseKnobAxes(%q) = %+v, want error %s", tt.flags, got, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("ParseKnobAxes(%q) error\n got %s\nwant %s", tt.flags, err, tt.want)
		}
	}
}

func TestParseEngines(t *testing.T) {
	got, err := ParseEngines(" InnoDB, rocksdb ,tokudb")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"innodb", "rocksdb", "tokudb"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ParseEngines = %q, want %q", got, want)
	}
	errs := []struct{ in, want string }{
		{"", `--engines "": empty; want profiles such as innodb,rocksdb`},
		{"innodb,,rocksdb", `--engines "innodb,,rocksdb": empty engine name`},
		{"innodb,", `--engines "innodb,": empty engine name`},
		{"innodb,InnoDB", `--engines "innodb,InnoDB": innodb is given twice`},
		{"innodb;rocksdb", `--engines "innodb;rocksdb": "innodb;rocksdb" is not an engine name`},
		{"../x", `--engines "../x": "../x" is not an engine name`},
	}
	for _, tt := range errs {
		got, err := ParseEngines(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseEngines(%q) = %q, %v; want error %s", tt.in, got, err, tt.want)
		}
	}
}
