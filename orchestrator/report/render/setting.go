package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// Setting says what was run, on what, in three or four lines under the
// answer: the servers (flavour and version, roles, semi-sync), when and on
// which cluster, the client; the workload and its parameters; and the
// hosts' hardware as their facts recorded it.
func Setting(rep *judge.Report, t *judge.Table) []string {
	var out []string
	if l := ServersLine(t); l != "" {
		out = append(out, l)
	}
	if first := firstRunWith(t, func(r *load.Run) bool { return len(r.Params) > 0 }); first != nil {
		parts := make([]string, len(first.Params))
		for i, p := range first.Params {
			parts[i] = p.Name + "=" + p.Value
		}
		out = append(out, "Workload "+t.Workload+": "+strings.Join(parts, ", "))
	}
	return append(out, HostLines(t)...)
}

// ServersLine is "Servers: MySQL 9.7.4 (master, 2 replicas), semi-sync
// on; ran 2026-12-01 20:05-20:06 UTC on cluster lab; client sysbench
// 1.0.20": every server of the table's runs by flavour and version, one
// value when they agree, else each with the hosts that ran it ("MariaDB
// 10.11.19 (master, 1 replica), MySQL 9.7.4 (1 replica)"), by cluster when
// the runs span several. Runs that recorded no servers show their
// topology, else (parsed logs) the line starts with "Ran" or "Client".
func ServersLine(t *judge.Table) string {
	var starts []time.Time
	clusters, semi, topo, clients, engines := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	byServer := map[string][]serverHolder{}
	for _, r := range t.Runs {
		if r.Bench != nil && r.Bench.Version != "" {
			clients[r.Bench.Tool+" "+r.Bench.Version] = true
		}
		if r.Topology != "" {
			topo[r.Topology] = true
		}
		if r.SemiSync != "" {
			semi[r.SemiSync] = true
		}
		cluster := r.Cluster
		if r.Evidence == nil {
			if cluster != "" {
				clusters[cluster] = true
			}
			continue
		}
		if cluster == "" {
			cluster = r.Evidence.Cluster
		}
		if cluster != "" {
			clusters[cluster] = true
		}
		if !r.Evidence.Start.IsZero() {
			starts = append(starts, r.Evidence.Start.UTC())
		}
		for _, v := range r.Evidence.EngineVersions {
			engines[v] = true
		}
		for host, v := range r.Evidence.Servers {
			h := serverHolder{cluster: cluster, host: host, role: r.Evidence.Roles[host]}
			if !slices.Contains(byServer[v], h) {
				byServer[v] = append(byServer[v], h)
			}
		}
	}
	var parts []string
	switch {
	case len(byServer) > 0:
		vs := load.SortedKeys(byServer)
		for i, v := range vs {
			vs[i] = v + " (" + holdersText(byServer[v], len(clusters) > 1) + ")"
		}
		s := "Servers: " + strings.Join(vs, ", ")
		if len(engines) > 0 {
			// An engine's own version (TokuDB's is not the server's).
			s += " with " + strings.Join(load.SortedKeys(engines), ", ")
		}
		if len(semi) > 0 {
			s += ", " + strings.Join(load.SortedKeys(semi), ", ")
		}
		parts = append(parts, s)
	case len(topo) > 0:
		parts = append(parts, "Servers: "+strings.Join(load.SortedKeys(topo), "; ")+" (versions not recorded)")
	}
	var ran string
	if len(starts) > 0 {
		slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
		lo, hi := starts[0], starts[len(starts)-1]
		when := lo.Format("2006-01-02 15:04")
		switch {
		case lo.Format("2006-01-02 15:04") == hi.Format("2006-01-02 15:04"):
		case lo.Format("2006-01-02") == hi.Format("2006-01-02"):
			when += "-" + hi.Format("15:04")
		default:
			when += " to " + hi.Format("2006-01-02 15:04")
		}
		ran = "ran " + when + " UTC"
	}
	if len(clusters) > 0 {
		word := "cluster "
		if len(clusters) > 1 {
			word = "clusters "
		}
		if ran == "" {
			ran = "ran"
		}
		ran += " on " + word + strings.Join(load.SortedKeys(clusters), ", ")
	}
	if ran != "" {
		parts = append(parts, ran)
	}
	if len(clients) > 0 {
		parts = append(parts, "client "+strings.Join(load.SortedKeys(clients), ", "))
	}
	s := strings.Join(parts, "; ")
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// serverHolder is a host that ran a server, in its cluster, with its role.
type serverHolder struct{ cluster, host, role string }

// holdersText says which hosts ran a server, by role: "master, 2
// replicas"; a host of no known role by name; with byCluster, each
// cluster's: "east: master, 2 replicas; west: master, 2 replicas".
func holdersText(hs []serverHolder, byCluster bool) string {
	groups := map[string][]serverHolder{}
	for _, h := range hs {
		groups[h.cluster] = append(groups[h.cluster], h)
	}
	var out []string
	for _, cl := range load.SortedKeys(groups) {
		masters, replicas := 0, 0
		var others []string
		for _, h := range groups[cl] {
			switch h.role {
			case "master":
				masters++
			case "slave", "replica":
				replicas++
			default:
				others = append(others, h.host)
			}
		}
		var roles []string
		switch {
		case masters == 1:
			roles = append(roles, "master")
		case masters > 1:
			roles = append(roles, judge.Plural(masters, "master"))
		}
		if replicas > 0 {
			roles = append(roles, judge.Plural(replicas, "replica"))
		}
		slices.Sort(others)
		roles = append(roles, others...)
		s := strings.Join(roles, ", ")
		if byCluster && cl != "" {
			s = cl + ": " + s
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// HostLines describe the hosts of the baseline's first run with facts,
// hosts with the same hardware on one line: "Hosts master, slave1: AMD
// EPYC x 2 cores, 23.5 GiB RAM; datadir /var/lib/mysql: ext4 on /dev/vda,
// 252 GiB, rotational".
func HostLines(t *judge.Table) []string {
	r := t.BaselineRun()
	if r == nil || r.Evidence == nil || len(r.Evidence.Facts) == 0 {
		r = firstRunWith(t, func(r *load.Run) bool { return r.Evidence != nil && len(r.Evidence.Facts) > 0 })
	}
	if r == nil {
		if firstRunWith(t, func(r *load.Run) bool { return r.Evidence != nil }) != nil {
			return []string{"Hosts: hardware not recorded (no host facts in the runs' manifests)"}
		}
		return nil
	}
	var order []string
	byHW := map[string][]string{}
	boots := map[string]bool{}
	for _, hf := range r.Evidence.Facts {
		f := map[string]string{}
		for _, kv := range hf.Facts {
			f[kv[0]] = kv[1]
		}
		if k := analyse.KernelOf(f["kernel_id"], f["boot_id"]); k != "" {
			boots[k] = true
		}
		hw := hardware(f)
		if _, ok := byHW[hw]; !ok {
			order = append(order, hw)
		}
		byHW[hw] = append(byHW[hw], hf.Host)
	}
	var out []string
	for _, hw := range order {
		hosts := byHW[hw]
		word := "Host "
		if len(hosts) > 1 {
			word = "Hosts "
		}
		out = append(out, word+strings.Join(hosts, ", ")+": "+hw)
	}
	if len(boots) == 1 && len(r.Evidence.Facts) > 1 {
		out = append(out, fmt.Sprintf("All %d hosts share one kernel: one machine, its cores shared", len(r.Evidence.Facts)))
	}
	return out
}

// hardware is a host's CPU, memory and datadir disk from its facts.
func hardware(f map[string]string) string {
	var parts []string
	cpu := f["cpu_model"]
	switch {
	case cpu != "" && f["cpus"] != "":
		parts = append(parts, cpu+" x "+f["cpus"]+" cores")
	case cpu != "":
		parts = append(parts, cpu)
	case f["cpus"] != "":
		parts = append(parts, f["cpus"]+" cores (CPU model not recorded)")
	}
	if mb, err := strconv.ParseFloat(f["memory_mb"], 64); err == nil {
		parts = append(parts, fmt.Sprintf("%.1f GiB RAM", mb/1024))
	}
	s := strings.Join(parts, ", ")
	if f["disk_path"] == "" {
		return s
	}
	var disk []string
	if f["disk_fs"] != "" {
		disk = append(disk, f["disk_fs"]+" on "+judge.Dash(f["disk_device"]))
	}
	if mb, err := strconv.ParseFloat(f["disk_size_mb"], 64); err == nil {
		disk = append(disk, fmt.Sprintf("%.0f GiB", mb/1024))
	}
	for _, k := range []string{"disk_model", "disk_kind"} {
		if f[k] != "" {
			disk = append(disk, f[k])
		}
	}
	if len(disk) == 0 {
		disk = append(disk, "disk not recorded")
	}
	return s + "; datadir " + f["disk_path"] + ": " + strings.Join(disk, ", ")
}
