package topology

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const threeHosts = `
hosts:
  - {name: master, role: master, address: 10.0.0.1}
  - {name: slave1, role: slave, address: 10.0.0.2}
  - {name: slave2, role: slave, address: 10.0.0.3}
`

var defaultSemiSync = SemiSync{Enabled: true, TimeoutMs: DefaultSemiSyncTimeoutMs, WaitPoint: "AFTER_SYNC", WaitForSlaveCount: 1}

func TestSettingsDefaults(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"absent": "defaults:\n  mysql:\n    password: {env: ADMIN_PW}\n" + threeHosts,
		// Sections whose keys are all commented out.
		"empty sections": "defaults:\n  mysql:\n    password: {env: ADMIN_PW}\nreplication:\n  semi_sync:\nprofile:\n  vars:\n" + threeHosts,
	} {
		t.Run(name, func(t *testing.T) {
			inv := mustLoad(t, writeFile(t, dir, "c.yaml", text), LoadOptions{HomeDir: dir})
			want := Replication{User: "repl", Password: Secret{Env: "ADMIN_PW"}, SemiSync: defaultSemiSync}
			if !reflect.DeepEqual(inv.Replication, want) {
				t.Errorf("replication\n got %+v\nwant %+v", inv.Replication, want)
			}
			if want := (Profile{Engine: "innodb"}); !reflect.DeepEqual(inv.Profile, want) {
				t.Errorf("profile %+v, want %+v", inv.Profile, want)
			}
		})
	}
}

// The replication password defaults to the master's admin password after
// host overrides and load options, wherever that came from.
func TestReplPasswordDefaultFollowsMaster(t *testing.T) {
	dir := t.TempDir()
	text := `
defaults:
  mysql: {password: {env: DEFAULT_PW}}
hosts:
  - {name: s, role: slave, address: 10.0.0.2}
  - {name: m, role: master, address: 10.0.0.1, mysql: {password: {file: pw/master}}}
`
	inv := mustLoad(t, writeFile(t, dir, "c.yaml", text), LoadOptions{HomeDir: dir})
	if want := (Secret{File: filepath.Join(dir, "pw/master")}); inv.Replication.Password != want {
		t.Errorf("password %+v, want the master's %+v", inv.Replication.Password, want)
	}

	noPW := writeFile(t, dir, "n.yaml", "hosts:\n  - {name: m, role: master, address: 10.0.0.1}\n")
	if inv := mustLoad(t, noPW, LoadOptions{HomeDir: dir}); inv.Replication.Password.IsSet() {
		t.Errorf("no admin password anywhere, yet replication password %v", inv.Replication.Password)
	}
	opts := LoadOptions{HomeDir: dir, MySQL: MySQLConfig{Password: Secret{Env: "FLAG_PW"}}}
	if inv := mustLoad(t, noPW, opts); inv.Replication.Password != (Secret{Env: "FLAG_PW"}) {
		t.Errorf("password %+v, want the option's", inv.Replication.Password)
	}
}

func TestSettingsOverrides(t *testing.T) {
	dir := t.TempDir()
	text := `
replication:
  user: repl_bench
  password: {file: secrets/repl}
  semi_sync:
    enabled: false
    timeout_ms: 18446744073709551615
    wait_point: after_Commit
    wait_for_slave_count: 2
profile:
  engine: rocksdb
  dir: ../profiles
  vars:
    innodb_buffer_pool_size: 256M
    Innodb-Log-File-Size: "48M"
    rocksdb_block_cache_size: &cache 64M
    rocksdb-max-open-files: -1
    innodb_flush_log_at_trx_commit: 0
    innodb_max_dirty_pages_pct: 90.5
    skip_name_resolve: ON
    performance_schema: false
    sql_mode: "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"
    rocksdb_default_cf_cache: *cache
` + threeHosts
	path := writeFile(t, dir, "inv/c.yaml", text)
	writeFile(t, dir, "inv/secrets/repl", "r3pl\n")
	inv := mustLoad(t, path, LoadOptions{HomeDir: dir})

	want := Replication{
		User:      "repl_bench",
		Password:  Secret{File: filepath.Join(dir, "inv/secrets/repl")},
		SemiSync:  SemiSync{Enabled: false, TimeoutMs: 18446744073709551615, WaitPoint: "AFTER_COMMIT", WaitForSlaveCount: 2},
		UserNamed: true,
	}
	if !reflect.DeepEqual(inv.Replication, want) {
		t.Errorf("replication\n got %+v\nwant %+v", inv.Replication, want)
	}
	if pw, err := inv.Replication.Password.Resolve(); err != nil || pw != "r3pl" {
		t.Errorf("password resolves to %q, %v", pw, err)
	}
	wantProfile := Profile{
		Engine: "rocksdb",
		Dir:    filepath.Join(dir, "profiles"),
		Vars: map[string]string{
			"innodb_buffer_pool_size":        "256M",
			"innodb_log_file_size":           "48M",
			"rocksdb_block_cache_size":       "64M",
			"rocksdb_max_open_files":         "-1",
			"innodb_flush_log_at_trx_commit": "0",
			"innodb_max_dirty_pages_pct":     "90.5",
			"skip_name_resolve":              "ON",
			"performance_schema":             "false",
			"sql_mode":                       "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION",
			"rocksdb_default_cf_cache":       "64M",
		},
	}
	if !reflect.DeepEqual(inv.Profile, wantProfile) {
		t.Errorf("profile\n got %+v\nwant %+v", inv.Profile, wantProfile)
	}
}

func TestIPsSettingsDefaults(t *testing.T) {
	dir := t.TempDir()
	const pw = "s3cret-ips"
	path := writeFile(t, dir, "ips.txt", "10.0.0.1\n10.0.0.2\n10.0.0.3\nbench "+pw+"\n")
	inv := mustLoad(t, path, LoadOptions{HomeDir: dir})
	r := inv.Replication
	if r.User != "repl" || r.SemiSync != defaultSemiSync {
		t.Errorf("replication %+v", r)
	}
	if got, err := r.Password.Resolve(); err != nil || got != pw {
		t.Errorf("replication password resolves to %q, %v; want the credentials line's", got, err)
	}
	if want := (Profile{Engine: "innodb"}); !reflect.DeepEqual(inv.Profile, want) {
		t.Errorf("profile %+v", inv.Profile)
	}
	// The two-line form has no slaves; the default count is not an error.
	existing := writeFile(t, dir, "one.txt", "10.0.0.1\nbench "+pw+"\n")
	if inv := mustLoad(t, existing, LoadOptions{HomeDir: dir}); inv.Replication.SemiSync.WaitForSlaveCount != 1 {
		t.Errorf("existing server: count %d", inv.Replication.SemiSync.WaitForSlaveCount)
	}
}

func TestSettingsJSON(t *testing.T) {
	dir := t.TempDir()
	inv := mustLoad(t, writeFile(t, dir, "ips.txt", "10.0.0.1\n10.0.0.2\n10.0.0.3\nbench s3cret-json\n"), LoadOptions{HomeDir: dir})
	inv.Profile.Vars = map[string]string{"innodb_buffer_pool_size": "128M"}
	b, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "s3cret-json") {
		t.Fatalf("JSON reveals the password: %s", b)
	}
	var back struct {
		Replication map[string]any
		Profile     map[string]any
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	wantRepl := map[string]any{
		"user": "repl", "password": "***",
		"semi_sync": map[string]any{"enabled": true, "timeout_ms": 1e18, "wait_point": "AFTER_SYNC", "wait_for_slave_count": 1.0},
	}
	if !reflect.DeepEqual(back.Replication, wantRepl) {
		t.Errorf("replication JSON %v, want %v", back.Replication, wantRepl)
	}
	wantProfile := map[string]any{"engine": "innodb", "vars": map[string]any{"innodb_buffer_pool_size": "128M"}}
	if !reflect.DeepEqual(back.Profile, wantProfile) {
		t.Errorf("profile JSON %v, want %v", back.Profile, wantProfile)
	}
	// The exact number, not a float64 approximation.
	if !strings.Contains(string(b), `"timeout_ms":1000000000000000000`) {
		t.Errorf("timeout not written exactly: %s", b)
	}
}

// Values that are easy to get subtly wrong; the corpus in testdata/bad has
// the common mistakes with their exact positions.
func TestSettingsEdgeErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, text, want string }{
		{"unicode case folding", "replication: {semi_sync: {wait_point: after_ſync}}\n" + threeHosts,
			`:1:39: replication.semi_sync.wait_point: unknown wait point "after_ſync" (want AFTER_SYNC or AFTER_COMMIT)`},
		{"quoted timeout", "replication: {semi_sync: {timeout_ms: \"1000\"}}\n" + threeHosts,
			`:1:39: replication.semi_sync.timeout_ms: expected a whole number of milliseconds; found a string "1000"`},
		{"hex timeout", "replication: {semi_sync: {timeout_ms: 0x10}}\n" + threeHosts,
			`:1:39: replication.semi_sync.timeout_ms: expected a whole number of milliseconds; found an integer 0x10`},
		{"zero timeout", "replication: {semi_sync: {timeout_ms: 0}}\n" + threeHosts,
			`:1:39: replication.semi_sync.timeout_ms: must be at least 1; found 0`},
		{"huge count", "replication: {semi_sync: {wait_for_slave_count: 99999999999999999999}}\n" + threeHosts,
			`:1:49: replication.semi_sync.wait_for_slave_count: 99999999999999999999 is too large (at most 18446744073709551615)`},
		{"count without slaves", "replication: {semi_sync: {wait_for_slave_count: 1}}\nhosts: [{name: m, role: master, address: 10.0.0.1}]\n",
			`:1:49: replication.semi_sync.wait_for_slave_count: 1 is more than the number of slaves (0)`},
		{"empty user", "replication: {user: ''}\n" + threeHosts,
			`:1:21: replication.user: must not be empty (leave the key out for the default repl)`},
		{"long user", "replication: {user: " + strings.Repeat("r", 33) + "}\n" + threeHosts,
			`:1:21: replication.user: user name "` + strings.Repeat("r", 33) + `" is longer than 32 characters`},
		{"uppercase engine", "profile: {engine: InnoDB}\n" + threeHosts,
			`:1:19: profile.engine: invalid profile name "InnoDB" (lowercase letters, digits and '_', e.g. innodb)`},
		{"engine path", "profile: {engine: ../innodb}\n" + threeHosts,
			`:1:19: profile.engine: invalid profile name "../innodb" (lowercase letters, digits and '_', e.g. innodb)`},
		{"vars list", "profile: {vars: [a, b]}\n" + threeHosts,
			`:1:17: profile.vars: expected a mapping of server variables to values; found a list`},
		{"var integer name", "profile: {vars: {1: x}}\n" + threeHosts,
			`:1:18: profile.vars: keys must be server variable names; found an integer 1`},
		{"var same key twice", "profile: {vars: {a: 1, a: 2}}\n" + threeHosts,
			`:1:24: profile.vars.a: duplicate key (first at line 1)`},
		{"var merge key", "profile: {vars: {<<: {a: 1}}}\n" + threeHosts,
			`:1:18: profile.vars: merge keys (<<) are not supported`},
		{"var multi-line value", "profile:\n  vars:\n    init_connect: |\n      SET a=1\n      SET b=2\n" + threeHosts,
			`:3:19: profile.vars.init_connect: control characters are not allowed (a value is one line)`},
		{"var empty value", "profile: {vars: {init_connect: ''}}\n" + threeHosts,
			`:1:32: profile.vars.init_connect: must not be empty`},
		{"var timestamp", "profile: {vars: {x: 2001-12-14}}\n" + threeHosts,
			`:1:21: profile.vars.x: expected a number, string or boolean; found a !!timestamp value 2001-12-14`},
		{"replication list", "replication: [repl]\n" + threeHosts,
			`:1:14: replication: expected a mapping; found a list`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, dir, "c.yaml", tc.text)
			_, err := Load(path, LoadOptions{HomeDir: dir})
			if err == nil || err.Error() != path+tc.want {
				t.Errorf("error\n got: %v\nwant: %s", err, path+tc.want)
			}
		})
	}
}
