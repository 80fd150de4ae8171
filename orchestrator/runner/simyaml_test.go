package runner

import (
	"fmt"
	"regexp"
	"strings"
)

// simInventory is the YAML of the named clusters, each a master, two slaves
// and a load box, the Nth cluster's hosts at 192.0.2.N1 to 192.0.2.N4 (one
// name: a plain inventory of that name; several: a clusters list named
// fleet). The hosts are fakemaria's: its service commands and config
// directory. managed leaves the accounts out, as on a stock server whose
// root logs in by socket only: orch makes its own.
func simInventory(managed bool, names ...string) string {
	var b strings.Builder
	b.WriteString("known_hosts: /dev/null\ndefaults:\n  ssh:\n    user: bench\n  mysql:\n")
	if !managed {
		b.WriteString("    user: orch\n    password: {env: ORCH_SIM_MYSQL_PW}\n")
	}
	b.WriteString(`    config_dir: /etc/mysql/conf.d
    error_log: /var/log/mysql/error.log
    service: {start: /opt/db/start, stop: /opt/db/stop, status: /opt/db/status}
profile:
  vars:
    innodb_buffer_pool_size: 256M
`)
	if !managed {
		b.WriteString("benchmark:\n  user: sbtest\n  password: {env: ORCH_SIM_BENCH_PW}\n")
	}
	hosts := func(indent string, n int) {
		for i, h := range []string{"db1, role: master", "db2, role: slave", "db3, role: slave", "lb, role: loadbox"} {
			fmt.Fprintf(&b, "%s- {name: %s, address: 192.0.2.%d%d}\n", indent, h, n, i+1)
		}
	}
	if len(names) == 1 {
		fmt.Fprintf(&b, "name: %s\nhosts:\n", names[0])
		hosts("  ", 1)
		return b.String()
	}
	b.WriteString("name: fleet\nclusters:\n")
	for i, name := range names {
		fmt.Fprintf(&b, "  - name: %s\n    hosts:\n", name)
		hosts("      ", i+2)
	}
	return b.String()
}

// row matches a line of a table as tabwriter pads it: prefix, then the
// cells, two spaces or more apart.
func row(prefix string, cells ...string) *regexp.Regexp {
	quoted := make([]string, len(cells))
	for i, c := range cells {
		quoted[i] = regexp.QuoteMeta(c)
	}
	return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(prefix) + strings.Join(quoted, ` {2,}`) + ` *$`)
}

// rowStart matches a line of a table that begins with these cells.
func rowStart(prefix string, cells ...string) *regexp.Regexp {
	r := row(prefix, cells...).String()
	return regexp.MustCompile(strings.TrimSuffix(r, ` *$`) + `( {2,}|$)`)
}

// hasLine reports whether text has line as one of its lines.
func hasLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l == line {
			return true
		}
	}
	return false
}
