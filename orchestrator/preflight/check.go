package preflight

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/mysqlconn"
	"github.com/orch-bench/orch/orchestrator/sqlrows"
	"github.com/orch-bench/orch/topology"
)

// Facts is what preflight learned about one host. Later stages (run
// manifests) record it as the host's facts.
type Facts struct {
	Host    string `json:"host"`
	Role    string `json:"role"`
	Address string `json:"address"`
	SSH     string `json:"ssh"`
	Sudo    string `json:"sudo,omitempty"`
	OS      string `json:"os,omitempty"`
	Kernel  string `json:"kernel,omitempty"`
	// BootID is the kernel's boot id (/proc/sys/kernel/random/boot_id).
	// systemd-nspawn gives each container its own, so it does not tell
	// hosts on one kernel apart from hosts on several.
	BootID string `json:"boot_id,omitempty"`
	// KernelID names the running kernel as every container on it sees
	// it: its release and boot time (/proc/stat's btime, which no
	// container runtime here virtualises). Hosts that report the same one
	// share a kernel, and its CPUs (the lab's namespaces, containers on
	// one machine).
	KernelID   string `json:"kernel_id,omitempty"`
	CPUs       int    `json:"cpus,omitempty"`
	CPUModel   string `json:"cpu_model,omitempty"` // /proc/cpuinfo's model name
	MemoryMB   int64  `json:"memory_mb,omitempty"`
	DiskPath   string `json:"disk_path,omitempty"`
	DiskFreeMB int64  `json:"disk_free_mb,omitempty"`
	// The datadir's filesystem (df) and, when it is on a block device,
	// that disk's model and kind (lsblk; the parent disk of a partition).
	DiskDevice    string   `json:"disk_device,omitempty"`
	DiskFS        string   `json:"disk_fs,omitempty"`
	DiskSizeMB    int64    `json:"disk_size_mb,omitempty"`
	DiskModel     string   `json:"disk_model,omitempty"`
	DiskKind      string   `json:"disk_kind,omitempty"` // "rotational", "non-rotational"
	ClockOffsetMs float64  `json:"clock_offset_ms"`
	THP           string   `json:"transparent_hugepages,omitempty"`
	Mysqld        string   `json:"mysqld,omitempty"`  // binary version line, or "" when absent
	Server        string   `json:"server,omitempty"`  // "MariaDB 10.11.19" from the binary or the server
	MySQL         string   `json:"mysql,omitempty"`   // "up" or why not
	Engines       []string `json:"engines,omitempty"` // loaded engines, then "name (plugin file)" for loadable ones
	// Clients maps a load box's benchmark client checks (the driver
	// table's, bench.ClientChecks) to the version line of the program
	// found; each is a key of its own in JSON (clients.go).
	Clients       map[string]string `json:"-"`
	StackTools    []string          `json:"stack_tools,omitempty"` // stack samplers a database host has installed (gdb, perf); --stacks=auto uses perf where it works
	RTTToMasterMs float64           `json:"rtt_to_master_ms,omitempty"`
	Problems      []Problem         `json:"problems,omitempty"`
}

// Problem is one failed check. Blocking problems make `orch check` fail.
type Problem struct {
	Blocking bool   `json:"blocking"`
	Msg      string `json:"message"`
}

// Blocking reports whether any problem blocks orch from using the host.
func (f *Facts) Blocking() bool {
	for _, p := range f.Problems {
		if p.Blocking {
			return true
		}
	}
	return false
}

func (f *Facts) problem(blocking bool, format string, args ...any) {
	f.Problems = append(f.Problems, Problem{Blocking: blocking, Msg: fmt.Sprintf(format, args...)})
}

// Limits that turn facts into warnings.
const (
	maxClockOffset = 500 * time.Millisecond
	minDiskFreeMB  = 2048
)

// Check gathers facts on every host of c in parallel; results are in host
// order, and a host that could not be reached still gets a row.
func Check(ctx context.Context, c *cluster.Cluster) []*Facts {
	facts := make([]*Facts, len(c.Hosts))
	for i, h := range c.Hosts {
		facts[i] = &Facts{Host: h.Name, Role: string(h.Role), Address: h.Address}
	}
	errs := c.Each(ctx, nil, func(ctx context.Context, h *topology.Host, ex executor.Executor) error {
		f := facts[indexOf(c.Hosts, h)]
		f.SSH = "ok (" + c.ConnectTime(h).Round(time.Millisecond).String() + ")"
		probeHost(ctx, h, ex, f, c.OpenedDB(h))
		return nil
	})
	for i, err := range errs {
		if err != nil {
			facts[i].SSH = "FAILED"
			facts[i].problem(true, "%v", err)
		}
	}
	if m := c.Inventory.Master(); m != nil {
		for _, lb := range c.Inventory.LoadBoxes() {
			if i := indexOf(c.Hosts, lb); i >= 0 {
				if ex, err := c.Executor(lb); err == nil {
					measureRTT(ctx, ex, m, facts[i])
				}
			}
		}
	}
	return facts
}

func indexOf(hosts []*topology.Host, h *topology.Host) int {
	for i, x := range hosts {
		if x == h {
			return i
		}
	}
	return -1
}

// probeHost reads the host's facts; db is its server's pool when this
// command already opened it (nil: checkServer logs in itself).
func probeHost(ctx context.Context, h *topology.Host, ex executor.Executor, f *Facts, db *sql.DB) {
	res, err := ex.Run(ctx, executor.Command{Script: probeScript(h.MySQL.Datadir, h.Role == topology.RoleLoadBox), Timeout: 30 * time.Second})
	if err != nil {
		f.problem(true, "%s: probe: %v", h, err)
		return
	}
	kv := parseProbe(res.Stdout)
	f.OS, f.Kernel, f.BootID = first(kv, "os"), first(kv, "kernel"), first(kv, "boot_id")
	if bt := first(kv, "btime"); bt != "" && f.Kernel != "" {
		f.KernelID = f.Kernel + " booted " + bt
	}
	f.CPUs = int(atoi(first(kv, "cpus")))
	f.MemoryMB = atoi(first(kv, "mem_kb")) / 1024
	f.DiskPath, f.DiskFreeMB = first(kv, "disk_path"), atoi(first(kv, "disk_free_kb"))/1024
	f.CPUModel = strings.Join(strings.Fields(first(kv, "cpu_model")), " ")
	f.DiskDevice, f.DiskFS, f.DiskSizeMB = first(kv, "disk_device"), first(kv, "disk_fs"), atoi(first(kv, "disk_size_kb"))/1024
	f.DiskModel = strings.TrimSpace(first(kv, "disk_model"))
	f.DiskKind = diskKind(first(kv, "disk_rotational"))
	f.THP = thpSelected(first(kv, "thp"))
	checkSudo(ctx, h, ex, f, first(kv, "uid") == "0")
	checkClock(ctx, h, ex, f)
	if h.Role == topology.RoleLoadBox {
		checkClients(h, f, kv)
		return
	}
	if !h.IsDB() {
		return
	}
	if missing := first(kv, "datadir_missing"); missing != "" {
		f.problem(false, "%s: datadir %s does not exist: the disk facts are of %s, its nearest existing parent; set mysql.datadir to the server's (SELECT @@datadir)", h, missing, f.DiskPath)
	}
	// A full disk reads 0 MB, as an unknown one does: only df's own
	// figure tells them apart.
	if kb, err := strconv.ParseInt(strings.TrimSpace(first(kv, "disk_free_kb")), 10, 64); err == nil && kb < minDiskFreeMB*1024 {
		f.problem(false, "%s: only %d MB free on %s", h, kb/1024, f.DiskPath)
	}
	if f.StackTools = kv["stack_tool"]; len(f.StackTools) == 0 {
		f.problem(false, "%s: neither gdb nor perf: no stack samples in reports (install gdb, or linux-perf)", h)
	}
	f.Mysqld = first(kv, "mysqld_version")
	switch path := first(kv, "mysqld_path"); {
	case f.Mysqld == "" && path != "":
		f.problem(true, "%s: %s --version printed nothing: the server binary does not run (a missing shared library?)", h, path)
	case f.Mysqld == "":
		f.problem(true, "%s: no mysqld/mariadbd binary found", h)
	}
	if v, c := parseMysqldVersion(f.Mysqld); f.Mysqld != "" && v != "" {
		if srv, err := flavor.Detect(v, c); err == nil {
			f.Server = srv.String()
		} else {
			f.problem(true, "%s: %v", h, err)
		}
	}
	if f.THP == "always" {
		f.problem(false, "%s: transparent huge pages are %q: %s refuses to start; fix: echo never > /sys/kernel/mm/transparent_hugepage/enabled (and defrag)", h, f.THP, thpEngines())
	}
	checkServer(ctx, h, ex, f, kv["plugin_file"], db)
}

func checkSudo(ctx context.Context, h *topology.Host, ex executor.Executor, f *Facts, root bool) {
	switch {
	case root:
		f.Sudo = "root"
	case !h.SSH.Sudo:
		f.Sudo = "not used"
	default:
		if _, err := ex.Run(ctx, executor.Command{Script: "true", Sudo: true, Timeout: 20 * time.Second}); err != nil {
			f.Sudo = "FAILED"
			f.problem(true, "%v", err)
			return
		}
		f.Sudo = "ok"
	}
}

// checkClock compares the host's clock with ours the way NTP does: a shell
// on the host answers each newline with its time, so one sample costs one
// round trip, and the sample with the shortest round trip wins (our clock
// taken at its midpoint).
func checkClock(ctx context.Context, h *topology.Host, ex executor.Executor, f *Facts) {
	offset, err := clockOffset(ctx, ex, 5)
	if err != nil {
		f.problem(false, "%s: read clock: %v", h, err)
		return
	}
	f.ClockOffsetMs = float64(offset) / float64(time.Millisecond)
	if offset > maxClockOffset || offset < -maxClockOffset {
		f.problem(false, "%s: clock is %.0f ms off the control machine (time series across hosts will not line up; run NTP)", h, f.ClockOffsetMs)
	}
}

func clockOffset(ctx context.Context, ex executor.Executor, samples int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := ex.Run(ctx, executor.Command{Script: "while read -r _; do date +%s.%N; done", Stdin: inR, Stdout: outW})
		outW.CloseWithError(err)
		done <- err
	}()
	defer func() { inW.Close(); cancel(); <-done }()
	sc := bufio.NewScanner(outR)
	var best, offset time.Duration
	for i := 0; i < samples; i++ {
		t0 := time.Now()
		if _, err := io.WriteString(inW, "\n"); err != nil {
			return 0, err
		}
		if !sc.Scan() {
			return 0, fmt.Errorf("no answer: %v", sc.Err())
		}
		rtt := time.Since(t0)
		remote, err := strconv.ParseFloat(strings.TrimSpace(sc.Text()), 64)
		if err != nil {
			return 0, fmt.Errorf("unexpected %q", sc.Text())
		}
		mid := t0.Add(rtt / 2)
		if i == 0 || rtt < best {
			best = rtt
			offset = time.Duration(remote*1e9) - time.Duration(mid.UnixNano())
		}
	}
	return offset, nil
}

// checkServer lists the server's engines on db, the command's open pool,
// or when it has none, after logging in through the SSH connection.
func checkServer(ctx context.Context, h *topology.Host, ex executor.Executor, f *Facts, pluginFiles []string, db *sql.DB) {
	if db != nil {
		serverFacts(ctx, h, db, f, pluginFiles)
		return
	}
	d, ok := ex.(mysqlconn.Dialer)
	if !ok {
		f.MySQL = "no tunnel"
		return
	}
	if h.MySQL.Managed && account.Pending(h.MySQL.Password) {
		managedLogin(ctx, h, ex, f, nil)
		f.Engines = loadable(nil, pluginFiles)
		return
	}
	db, err := mysqlconn.Open(ctx, d, h)
	if err != nil && h.MySQL.Managed && mysqlconn.LoginRefused(err) {
		managedLogin(ctx, h, ex, f, err)
		f.Engines = loadable(nil, pluginFiles)
		return
	}
	if err != nil {
		f.MySQL = "FAILED"
		f.problem(true, "%v", err)
		f.Engines = loadable(nil, pluginFiles)
		return
	}
	defer db.Close()
	serverFacts(ctx, h, db, f, pluginFiles)
}

// serverFacts reads the server's version and engines from a logged-in pool.
func serverFacts(ctx context.Context, h *topology.Host, db *sql.DB, f *Facts, pluginFiles []string) {
	f.MySQL = "up"
	var version, comment, pluginDir string
	if err := db.QueryRowContext(ctx, "SELECT VERSION(), @@version_comment").Scan(&version, &comment); err == nil {
		if srv, err := flavor.Detect(version, comment); err == nil {
			f.Server = srv.String()
		}
	}
	if err := db.QueryRowContext(ctx, "SELECT @@plugin_dir").Scan(&pluginDir); err == nil {
		pluginFiles = inDir(pluginFiles, pluginDir)
	}
	engines, err := loadedEngines(ctx, db)
	if err != nil {
		f.problem(false, "%s: SHOW ENGINES: %v", h, err)
	}
	f.Engines = loadable(engines, pluginFiles)
}

// managedLogin reports a host whose admin account orch makes itself (up,
// through root's unix socket) and has not made yet (or whose password
// changed): fine when root's socket works, blocking when it does not.
func managedLogin(ctx context.Context, h *topology.Host, ex executor.Executor, f *Facts, loginErr error) {
	if err := account.CheckSocket(ctx, ex); err != nil {
		f.MySQL = "FAILED"
		f.problem(true, "%v", err)
		return
	}
	f.MySQL = "root socket ok; up makes " + h.MySQL.User + "@localhost"
	if loginErr != nil {
		f.problem(false, "%s: %s refused (%v): orch up sets its password again", h, h.MySQL.User, loginErr)
	}
}

func loadedEngines(ctx context.Context, db *sql.DB) ([]string, error) {
	t, err := sqlrows.Query(ctx, db, "SELECT LOWER(ENGINE) FROM information_schema.ENGINES WHERE SUPPORT IN ('YES','DEFAULT')")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range t.Rows {
		out = append(out, r[0].String)
	}
	sort.Strings(out)
	return out, nil
}

// inDir keeps the plugin files in the server's plugin dir: another
// server's packages on the same host (a tarball's server beside Debian's)
// offer nothing to this one. Files named without a dir are kept.
func inDir(files []string, dir string) []string {
	var out []string
	for _, f := range files {
		if !strings.Contains(f, "/") || path.Clean(path.Dir(f)) == path.Clean(dir) {
			out = append(out, f)
		}
	}
	return out
}

// loadable appends engines whose plugin file exists but is not loaded.
func loadable(loaded, pluginFiles []string) []string {
	have := map[string]bool{}
	for _, e := range loaded {
		have[e] = true
	}
	out := append([]string(nil), loaded...)
	for _, f := range pluginFiles {
		f = path.Base(f)
		e := strings.TrimSuffix(strings.TrimPrefix(f, "ha_"), ".so")
		if spec, ok := flavor.EngineByLibrary(f); ok {
			e = spec.Name
		}
		if !have[e] {
			have[e] = true
			out = append(out, e+" (plugin file, not loaded)")
		}
	}
	return out
}

// measureRTT times a TCP connect from the load box to the master's MySQL
// port (a dropped ICMP says nothing about it). Not blocking: the paths
// check proves the route the benchmark uses.
func measureRTT(ctx context.Context, ex executor.Executor, master *topology.Host, f *Facts) {
	res, err := ex.Run(ctx, executor.Command{Script: rttScript(master.PeerAddress(), portOf(master)), Timeout: 15 * time.Second})
	if rtt, ok := parseRTT(string(res.Stdout)); err == nil && ok {
		f.RTTToMasterMs = rtt
		return
	}
	why := fmt.Sprint(err)
	if err == nil { // it ran, but printed no time
		why = fmt.Sprintf("unreadable output %q", strings.TrimSpace(string(res.Stdout)))
	}
	f.problem(false, "%s: no TCP round trip to master %s port %d from the load box: %s", ex.Name(), master.PeerAddress(), portOf(master), why)
}

// thpEngines names the engines that refuse to start with transparent huge
// pages on (flavor.EngineSpec.NeedsTHPOff): "TokuDB".
func thpEngines() string {
	var names []string
	for _, e := range flavor.EngineSpecs() {
		if e.NeedsTHPOff {
			names = append(names, e.Display)
		}
	}
	return strings.Join(names, " or ")
}
