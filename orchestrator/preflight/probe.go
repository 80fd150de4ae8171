// Package preflight gathers host facts and decides whether a cluster is fit
// for orch: SSH and sudo work, the server and the benchmark clients exist,
// clocks agree, TokuDB's transparent-huge-pages requirement, and so on.
package preflight

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/shell"
)

// probeScript prints one key=value line per fact in a single round trip.
// Every value that comes from the inventory is quoted by the shell helper.
func probeScript(datadir string, loadbox bool) string {
	var b strings.Builder
	b.WriteString(`exec 2>/dev/null
echo "uid=$(id -u)"
echo "os=$(. /etc/os-release && echo "$PRETTY_NAME")"
echo "kernel=$(uname -sr)"
echo "boot_id=$(cat /proc/sys/kernel/random/boot_id)"
echo "btime=$(awk '/^btime/ {print $2}' /proc/stat)"
echo "cpus=$(getconf _NPROCESSORS_ONLN || nproc)"
echo "mem_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)"
m=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
[ -n "$m" ] || m=$(lscpu | awk -F': *' '/^Model name/ {print $2; exit}')
echo "cpu_model=$m"
echo "thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
`)
	b.WriteString("d=" + shell.Quote(datadir) + "\n")
	// A datadir that is not there is said, before the walk up to the
	// nearest existing parent whose disk the facts then describe.
	b.WriteString(`[ -n "$d" ] && [ ! -d "$d" ] && echo "datadir_missing=$d"
while [ ! -e "$d" ] && [ "$d" != / ]; do d=$(dirname "$d"); done
echo "disk_path=$d"
echo "disk_free_kb=$(df -Pk "$d" | awk 'NR==2 {print $4}')"
df -PTk "$d" | awk 'NR==2 {print "disk_device=" $1; print "disk_fs=" $2; print "disk_size_kb=" $3}'
src=$(df -P "$d" | awk 'NR==2 {print $1}')
if [ -b "$src" ]; then
  pk=$(lsblk -ndo PKNAME "$src" | head -n 1)
  dev=$src; [ -n "$pk" ] && dev=/dev/$pk
  echo "disk_model=$(lsblk -ndo MODEL "$dev" | head -n 1)"
  echo "disk_rotational=$(lsblk -ndo ROTA "$dev" | head -n 1)"
fi
for m in ` + shell.Join(flavor.ServerBinaries()...) + `; do
  p=$(command -v "$m") && { echo "mysqld_path=$p"; echo "mysqld_version=$("$p" --version | head -n 1)"; break; }
done
for t in gdb perf; do command -v "$t" >/dev/null && echo "stack_tool=$t"; done
# The packages' plugin dirs, and the one beside the server's binary (a
# relocatable tree: bin/mariadbd, lib/plugin); the server's own
# @@plugin_dir says later which of them is its.
dirs=` + shell.Quote(strings.Join(flavor.PluginDirs(), " ")) + `
[ -n "$p" ] && dirs="$dirs $(dirname "$(dirname "$(readlink -f "$p")")")/lib/plugin"
for dir in $dirs; do
  for f in ` + shell.Join(flavor.PluginLibraries()...) + `; do [ -e "$dir/$f" ] && echo "plugin_file=$dir/$f"; done
done
`)
	if loadbox {
		b.WriteString(clientProbe() + `p=$(command -v mariadb || command -v mysql) && echo "mysql_client=$("$p" --version | head -n 1)"
`)
	}
	// A missing tool is a fact, not a failure of the probe.
	b.WriteString("exit 0\n")
	return b.String()
}

// parseProbe turns the probe's key=value lines into a multimap. A line of
// any length is read (a Scanner would stop at its first line over 64 KiB
// and drop every fact after it).
func parseProbe(out []byte) map[string][]string {
	kv := map[string][]string{}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(strings.TrimSuffix(line, "\r"), "=")
		if !ok || k == "" {
			continue
		}
		kv[k] = append(kv[k], strings.TrimSpace(v))
	}
	return kv
}

func first(kv map[string][]string, k string) string {
	if v := kv[k]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n
}

// thpSelected extracts the bracketed choice from "always [madvise] never".
func thpSelected(s string) string {
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}

// mysqldVersionRE reads `mysqld --version`, e.g.
// "/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)".
var mysqldVersionRE = regexp.MustCompile(`Ver\s+(\S+)\s.*?\((.*)\)\s*$`)

func parseMysqldVersion(line string) (version, comment string) {
	m := mysqldVersionRE.FindStringSubmatch(line)
	if m == nil {
		return "", ""
	}
	return m[1], m[2]
}

// pingRTTRE reads ping's summary: "rtt min/avg/max/mdev = 0.041/0.052/0.064/0.009 ms".
var pingRTTRE = regexp.MustCompile(`= [\d.]+/([\d.]+)/[\d.]+/[\d.]+ ms`)

// tcpRTT times a TCP connect through bash's /dev/tcp; $1 is the address and
// $2 the port, passed as arguments so they are never spliced into the text.
// A refused connect (a stock server on 127.0.0.1 only) is a round trip too.
const tcpRTT = `s=$(date +%s%N); (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; e=$(date +%s%N); echo "tcp_us=$(( (e - s) / 1000 ))"`

// rttScript measures the round trip from the load box to addr's port with
// a TCP connect (a refused connect is a round trip too).
func rttScript(addr string, port int) string {
	return "bash -c " + shell.Quote(tcpRTT) + " _ " + shell.Quote(addr) + " " + strconv.Itoa(port)
}

// parseRTT returns the round trip in milliseconds from rttScript's output.
func parseRTT(out string) (float64, bool) {
	if m := pingRTTRE.FindStringSubmatch(out); m != nil {
		v, err := strconv.ParseFloat(m[1], 64)
		return v, err == nil
	}
	if _, v, ok := strings.Cut(out, "tcp_us="); ok {
		// A clock stepped back during the measurement gives a negative
		// time: no round trip measured, not a fast one.
		us, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return us / 1000, err == nil && us >= 0
	}
	return 0, false
}

// diskKind reads lsblk's ROTA column ("" when not a block device).
func diskKind(rota string) string {
	switch strings.TrimSpace(rota) {
	case "1":
		return "rotational"
	case "0":
		return "non-rotational"
	}
	return ""
}
