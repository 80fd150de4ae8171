package topology

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badPassword is the password in every bad inventory that has one; no error
// may ever contain it.
const badPassword = "Pa55-never-echo"

// badCases maps each file in testdata/bad to the exact error it must give
// (after the file name). cluster marks inventories that load fine and are
// only rejected by ValidateCluster.
var badCases = []struct {
	file    string
	cluster bool
	want    string
}{
	{"address-with-port.yaml", false, `:4:14: hosts[0].address: "10.0.0.1:2222": not an IP address or DNS name (put the SSH port in ssh.port)`},
	{"bad-duration.yaml", false, `:3:22: defaults.ssh.connect_timeout: invalid duration "10 seconds" (write e.g. 10s, 1m30s)`},
	{"bad-env-name.yaml", false, ":3:21: defaults.mysql.password.env: not a valid environment variable name (letters, digits and '_', not starting with a digit)"},
	{"bad-flavor.yaml", false, `:3:13: defaults.mysql.flavor: unknown flavor "oracle" (want mysql, percona or mariadb)`},
	{"bad-flavor-version.yaml", false, `:3:13: defaults.mysql.flavor: flavour "mariadb:ten": version "ten": want major.minor.patch (want FLAVOR or FLAVOR:VERSION, e.g. mariadb:10.11.6)`},
	{"bad-host-name.yaml", false, `:2:11: hosts[0].name: invalid host name "db master" (letters, digits, '_', '.' and '-', starting with a letter or digit)`},
	{"bad-ipv4.yaml", false, `:4:14: hosts[0].address: "10.0.0.256": not a valid IPv4 address`},
	{"bad-jump-host.yaml", false, `:3:16: defaults.ssh.jump_host: "admin@bastion:99999": port 99999 is out of range 1..65535 (want [user@]host[:port])`},
	{"binary-junk.yaml", false, ":1:1: control character U+007F; an inventory is a text file"},
	{"clusters-and-hosts.yaml", false, ":3:1: clusters: an inventory lists either hosts (one cluster) or clusters, not both"},
	{"clusters-bad-address.yaml", false, `:7:44: clusters[1].hosts[0].address: "10.2.0.300": not a valid IPv4 address`},
	{"clusters-bad-name.yaml", false, `:2:11: clusters[0].name: invalid cluster name "east coast" (letters, digits, '_', '.' and '-', starting with a letter or digit)`},
	{"clusters-choose-one.yaml", false, ":1:1: the inventory holds 2 clusters (a, b) and this command works on one: choose it with --cluster NAME"},
	{"clusters-duplicate-name.yaml", false, `:5:11: clusters[1].name: duplicate cluster name "a" (first used at line 2)`},
	{"clusters-empty.yaml", false, ":1:11: clusters: no clusters listed"},
	{"clusters-host-in-two.yaml", false, `:9:9: host "b-s1" (10.1.0.2, SSH port 22) is also in cluster "a" as "a-s1" (testdata/bad/clusters-host-in-two.yaml:5): a host belongs to one cluster`},
	{"clusters-no-master.yaml", false, `:6:5: cluster "b": no master: one host must have role master`},
	{"clusters-no-name.yaml", false, `:2:5: clusters[0]: missing required key "name" (every cluster of a list is named)`},
	{"clusters-unknown-key.yaml", false, `:3:5: clusters[0]: unknown key "host"; did you mean hosts? (valid keys: name, known_hosts, defaults, replication, profile, benchmark, hosts)`},
	{"clusters-wait-count.yaml", false, `:3:27: cluster "b": replication.semi_sync.wait_for_slave_count: 2 is more than the number of slaves (1)`},
	{"comments-only.yaml", false, ":1:1: inventory is empty: expected a mapping with hosts"},
	{"control-char-in-string.yaml", false, ":1:7: name: control characters are not allowed"},
	{"duplicate-address.yaml", false, `:10:14: "slave2" has the same address and SSH port as "slave1" (10.0.0.2 port 22, line 7)`},
	{"duplicate-key.yaml", false, ":5:5: hosts[0].address: duplicate key (first at line 4)"},
	{"duplicate-name.yaml", false, `:8:11: duplicate host name "slave1" (first used at line 5)`},
	{"duration-no-unit.yaml", false, ":3:22: defaults.ssh.connect_timeout: expected a duration with a unit such as 10s; found an integer 10"},
	{"empty.yaml", false, ":1:1: inventory is empty: expected a mapping with hosts"},
	{"hosts-empty.yaml", false, ":2:8: hosts: no hosts listed"},
	{"hosts-not-a-list.yaml", false, ":2:3: hosts: expected a list of hosts; found a mapping"},
	{"identity-files-not-list.yaml", false, ":3:21: defaults.ssh.identity_files: expected a list of paths; found a string"},
	{"inline-mysql-password.yaml", false, ":4:15: defaults.mysql.password: inline secrets are not allowed; use {env: VAR} or {file: PATH}"},
	{"inline-ssh-password.yaml", false, ":12:17: hosts[2].ssh.password: inline secrets are not allowed; use {env: VAR} or {file: PATH}"},
	{"invalid-utf8.yaml", false, ":1:10: invalid UTF-8 (byte 0xe9); an inventory is a UTF-8 text file"},
	{"ips-bad-hostname.txt", false, `:3: bad address "-bad-host-": not a valid DNS name (labels of letters, digits, '-' and '_', not starting or ending with '-')`},
	{"ips-bad-ip.txt", false, `:4: bad address "10.0.0.300": not a valid IPv4 address`},
	{"ips-bad-ipv6.txt", false, `:2: bad address "fe80::1::2": not a valid IPv6 address (write [IPv6]:port to add a port)`},
	{"ips-bad-port.txt", false, `:2: bad address "10.0.0.2:70000": port 70000 is out of range 1..65535`},
	{"ips-comments-only.txt", false, ":1: inventory is empty: expected one address per line, then the MySQL credentials `user password`"},
	{"ips-content-named.yaml", false, ":1:1: expected a mapping with keys name, known_hosts, defaults, replication, profile, benchmark, hosts, clusters; found a string"},
	{"ips-cr-line-ends.txt", false, ":1: carriage return without a line feed; use LF or CRLF line ends"},
	{"ips-credentials-first.txt", false, ":1: expected one address per line, found 2 fields (only the last line holds `user password`)"},
	{"ips-credentials-one-field.txt", false, ":4: the last line must be the MySQL credentials `user password`; found a single field (is the credentials line missing?)"},
	{"ips-credentials-three-fields.txt", false, ":4: the last line must be the MySQL credentials `user password`; found 3 fields (a password with spaces needs a YAML inventory)"},
	{"ips-duplicate-ip.txt", false, `:3: "slave2" has the same address and SSH port as "slave1" (10.0.0.2 port 22, line 2)`},
	{"ips-existing-server.txt", true, ":1: cluster setup is not allowed on an existing server: this inventory names one server to benchmark as it is (orch run and orch matrix, dynamic knobs only); list master, slave and slave to set up a cluster"},
	{"ips-loadbox-is-master.txt", false, `:4: load box "loadbox" and database host "master" have the same address 10.0.0.1 (line 1); the load generator must run on a separate machine`},
	{"ips-missing-credentials.txt", false, ":4: the last line must be the MySQL credentials `user password`; found a single field (is the credentials line missing?)"},
	{"ips-only-credentials.txt", false, ":2: no host addresses: list the master, slave and slave (and optionally the load box), or one existing server, before the credentials line"},
	{"ips-port-not-number.txt", false, `:2: bad address "10.0.0.2:ssh": port "ssh" is not a number 1..65535`},
	{"ips-too-many.txt", false, ":5: too many addresses: ips.txt lists at most 4 (master, slave, slave, load box); found 5"},
	{"ips-two-addresses.txt", false, ":2: found 2 addresses; ips.txt lists one existing server, or master, slave, slave and an optional load box"},
	{"loadbox-same-address-as-master.yaml", false, `:13:14: load box "loadbox" and database host "master" have the same address 10.0.0.1 (line 4); the load generator must run on a separate machine`},
	{"merge-key.yaml", false, ":6:5: hosts[1]: merge keys (<<) are not supported; use defaults"},
	{"missing-address.yaml", false, `:5:5: hosts[1]: missing required key "address"`},
	{"missing-hosts.yaml", false, `:1:1: missing required key "hosts"`},
	{"missing-role.yaml", false, `:2:5: hosts[0]: missing required key "role"`},
	{"mysql-port-70000.yaml", false, ":12:13: hosts[2].mysql.port: port 70000 is out of range 1..65535"},
	{"no-master.yaml", false, ":1:1: no master: one host must have role master"},
	{"one-slave.yaml", true, ":1:1: a cluster needs exactly 2 slaves; found 1 (slave1)"},
	{"relative-datadir.yaml", false, `:12:16: hosts[2].mysql.datadir: "data/mysql" must be an absolute path on the host`},
	{"reserved-host-name.yaml", false, `:5:11: hosts[1].name: host name "db" is reserved as a host selector`},
	{"role-unknown.yaml", false, `:3:11: hosts[0].role: unknown role "primary" (want master, slave or loadbox; or server for one existing server)`},
	{"secret-empty.yaml", false, ":3:20: defaults.ssh.sudo_password: empty secret; use {env: VAR} or {file: PATH}"},
	{"secret-env-and-file.yaml", false, ":3:42: defaults.mysql.password: set either env or file, not both"},
	{"service-start-without-stop.yaml", false, ":4:7: defaults.mysql.service.start: stop is required when start is set"},
	{"service-unit-and-start.yaml", false, ":5:7: defaults.mysql.service: set either unit or start/stop commands, not both"},
	{"ssh-not-a-mapping.yaml", false, ":2:8: defaults.ssh: expected a mapping; found a string"},
	{"ssh-port-abc.yaml", false, `:12:13: hosts[2].ssh.port: expected a port number 1..65535; found a string "abc"`},
	{"ssh-port-zero.yaml", false, ":3:11: defaults.ssh.port: port 0 is out of range 1..65535"},
	{"sudo-not-bool.yaml", false, `:3:11: defaults.ssh.sudo: expected true or false; found a string "yes"`},
	{"syntax-bad-indent.yaml", false, ":4:1: YAML syntax error: mapping values are not allowed in this context"},
	{"syntax-tab-indent.yaml", false, ":3:1: YAML syntax error: found a tab character that violates indentation"},
	{"syntax-unclosed-flow.yaml", false, ":3:1: YAML syntax error: did not find expected ',' or ']'"},
	{"three-slaves.yaml", true, ":11:5: a cluster needs exactly 2 slaves; found 3 (slave1, slave2, slave3)"},
	{"tilde-user-path.yaml", false, ":3:22: defaults.ssh.identity_files[0]: ~user paths are not supported; use ~/ or an absolute path"},
	{"top-level-list.yaml", false, ":1:1: expected a mapping with keys name, known_hosts, defaults, replication, profile, benchmark, hosts, clusters; found a list"},
	{"two-documents.yaml", false, ":11:1: a second YAML document; an inventory is a single document"},
	{"two-loadboxes-same-address.yaml", false, `:17:14: "loadbox2" has the same address and SSH port as "loadbox1" (10.0.0.4 port 22, line 14)`},
	{"two-masters.yaml", false, `:12:11: only one master is allowed; "master" is already the master (line 3)`},
	{"unknown-anchor.yaml", false, ":5:10: YAML syntax error: unknown anchor 'common' referenced"},
	{"unknown-host-key.yaml", false, `:4:5: hosts[0]: unknown key "adress"; did you mean address? (valid keys: name, role, address, ssh, mysql)`},
	{"unknown-ssh-key.yaml", false, `:4:5: defaults.ssh: unknown key "identity_file"; did you mean identity_files? (valid keys: user, port, identity_files, passphrase, password, jump_host, sudo, sudo_password, connect_timeout)`},
	{"unknown-top-key.yaml", false, `:2:1: unknown key "colour" (valid keys: name, known_hosts, defaults, replication, profile, benchmark, hosts, clusters)`},
	{"engine-with-space.yaml", false, `:2:11: profile.engine: invalid profile name "inno db" (lowercase letters, digits and '_', e.g. innodb)`},
	{"inline-repl-password.yaml", false, ":6:13: replication.password: inline secrets are not allowed; use {env: VAR} or {file: PATH}"},
	{"profile-dir-empty.yaml", false, ":2:8: profile.dir: must not be empty (leave the key out for the built-in profiles)"},
	{"profile-not-a-mapping.yaml", false, ":1:10: profile: expected a mapping; found a string"},
	{"repl-user-injection.yaml", false, `:2:9: replication.user: invalid user name "repl'; DROP USER root; --" (letters, digits, '_', '.' and '-', not starting with '.' or '-')`},
	{"semi-sync-enabled-not-bool.yaml", false, `:3:14: replication.semi_sync.enabled: expected true or false; found a string "yes"`},
	{"semi-sync-unknown-key.yaml", false, `:4:5: replication.semi_sync: unknown key "timeout" (valid keys: enabled, timeout_ms, wait_point, wait_for_slave_count)`},
	{"timeout-float.yaml", false, ":3:17: replication.semi_sync.timeout_ms: expected a whole number of milliseconds; found a number 1e30"},
	{"timeout-negative.yaml", false, ":3:17: replication.semi_sync.timeout_ms: expected a whole number of milliseconds; found an integer -1"},
	{"timeout-overflow.yaml", false, ":3:17: replication.semi_sync.timeout_ms: 18446744073709551616 is too large (at most 18446744073709551615)"},
	{"var-bad-name.yaml", false, `:3:5: profile.vars: invalid variable name "innodb buffer pool" (letters, digits, '_' and '-', starting with a letter)`},
	{"var-no-value.yaml", false, ":3:30: profile.vars.rocksdb_block_cache_size: expected a value such as 256M, ON or 0; found no value"},
	{"var-not-scalar.yaml", false, ":5:27: profile.vars.innodb_log_file_size: expected a value such as 256M, ON or 0; found a list"},
	{"var-two-spellings.yaml", false, ":4:5: profile.vars.innodb-buffer-pool-size: the same variable as innodb_buffer_pool_size (line 3)"},
	{"wait-count-three.yaml", false, ":14:27: replication.semi_sync.wait_for_slave_count: 3 is more than the number of slaves (2)"},
	{"wait-count-zero.yaml", false, ":2:37: replication.semi_sync.wait_for_slave_count: must be at least 1; found 0"},
	{"wait-point-before.yaml", false, `:3:17: replication.semi_sync.wait_point: unknown wait point "BEFORE" (want AFTER_SYNC or AFTER_COMMIT)`},
	{"whitespace-only.yaml", false, ":1:1: inventory is empty: expected a mapping with hosts"},
}

func TestBadInventories(t *testing.T) {
	opts := LoadOptions{HomeDir: "/home/tester"}
	for _, tc := range badCases {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "bad", tc.file)
			inv, err := Load(path, opts)
			if tc.cluster {
				if err != nil {
					t.Fatalf("Load: %v (want success, then a ValidateCluster error)", err)
				}
				err = inv.ValidateCluster()
			}
			if err == nil {
				t.Fatalf("no error; want %s%s", path, tc.want)
			}
			if got, want := err.Error(), path+tc.want; got != want {
				t.Errorf("error\n got: %s\nwant: %s", got, want)
			}
			var te *Error
			if !errors.As(err, &te) {
				t.Errorf("error is %T, want *topology.Error", err)
			}
			if strings.Contains(err.Error(), badPassword) {
				t.Errorf("error reveals the password: %s", err)
			}
		})
	}
}

// TestBadCorpusComplete keeps the corpus and the table in step: a file
// without an expectation would silently test nothing.
func TestBadCorpusComplete(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, tc := range badCases {
		if want[tc.file] {
			t.Errorf("%s listed twice", tc.file)
		}
		want[tc.file] = true
	}
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("testdata/bad/%s has no expected error in badCases", e.Name())
		}
		delete(want, e.Name())
	}
	for f := range want {
		t.Errorf("badCases lists %s, which is not in testdata/bad", f)
	}
	if len(badCases) < 30 {
		t.Errorf("only %d bad inventories; the corpus needs at least 30", len(badCases))
	}
}
