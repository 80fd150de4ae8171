package rundir

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/labenv"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// TestLabCollectWithSudo fetches the master's error log, which only root
// and the server can read, over SSH as the lab's non-root user (sudo with a
// password), and checks that no password reached the run directory. It is
// skipped unless ORCH_TEST_LAB_INVENTORY names the lab.yaml of a running
// lab (orch lab up), next to which the lab writes lab-password.yaml.
func TestLabCollectWithSudo(t *testing.T) {
	inv, err := topology.Load(labenv.PasswordInventory(t), topology.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := inv.Master()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ex, err := executor.Dial(ctx, h, executor.DialConfig{KnownHostsFile: inv.KnownHostsFile})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	log := h.MySQL.ErrorLog
	res, err := ex.Run(ctx, executor.Command{Script: "wc -c < " + log, Sudo: true})
	if err != nil {
		t.Fatal(err)
	}
	size, err := strconv.ParseInt(strings.TrimSpace(string(res.Stdout)), 10, 64)
	if err != nil || size < 100 {
		t.Fatalf("error log size %q: %v", res.Stdout, err)
	}
	var whole bytes.Buffer
	if _, err := ex.Download(ctx, log, &whole, true); err != nil {
		t.Fatal(err)
	}
	from := size / 2

	d, err := Create(t.TempDir(), "lab-collect", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Start: time.Now(), Status: StatusOK}
	for _, f := range []ExpectedFile{
		{Host: h.Name, Remote: log, Local: HostFile(h.Name, HostErrorLog), Kind: KindLogSlice, Offset: from, End: size, Sudo: true},
		{Host: h.Name, Remote: log, Local: "nosudo.log", Kind: KindFile},
		{Host: h.Name, Remote: "/var/log/mysql/no-such.log", Local: HostFile(h.Name, HostSlowLog), Kind: KindLogSlice, Sudo: true},
	} {
		if err := m.Expect(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.SaveManifest(m); err != nil {
		t.Fatal(err)
	}
	rep, err := Collect(ctx, d, map[string]executor.Executor{h.Name: ex})
	if err == nil || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), h.String()) {
		t.Fatalf("reading the error log without sudo: %v", err)
	}
	if rep.Files[0].Outcome != Fetched || rep.Files[2].Outcome != Missing {
		t.Fatalf("outcomes: %+v", rep.Files)
	}
	got, err := os.ReadFile(filepath.Join(d.Path(), HostFile(h.Name, HostErrorLog)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, whole.Bytes()[from:size]) {
		t.Fatalf("slice %d..%d: got %d bytes that differ from the log", from, size, len(got))
	}

	var secrets []string
	for _, s := range []topology.Secret{h.SSH.Password, h.SSH.SudoPassword, h.MySQL.Password} {
		v, err := s.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, v)
	}
	if hits, err := ScanForSecrets(d.Path(), secrets); err != nil || len(hits) > 0 {
		t.Fatalf("secrets in %v (%v)", hits, err)
	}
}
