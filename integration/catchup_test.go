package integration

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRunCatchUpProgress: while the replicas catch up after a run, the
// console shows their lag every few seconds, shrinking, then how long each
// took. slave1 is made to lag with a replication delay (MASTER_DELAY 16 s,
// a real server setting): the master's writes of a 4 s run reach it
// applied only 16 s later, so the wait lasts some 12 s: two progress lines.
// results.json times the catch-up from the load's end: the last write of
// the run is applied no sooner than 16 s after its commit (its event's
// timestamp is in whole seconds: 15 s after the load's end at least), and
// the slave lacked transactions when the wait began.
func TestRunCatchUpProgress(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	l.mustOK(t, "up", "-i", l.inventory, "--engine", "innodb")
	setDelay := func(s int) result {
		return l.orch(t, "exec", "-i", l.inventory, "--role", "slave1", "--sudo", "--",
			`mariadb -e "STOP SLAVE; CHANGE MASTER TO MASTER_DELAY=`+strconv.Itoa(s)+`; START SLAVE"`)
	}
	defer setDelay(0)
	if r := setDelay(16); r.code != 0 {
		t.Fatalf("set the delay: exit %d", r.code)
	}
	runs := t.TempDir()
	r := l.mustOK(t, "run", "-i", l.inventory, "--engine", "innodb", "--workload", "pure-random-writes",
		"--threads", "2", "--tables", "1", "--time", "4", "--table-size", "500", "--stacks", "off", "--runs", runs)
	lines := regexp.MustCompile(`run: replicas catching up: slave1 lag (\d+) tx, slave2 lag \d+ tx; (\d+)s`).FindAllStringSubmatch(r.stderr, -1)
	if len(lines) < 2 {
		t.Fatalf("%d catch-up progress line(s) on stderr, want one every 5 s of a ~12 s wait", len(lines))
	}
	prev := int64(-1)
	for _, m := range lines {
		lag, _ := strconv.ParseInt(m[1], 10, 64)
		if prev >= 0 && lag > prev {
			t.Errorf("slave1's lag grew from %d to %d tx while the master was idle", prev, lag)
		}
		prev = lag
	}
	if first, _ := strconv.ParseInt(lines[0][1], 10, 64); first == 0 {
		t.Errorf("the first catch-up line shows no lag: %s", lines[0][0])
	}
	if !regexp.MustCompile(`run: replicas caught up \(slave1 \S+ [0-9.]+m?s, slave2 `).MatchString(r.stderr) {
		t.Errorf("no line saying how long the replicas took")
	}
	var res struct {
		CatchUp struct {
			LoadEnd time.Time `json:"load_end"`
			Slaves  []struct {
				Host      string `json:"host"`
				CatchUpNs *int64 `json:"catch_up_ns"`
				Behind    *int64 `json:"behind_at_wait_tx"`
			} `json:"slaves"`
		} `json:"catch_up"`
	}
	dir, _ := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "results.json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.CatchUp.LoadEnd.IsZero() || len(res.CatchUp.Slaves) != 2 {
		t.Fatalf("catch_up %+v", res.CatchUp)
	}
	s1 := res.CatchUp.Slaves[0]
	if !strings.HasPrefix(s1.Host, "slave1") || s1.CatchUpNs == nil || s1.Behind == nil {
		t.Fatalf("slave1's catch-up %+v", s1)
	}
	if got := time.Duration(*s1.CatchUpNs); got < 15*time.Second {
		t.Errorf("slave1 caught up %s after the load's end; a 16 s replication delay makes that at least 15 s", got)
	}
	if *s1.Behind == 0 {
		t.Errorf("slave1 lacked no transaction when the wait began, under a 16 s delay")
	}
}
