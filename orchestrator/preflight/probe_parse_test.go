package preflight

import (
	"slices"
	"strings"
	"testing"
)

// debianDB is what the probe printed on a Debian 12 host with MariaDB
// 10.11 from Debian's packages, gdb and perf, MyRocks' plugin file, and
// its datadir on a virtio disk (lsblk pads ROTA to its column width).
const debianDB = `uid=0
os=Debian GNU/Linux 12 (bookworm)
kernel=Linux 6.18.44-fc-v1045
boot_id=1b722b42-fff9-415d-b032-05d305546ad4
btime=1796180946
cpus=2
mem_kb=24683548
cpu_model=AMD EPYC
thp=always [madvise] never
disk_path=/var/lib/mysql
disk_free_kb=74505688
disk_device=/dev/vda
disk_fs=ext4
disk_size_kb=264212084
disk_model=
disk_rotational=   1
mysqld_path=/usr/sbin/mariadbd
mysqld_version=/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)
stack_tool=gdb
stack_tool=perf
plugin_file=ha_rocksdb.so
`

// debianLoadBox is the same machine probed as a load box: no datadir
// of its own (the probe walks up to /), sysbench and MariaDB's clients.
const debianLoadBox = `uid=0
os=Debian GNU/Linux 12 (bookworm)
kernel=Linux 6.18.44-fc-v1045
boot_id=1b722b42-fff9-415d-b032-05d305546ad4
btime=1796180946
cpus=2
mem_kb=24683548
cpu_model=AMD EPYC
thp=always [madvise] never
disk_path=/
disk_free_kb=74505688
disk_device=/dev/vda
disk_fs=ext4
disk_size_kb=264212084
disk_model=
disk_rotational=   1
sysbench=sysbench 1.0.20
mysqlslap=/usr/bin/mariadb-slap  Ver 1.0 Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)
mysql_client=/usr/bin/mariadb  Ver 15.1 Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64) using  EditLine wrapper
`

func TestParseProbeOfADebianHost(t *testing.T) {
	kv := parseProbe([]byte(debianDB))
	for k, want := range map[string]string{
		"os":              "Debian GNU/Linux 12 (bookworm)",
		"disk_model":      "", // present, empty: a virtio disk has no model
		"disk_rotational": "1",
		"mysqld_version":  "/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)",
	} {
		if got := first(kv, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if _, ok := kv["disk_model"]; !ok {
		t.Error("an empty value lost its key")
	}
	// Repeated keys keep every value, in the order the host printed them.
	if got := kv["stack_tool"]; !slices.Equal(got, []string{"gdb", "perf"}) {
		t.Errorf("stack_tool = %q", got)
	}
	if got := first(kv, "sysbench"); got != "" {
		t.Errorf("a database host's probe has no sysbench line, got %q", got)
	}
}

// What a connection dropped mid-output, a terminal's carriage returns or
// noise on stdout leave of the probe's lines.
func TestParseProbeDamagedOutput(t *testing.T) {
	truncated := debianDB[:len("uid=0\nos=Debian GNU/Linux 12 (bookworm)\nkernel=Linux 6.18.44-fc-v1045\nboot_id=1b72")]
	kv := parseProbe([]byte(truncated))
	if first(kv, "kernel") != "Linux 6.18.44-fc-v1045" || first(kv, "mem_kb") != "" {
		t.Errorf("truncated: %v", kv)
	}
	kv = parseProbe([]byte("uid=0\nmem_k"))
	if len(kv) != 1 {
		t.Errorf("a line cut before its '=' became a fact: %v", kv)
	}

	kv = parseProbe([]byte("cpus=2\r\nmem_kb=2048000\r\nos=Ubuntu 24.04.1 LTS\r\n"))
	if first(kv, "cpus") != "2" || atoi(first(kv, "mem_kb")) != 2048000 || first(kv, "os") != "Ubuntu 24.04.1 LTS" {
		t.Errorf("CRLF lines: %q", kv)
	}

	garbled := "Welcome to Ubuntu\n\x00\xff\xfe\n=orphan value\n   \ncpu_model=Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz\nmysqld_version=mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)\n"
	kv = parseProbe([]byte(garbled))
	if _, ok := kv[""]; ok {
		t.Errorf("a line without a key became a fact: %q", kv[""])
	}
	if len(kv) != 2 {
		t.Errorf("noise lines became facts: %q", kv)
	}
	// Only the first '=' separates: a value may hold more.
	if got := first(parseProbe([]byte("os=NAME=x\n")), "os"); got != "NAME=x" {
		t.Errorf("value with '=': %q", got)
	}
	// A line longer than a Scanner's 64 KiB (a huge os-release, a
	// motd) loses no fact after it.
	long := "motd=" + strings.Repeat("x", 100<<10) + "\ncpus=16\nmem_kb=16384000\n"
	if kv := parseProbe([]byte(long)); first(kv, "cpus") != "16" || first(kv, "mem_kb") != "16384000" {
		t.Errorf("facts after a 100 KiB line: cpus %q, mem_kb %q", first(kv, "cpus"), first(kv, "mem_kb"))
	}
	if kv := parseProbe(nil); len(kv) != 0 || first(kv, "uid") != "" {
		t.Errorf("no output: %v", kv)
	}
}

func TestAtoiOfOddValues(t *testing.T) {
	for in, want := range map[string]int64{
		"24683548":   24683548,
		" 74505688 ": 74505688,
		"":           0,
		"12kB":       0, // not a number: unknown, not 12
		"2.5":        0,
		"-1":         -1,
	} {
		if got := atoi(in); got != want {
			t.Errorf("atoi(%q) = %d, want %d", in, got, want)
		}
	}
}

// /sys/kernel/mm/transparent_hugepage/enabled brackets the active mode
// (Documentation/admin-guide/mm/transhuge.rst).
func TestTHPSelected(t *testing.T) {
	for in, want := range map[string]string{
		"[always] madvise never": "always",
		"always [madvise] never": "madvise",
		"always madvise [never]": "never",
		"":                       "", // no such file (a kernel without THP)
		"always [madvise":        "always [madvise",
		"[]":                     "",
	} {
		if got := thpSelected(in); got != want {
			t.Errorf("thpSelected(%q) = %q, want %q", in, got, want)
		}
	}
}

// `mysqld --version` lines as the packages print them.
func TestParseMysqldVersionLines(t *testing.T) {
	for line, want := range map[string][2]string{
		// Ubuntu's MySQL doubles the parentheses.
		"/usr/sbin/mysqld  Ver 8.0.36-0ubuntu0.22.04.1 for Linux on x86_64 ((Ubuntu))":                                    {"8.0.36-0ubuntu0.22.04.1", "(Ubuntu)"},
		"/usr/sbin/mariadbd  Ver 11.4.2-MariaDB-ubu2404 for debian-linux-gnu on x86_64 (mariadb.org binary distribution)": {"11.4.2-MariaDB-ubu2404", "mariadb.org binary distribution"},
		"/usr/libexec/mysqld  Ver 10.3.28-MariaDB for Linux on x86_64 (MariaDB Server)\r":                                 {"10.3.28-MariaDB", "MariaDB Server"},
		"/usr/sbin/mysqld  Ver 5.6.51 for Linux on x86_64 (MySQL Community Server (GPL))":                                 {"5.6.51", "MySQL Community Server (GPL)"},
		"/usr/sbin/mariadbd  Ver 10.11.19-MariaDB":                                                                        {"", ""}, // cut before the comment
		"": {"", ""},
	} {
		v, c := parseMysqldVersion(line)
		if v != want[0] || c != want[1] {
			t.Errorf("parseMysqldVersion(%q) = %q, %q; want %q, %q", line, v, c, want[0], want[1])
		}
	}
}

func TestParseRTTOddOutput(t *testing.T) {
	for out, want := range map[string]float64{
		"tcp_us=7845\n": 7.845,
		"tcp_us=0\n":    0,
		"PING 10.99.0.11 (10.99.0.11) 56(84) bytes of data.\n\n--- 10.99.0.11 ping statistics ---\n1 packets transmitted, 1 received, 0% packet loss, time 0ms\nrtt min/avg/max/mdev = 1.204/1.204/1.204/0.000 ms\n": 1.204,
	} {
		if got, ok := parseRTT(out); !ok || got != want {
			t.Errorf("parseRTT(%q) = %v, %v; want %v", out, got, ok, want)
		}
	}
	for _, out := range []string{
		"",
		"tcp_us=\n",
		"tcp_us=abc\n",
		"bash: line 1: 1796180946N: value too great for base (error token is \"1796180946N\")\n",
		"rtt min/avg/max/mdev = x/y/z/w ms\n",
		"tcp_us=-1500\n", // the clock stepped back during the measurement
	} {
		if got, ok := parseRTT(out); ok {
			t.Errorf("parseRTT(%q) = %v, ok: want no round trip", out, got)
		}
	}
}

// lsblk -ndo ROTA pads its one column.
func TestDiskKindPadded(t *testing.T) {
	for in, want := range map[string]string{"   1": "rotational", "   0\n": "non-rotational", "2": "", "yes": ""} {
		if got := diskKind(in); got != want {
			t.Errorf("diskKind(%q) = %q, want %q", in, got, want)
		}
	}
}
