package report

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// setServers rewrites the servers a run directory's manifest recorded.
func setServers(t *testing.T, dir string, servers map[string]string) {
	t.Helper()
	p := filepath.Join(dir, "manifest.json")
	var doc map[string]any
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["servers"] = servers
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Runs on MariaDB and on MySQL (or on two major.minor versions) compare
// the servers, not the configurations: refused in one line naming both,
// unless --allow-mixed, which labels the comparison. A patch release
// apart is the same server.
func TestRefusesMixedServers(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "02-rocksdb-r1"), filepath.Join(dir, "04-rocksdb-r2")
	copyDir(t, filepath.Join(matrixDir, "cells", "02-rocksdb-r1"), a)
	copyDir(t, filepath.Join(matrixDir, "cells", "04-rocksdb-r2"), b)
	mysql := map[string]string{"master": "MySQL 9.7.4", "slave1": "MySQL 9.7.4", "slave2": "MySQL 9.7.4"}
	setServers(t, b, mysql)

	_, err := judge.Build(mustLoad(t, a, b), analyse.Options{})
	var ie *load.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("MariaDB vs MySQL: err = %v, want an InputError", err)
	}
	want := "server: MariaDB 10.11 (02-rocksdb-r1) vs MySQL 9.7 (04-rocksdb-r2)"
	if msg := err.Error(); !strings.Contains(msg, want) || !strings.Contains(msg, "--allow-mixed") || strings.Contains(msg, "\n") {
		t.Errorf("err = %q, want one line with %q and --allow-mixed", msg, want)
	}

	rep, err := judge.Build(mustLoad(t, a, b), analyse.Options{AllowMixed: true})
	if err != nil {
		t.Fatal(err)
	}
	if tb := rep.Tables[0]; len(tb.Mixed) != 1 || tb.Mixed[0] != want || !strings.Contains(render.TableAnswer(tb)[0], "NOT COMPARABLE, compared as asked (--allow-mixed): "+want) {
		t.Errorf("allowed: mixed = %q, answer %q", tb.Mixed, render.TableAnswer(tb))
	}

	// Another minor version of one flavour: refused too.
	setServers(t, b, map[string]string{"master": "MariaDB 10.6.21", "slave1": "MariaDB 10.6.21", "slave2": "MariaDB 10.6.21"})
	if _, err := judge.Build(mustLoad(t, a, b), analyse.Options{}); err == nil || !strings.Contains(err.Error(), "server: MariaDB 10.11 (02-rocksdb-r1) vs MariaDB 10.6 (04-rocksdb-r2)") {
		t.Errorf("10.11 vs 10.6: err = %v", err)
	}
	// A patch release apart: compared.
	setServers(t, b, map[string]string{"master": "MariaDB 10.11.20", "slave1": "MariaDB 10.11.20", "slave2": "MariaDB 10.11.20"})
	if _, err := judge.Build(mustLoad(t, a, b), analyse.Options{}); err != nil {
		t.Errorf("10.11.19 vs 10.11.20 refused: %v", err)
	}
}

func TestServerMinor(t *testing.T) {
	for in, want := range map[string]string{
		"MySQL 9.7.4":           "MySQL 9.7",
		"MariaDB 10.11.19":      "MariaDB 10.11",
		"Percona Server 8.0.36": "Percona Server 8.0",
		"something odd":         "something odd",
		"MySQL":                 "MySQL",
	} {
		if got := judge.ServerMinor(in); got != want {
			t.Errorf("serverMinor(%q) = %q, want %q", in, got, want)
		}
	}
	ev := &load.Evidence{Servers: map[string]string{"master": "MySQL 9.7.4", "slave1": "MariaDB 10.11.19", "slave2": "MySQL 9.7.5"}}
	if got := judge.ServerAspect(ev); got != "MariaDB 10.11, MySQL 9.7" {
		t.Errorf("serverAspect = %q", got)
	}
	if got := judge.ServerAspect(nil); got != "" {
		t.Errorf("serverAspect(nil) = %q", got)
	}
}

// A matrix run with --allow-mixed records it in matrix.json: a report made
// later from the directory, without the flag, compares its servers too,
// labelled; the same matrix without the record is refused.
func TestMatrixRecordsAllowMixed(t *testing.T) {
	for _, allowed := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "m")
		copyDir(t, matrixDir, dir)
		setServers(t, filepath.Join(dir, "cells", "04-rocksdb-r2"), map[string]string{"master": "MySQL 9.7.4", "slave1": "MySQL 9.7.4", "slave2": "MySQL 9.7.4"})
		var doc map[string]any
		raw, err := os.ReadFile(filepath.Join(dir, load.FileMatrix))
		if err != nil || json.Unmarshal(raw, &doc) != nil {
			t.Fatal(err)
		}
		doc["allow_mixed"] = allowed
		raw, _ = json.Marshal(doc)
		if err := os.WriteFile(filepath.Join(dir, load.FileMatrix), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := judge.Build(mustLoad(t, dir), analyse.Options{})
		switch {
		case allowed && err != nil:
			t.Errorf("allow_mixed recorded: %v", err)
		case allowed && !strings.Contains(strings.Join(render.TableAnswer(rep.Tables[0]), "\n"), "NOT COMPARABLE, compared as asked (--allow-mixed): server: MariaDB 10.11"):
			t.Errorf("allow_mixed recorded: answer %q does not label the mixed servers", render.TableAnswer(rep.Tables[0]))
		case !allowed && (err == nil || !strings.Contains(err.Error(), "--allow-mixed")):
			t.Errorf("no allow_mixed: err = %v, want the refusal", err)
		}
	}
}
