package server

import (
	"bufio"
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/topology"
)

// The host probe runs once per Open, in one round trip: which service
// manager actually runs (PID 1, not what /sbin/init links to: a container
// or the lab has systemd installed but not running), which units or init
// scripts exist, the option-file tool, transparent huge pages, the engine
// plugin libraries, and the !include lines of the main option files.

// serviceNames are tried in this order when the inventory names no unit.
var serviceNames = flavor.ServiceNames()

// probeScript reads the host's facts; unit is the inventory's systemd
// unit ("" when it names none), probed with the usual names.
func probeScript(pluginDir, unit string) string {
	units := strings.Join(serviceNames, " ")
	if unit != "" {
		units += " " + shell.Quote(unit)
	}
	var b strings.Builder
	// socket= lists the active socket units that start a unit on a
	// connection (Debian 12's mariadb.socket): see Service.Sockets.
	b.WriteString(`exec 2>/dev/null
pid1=$(cat /proc/1/comm)
echo "pid1=$pid1"
if [ "$pid1" = systemd ]; then
  for u in ` + units + `; do
    systemctl cat "$u.service" >/dev/null || continue
    echo "unit=$u"
` + unitProbe + `    for s in $(systemctl show -p TriggeredBy --value "$u.service"); do
      systemctl is-active --quiet "$s" && echo "socket=$u $s"
    done
  done
fi
for u in ` + strings.Join(serviceNames, " ") + `; do [ -x "/etc/init.d/$u" ] && echo "initd=$u"; done
command -v service >/dev/null && echo "service=yes"
for p in my_print_defaults mariadb-print-defaults; do command -v "$p" >/dev/null && { echo "print_defaults=$p"; break; }; done
for f in enabled defrag; do [ -r "/sys/kernel/mm/transparent_hugepage/$f" ] && echo "thp_$f=$(cat "/sys/kernel/mm/transparent_hugepage/$f")"; done
d=` + shell.Quote(pluginDir) + `
`)
	b.WriteString("for f in " + shell.Join(flavor.PluginLibraries()...) + `; do [ -e "$d/$f" ] && echo "plugin_file=$f"; done
`)
	b.WriteString(preloadProbe())
	for _, f := range flavor.MainOptionFiles() {
		b.WriteString(includeLines(f))
	}
	b.WriteString("exit 0\n")
	return b.String()
}

// includeLines prints "inc=FILE DIRECTIVE ARG" for each !include and
// !includedir line of file, in order.
func includeLines(file string) string {
	q := shell.Quote(file)
	return "[ -r " + q + " ] && grep -E '^[[:space:]]*!include' " + q + " | while read -r kw arg; do echo \"inc=\"" + q + "\" $kw $arg\"; done\n"
}

// probe fills n.Facts from the host probe.
func (n *Node) probe(ctx context.Context) error {
	res, err := n.Exec.Run(ctx, executor.Command{Script: probeScript(n.Facts.PluginDir, n.Host.MySQL.Service.Unit), Timeout: commandTimeout})
	if err != nil {
		return n.errorf("probe host: %w", err)
	}
	kv := map[string][]string{}
	sc := bufio.NewScanner(strings.NewReader(string(res.Stdout)))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			kv[k] = append(kv[k], strings.TrimSpace(v))
		}
	}
	n.Facts.THPEnabled = thpSelected(first(kv["thp_enabled"]))
	n.Facts.THPDefrag = thpSelected(first(kv["thp_defrag"]))
	n.Facts.PluginFiles = kv["plugin_file"]
	if p := first(kv["print_defaults"]); p != "" {
		n.Facts.PrintDefaults = p + " " + n.Server.PrintDefaultsArgs()
	}
	if n.Facts.Service, err = chooseService(n.Host.String(), n.Host.MySQL.Service, kv); err != nil {
		return err
	}
	n.Facts.preloadFacts(kv)
	n.Facts.ConfigDir = n.Host.MySQL.ConfigDir
	if n.Facts.ConfigDir == "" {
		if n.Facts.ConfigDir, err = n.findConfigDir(ctx, kv["inc"]); err != nil {
			return err
		}
	}
	return n.chooseConfigFile(ctx)
}

// chooseConfigFile names orch's file after the fragments already in the
// include directory (configFileFor).
func (n *Node) chooseConfigFile(ctx context.Context) error {
	d := shell.Quote(n.Facts.ConfigDir)
	res, err := n.Exec.Run(ctx, executor.Command{Script: "cd " + d + " 2>/dev/null && ls -1A; exit 0\n", Timeout: commandTimeout})
	if err != nil {
		return n.errorf("list %s: %w", n.Facts.ConfigDir, err)
	}
	n.Facts.ConfigFile = configFileFor(strings.Fields(string(res.Stdout)))
	return nil
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// findConfigDir returns the include directory the server's option files
// read last, following nested !include files: a file there is read after
// every fragment of the distribution's (Debian's MariaDB reads conf.d
// before mariadb.conf.d). The winner check after writing confirms it.
func (n *Node) findConfigDir(ctx context.Context, incs []string) (string, error) {
	var dirs []string
	var walk func(incs []string, depth int) error
	walk = func(incs []string, depth int) error {
		for _, inc := range incs {
			f := strings.Fields(inc) // FILE DIRECTIVE ARG
			if len(f) < 3 {
				continue
			}
			arg := strings.Join(f[2:], " ")
			if !strings.HasPrefix(arg, "/") {
				arg = path.Join(path.Dir(f[0]), arg)
			}
			switch f[1] {
			case "!includedir":
				dirs = append(dirs, path.Clean(arg))
			case "!include":
				if depth >= 5 {
					return n.errorf("option files: !include nested too deep at %s", f[0])
				}
				res, err := n.Exec.Run(ctx, executor.Command{Script: "exec 2>/dev/null\n" + includeLines(arg), Timeout: commandTimeout})
				if err != nil {
					return n.errorf("read %s: %w", arg, err)
				}
				if err := walk(prefixed(string(res.Stdout), "inc="), depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(incs, 0); err != nil {
		return "", err
	}
	if len(dirs) == 0 {
		return "", n.errorf("no !includedir in %s: set mysql.config_dir to a directory the server's option files include", strings.Join(flavor.MainOptionFiles(), " or "))
	}
	var script strings.Builder
	for _, d := range dirs {
		script.WriteString("[ -d " + shell.Quote(d) + " ] && echo " + shell.Quote(d) + "\n")
	}
	script.WriteString("exit 0\n")
	res, err := n.Exec.Run(ctx, executor.Command{Script: script.String(), Timeout: commandTimeout})
	if err != nil {
		return "", n.errorf("include directories: %w", err)
	}
	last := flavor.ReadLast(strings.Fields(string(res.Stdout)))
	if last == "" {
		return "", n.errorf("none of the included directories exists (%s): set mysql.config_dir", strings.Join(dirs, ", "))
	}
	return last, nil
}

func prefixed(out, prefix string) []string {
	var r []string
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), prefix); ok {
			r = append(r, v)
		}
	}
	return r
}

// Service is how orch starts and stops a host's server.
type Service struct {
	// Desc names it in messages: "systemd unit mariadb", "init script
	// mysql", "the inventory's commands".
	Desc                string
	Start, Stop, Status string // shell text
	// Unit is the systemd unit ("" for other service control): its
	// journal holds the server's errors when log_error is unset.
	Unit string
	// Sockets are the unit's socket units that were active when orch
	// looked (Debian 12 enables mariadb.socket). Stop stops them with the
	// server and Start starts them again: a socket left listening while
	// the server is down starts it on the next connection (a replica
	// reconnecting), with whatever config is on disk, racing orch's own
	// start and spending the unit's start limit; seen rolling back a
	// failed config, where the socket's start was killed by orch's stop
	// and orch's start was then refused ("start request repeated too
	// quickly").
	Sockets []string
}

// chooseService builds the service control from the inventory, else from
// what the probe found running.
func chooseService(host string, sc topology.ServiceControl, kv map[string][]string) (Service, error) {
	if sc.Start != "" {
		if sc.Stop == "" {
			return Service{}, fmt.Errorf("%s: mysql.service has start but no stop command", host)
		}
		return Service{Desc: "the inventory's service commands", Start: sc.Start, Stop: sc.Stop, Status: sc.Status}, nil
	}
	systemd := first(kv["pid1"]) == "systemd"
	unit := sc.Unit
	if unit == "" && systemd {
		unit = first(kv["unit"])
	}
	if unit == "" && !systemd {
		unit = first(kv["initd"])
	}
	switch {
	case unit == "":
		return Service{}, fmt.Errorf("%s: no mysql, mariadb or mysqld service found (PID 1 is %q): set mysql.service in the inventory", host, first(kv["pid1"]))
	case systemd:
		var sockets []string
		for _, s := range kv["socket"] {
			if u, sock, ok := strings.Cut(s, " "); ok && u == unit {
				sockets = append(sockets, sock)
			}
		}
		// Sockets first: started after the server (or with it, queued
		// after it), a socket refuses to listen for a service already
		// active; stopped after it, it could start it again.
		both := shell.Join(append(sockets, unit)...)
		return Service{Desc: "systemd unit " + unit, Start: "systemctl start " + both, Stop: "systemctl stop " + both,
			Status: "systemctl is-active --quiet " + shell.Quote(unit), Unit: unit, Sockets: sockets}, nil
	case first(kv["service"]) == "yes":
		u := shell.Quote(unit)
		return Service{Desc: "init script " + unit, Start: "service " + u + " start", Stop: "service " + u + " stop",
			Status: "service " + u + " status"}, nil
	}
	script := shell.Quote("/etc/init.d/" + unit)
	return Service{Desc: "init script " + unit, Start: script + " start", Stop: script + " stop", Status: script + " status"}, nil
}
