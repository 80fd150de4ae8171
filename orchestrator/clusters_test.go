package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/orch-bench/orch/topology"
)

// TestOnClusters: one cluster prints as is; several print whole lines,
// each prefixed with its cluster, and their failures come back together,
// each naming its cluster, bad input still bad input.
func TestOnClusters(t *testing.T) {
	invs := []*topology.Inventory{{Name: "east"}, {Name: "west"}}
	var out, errOut bytes.Buffer
	err := OnClusters(context.Background(), invs[:1], &out, &errOut, func(_ context.Context, inv *topology.Inventory, o, e io.Writer) error {
		fmt.Fprint(o, "alone\n")
		return nil
	})
	if err != nil || out.String() != "alone\n" {
		t.Fatalf("one cluster: %q, %v", out.String(), err)
	}
	out.Reset()
	err = OnClusters(context.Background(), invs, &out, &errOut, func(_ context.Context, inv *topology.Inventory, o, e io.Writer) error {
		// A line written in pieces, and a last line without its newline.
		for i := 0; i < 50; i++ {
			fmt.Fprint(o, "line ")
			fmt.Fprintf(o, "%d of %s\n", i, inv.Name)
		}
		fmt.Fprint(e, "no newline from "+inv.Name)
		if inv.Name == "west" {
			return BadInput(errors.New("--knob: bad"))
		}
		return errors.New("ssh refused")
	})
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 100 {
		t.Fatalf("%d lines, want 100:\n%s", len(lines), out.String())
	}
	for _, l := range lines {
		name, rest, _ := strings.Cut(l, ": ")
		if !strings.HasPrefix(rest, "line ") || !strings.HasSuffix(rest, " of "+name) {
			t.Errorf("line %q: not whole, or under another cluster's name", l)
		}
	}
	for _, want := range []string{"east: no newline from east\n", "west: no newline from west\n"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q: %q", want, errOut.String())
		}
	}
	if err == nil || !strings.Contains(err.Error(), "cluster east: ssh refused") || !strings.Contains(err.Error(), "cluster west: --knob: bad") {
		t.Errorf("error %v: want both clusters named", err)
	}
	if !IsBadInput(err) {
		t.Errorf("bad input of one cluster lost in the aggregate: %v", err)
	}
}

// TestOnClustersJSON: with --json over several clusters the output is one
// JSON document, each cluster's under its name (null for one that failed
// before printing), its failure still returned; one cluster prints its
// own document as is.
func TestOnClustersJSON(t *testing.T) {
	invs := []*topology.Inventory{{Name: "east"}, {Name: "west"}, {Name: "north"}}
	var out, errOut bytes.Buffer
	err := OnClustersJSON(context.Background(), invs, &out, &errOut, func(_ context.Context, inv *topology.Inventory, o, e io.Writer) error {
		fmt.Fprintf(e, "progress of %s\n", inv.Name)
		if inv.Name == "north" {
			return errors.New("ssh refused")
		}
		fmt.Fprintf(o, "{\n  \"hosts\": [\"%s-master\"]\n}\n", inv.Name)
		return nil
	})
	var doc map[string]*struct{ Hosts []string }
	if jerr := json.Unmarshal(out.Bytes(), &doc); jerr != nil {
		t.Fatalf("not one JSON document: %v\n%s", jerr, out.String())
	}
	if len(doc) != 3 || doc["east"].Hosts[0] != "east-master" || doc["west"].Hosts[0] != "west-master" || doc["north"] != nil {
		t.Errorf("documents by cluster: %s", out.String())
	}
	if err == nil || !strings.Contains(err.Error(), "cluster north: ssh refused") || !strings.Contains(errOut.String(), "west: progress of west\n") {
		t.Errorf("error %v, stderr %q", err, errOut.String())
	}
	out.Reset()
	if err := OnClustersJSON(context.Background(), invs[:1], &out, &errOut, func(_ context.Context, inv *topology.Inventory, o, e io.Writer) error {
		_, err := fmt.Fprint(o, "{\"alone\": true}\n")
		return err
	}); err != nil || out.String() != "{\"alone\": true}\n" {
		t.Errorf("one cluster: %q, %v", out.String(), err)
	}
}

// TestValidateClusters names the cluster only when there are several.
func TestValidateClusters(t *testing.T) {
	bad := &topology.Inventory{Name: "lab2"} // no hosts at all
	if err := ValidateClusters([]*topology.Inventory{bad}); err == nil || !IsBadInput(err) || strings.Contains(err.Error(), "lab2") {
		t.Errorf("one cluster: %v", err)
	}
	err := ValidateClusters([]*topology.Inventory{bad, {Name: "lab1"}})
	if err == nil || !IsBadInput(err) || !strings.HasPrefix(err.Error(), "cluster lab2: ") {
		t.Errorf("two clusters: %v", err)
	}
}
