package preflight

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestParseProbeAndHelpers(t *testing.T) {
	kv := parseProbe([]byte("uid=0\nos=Debian GNU/Linux 12 (bookworm)\nplugin_file=ha_rocksdb.so\nplugin_file=ha_tokudb.so\nnoise\nthp=always madvise [never]\n"))
	if first(kv, "os") != "Debian GNU/Linux 12 (bookworm)" || len(kv["plugin_file"]) != 2 || first(kv, "missing") != "" {
		t.Fatalf("parseProbe: %v", kv)
	}
	if got := thpSelected(first(kv, "thp")); got != "never" {
		t.Errorf("thpSelected = %q", got)
	}
	for line, want := range map[string][2]string{
		"/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)":                {"10.11.19-MariaDB-0+deb12u1", "Debian 12"},
		"/usr/sbin/mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)":                              {"8.0.36", "MySQL Community Server - GPL"},
		"/usr/sbin/mysqld  Ver 5.7.44-48 for Linux on x86_64 (Percona Server (GPL), Release 48, Revision 497f936a373)": {"5.7.44-48", "Percona Server (GPL), Release 48, Revision 497f936a373"},
		"garbage": {"", ""},
	} {
		v, c := parseMysqldVersion(line)
		if v != want[0] || c != want[1] {
			t.Errorf("parseMysqldVersion(%q) = %q, %q", line, v, c)
		}
	}
	if got := loadable([]string{"innodb", "rocksdb"}, []string{"ha_rocksdb.so", "ha_tokudb.so"}); strings.Join(got, ",") != "innodb,rocksdb,tokudb (plugin file, not loaded)" {
		t.Errorf("loadable = %v", got)
	}
}

func TestDiskKind(t *testing.T) {
	for in, want := range map[string]string{"1": "rotational", "0\n": "non-rotational", "": ""} {
		if got := diskKind(in); got != want {
			t.Errorf("diskKind(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseRTT(t *testing.T) {
	ping := "--- 10.99.0.11 ping statistics ---\n3 packets transmitted, 3 received, 0% packet loss, time 402ms\nrtt min/avg/max/mdev = 0.041/0.052/0.064/0.009 ms\n"
	if v, ok := parseRTT(ping); !ok || v != 0.052 {
		t.Errorf("ping RTT = %v, %v", v, ok)
	}
	if v, ok := parseRTT("tcp_us=250\n"); !ok || v != 0.25 {
		t.Errorf("tcp RTT = %v, %v", v, ok)
	}
	if _, ok := parseRTT("connect: Network is unreachable"); ok {
		t.Error("parsed an RTT out of an error")
	}
}

// TestProbeScriptRunsAndQuotes runs the real probe under /bin/sh with a
// hostile datadir: it must exit 0, report facts, and treat the datadir as
// one literal path.
func TestProbeScriptRunsAndQuotes(t *testing.T) {
	out, err := exec.Command("/bin/sh", "-c", probeScript("/nonexistent/x'; touch /tmp/pwned-orch; echo '", true)).Output()
	if err != nil {
		t.Fatalf("probe script failed: %v", err)
	}
	kv := parseProbe(out)
	if first(kv, "kernel") == "" || first(kv, "cpus") == "" || first(kv, "disk_path") != "/" || first(kv, "datadir_missing") != "/nonexistent/x'; touch /tmp/pwned-orch; echo '" {
		t.Errorf("probe facts: %v", kv)
	}
	// What the report's head says the hosts were: CPU model, the datadir's
	// filesystem and size (here "/", the nearest existing parent).
	if cpuinfo, err := os.ReadFile("/proc/cpuinfo"); err == nil && strings.Contains(string(cpuinfo), "model name") && first(kv, "cpu_model") == "" {
		t.Errorf("no cpu_model although /proc/cpuinfo names one: %v", kv)
	}
	if first(kv, "disk_fs") == "" || atoi(first(kv, "disk_size_kb")) <= 0 || first(kv, "disk_device") == "" {
		t.Errorf("no filesystem facts for the datadir: %v", kv)
	}
	if want, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil && first(kv, "boot_id") != strings.TrimSpace(string(want)) {
		t.Errorf("boot_id = %q, want this kernel's %q", first(kv, "boot_id"), want)
	}
	// The kernel's boot time, read here from /proc/stat by other means:
	// what containers on one kernel share when their boot ids differ.
	if stat, err := os.ReadFile("/proc/stat"); err == nil {
		var want string
		for _, line := range strings.Split(string(stat), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "btime" {
				want = f[1]
			}
		}
		if want == "" || first(kv, "btime") != want {
			t.Errorf("btime = %q, want /proc/stat's %q", first(kv, "btime"), want)
		}
	}
	if out, _ := exec.Command("sh", "-c", "ls /tmp/pwned-orch 2>/dev/null").Output(); len(out) > 0 {
		t.Fatal("the datadir value was executed by the shell")
	}
}
