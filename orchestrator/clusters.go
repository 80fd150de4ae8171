package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/orch-bench/orch/topology"
)

// ClusterFunc is a command's work on one cluster, writing to out and errOut.
type ClusterFunc func(ctx context.Context, inv *topology.Inventory, out, errOut io.Writer) error

// OnClusters runs fn on every cluster at once. With one cluster it is a
// plain call; with several, every line fn prints is prefixed with its
// cluster's name (lines of different clusters interleave, never a line
// itself) and the clusters' failures are aggregated, each naming its
// cluster. Whether it is bad input (IsBadInput) survives the aggregation.
func OnClusters(ctx context.Context, invs []*topology.Inventory, out, errOut io.Writer, fn ClusterFunc) error {
	if len(invs) == 1 {
		return fn(ctx, invs[0], out, errOut)
	}
	so, se := &SyncWriter{W: out}, &SyncWriter{W: errOut}
	errs := ForEach(ctx, len(invs), invs, func(ctx context.Context, _ int, inv *topology.Inventory) error {
		o := &PrefixWriter{Out: so, Prefix: inv.Name + ": "}
		e := &PrefixWriter{Out: se, Prefix: inv.Name + ": "}
		err := fn(ctx, inv, o, e)
		o.Flush()
		e.Flush()
		if err != nil {
			return &clusterError{cluster: inv.Name, err: err}
		}
		return nil
	})
	return Aggregate(errs)
}

// OnClustersJSON is OnClusters for a command whose output is one JSON
// document per cluster (--json): with several clusters the documents make
// one JSON object keyed by cluster name, rather than lines each prefixed
// with its cluster's name, which no JSON reader takes. A cluster that
// printed nothing (it failed first) is null; what the clusters print on
// errOut is prefixed as with OnClusters.
func OnClustersJSON(ctx context.Context, invs []*topology.Inventory, out, errOut io.Writer, fn ClusterFunc) error {
	if len(invs) == 1 {
		return fn(ctx, invs[0], out, errOut)
	}
	docs := make(map[string]*bytes.Buffer, len(invs))
	for _, inv := range invs {
		docs[inv.Name] = &bytes.Buffer{}
	}
	err := OnClusters(ctx, invs, io.Discard, errOut, func(ctx context.Context, inv *topology.Inventory, _, errOut io.Writer) error {
		return fn(ctx, inv, docs[inv.Name], errOut)
	})
	all := make(map[string]json.RawMessage, len(docs))
	for name, b := range docs {
		all[name] = json.RawMessage("null")
		if doc := bytes.TrimSpace(b.Bytes()); len(doc) > 0 {
			if !json.Valid(doc) {
				return Aggregate([]error{err, fmt.Errorf("cluster %s: printed no single JSON document", name)})
			}
			all[name] = doc
		}
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	if werr := enc.Encode(all); werr != nil {
		return Aggregate([]error{err, werr})
	}
	return err
}

// clusterError names the cluster a failure happened on.
type clusterError struct {
	cluster string
	err     error
}

func (e *clusterError) Error() string { return "cluster " + e.cluster + ": " + e.err.Error() }
func (e *clusterError) Unwrap() error { return e.err }

// ValidateClusters checks every cluster's shape before any host is
// contacted (bad input); with several, the message names the cluster.
func ValidateClusters(invs []*topology.Inventory) error {
	for _, inv := range invs {
		if err := inv.ValidateCluster(); err != nil {
			if len(invs) > 1 {
				return BadInput(fmt.Errorf("cluster %s: %w", inv.Name, err))
			}
			return BadInput(err)
		}
	}
	return nil
}

// SyncWriter serialises whole lines from many hosts onto one writer.
type SyncWriter struct {
	mu sync.Mutex
	W  io.Writer
}

func (s *SyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.W.Write(p)
}

// PrefixWriter writes complete lines, each prefixed, so output from hosts
// or clusters running at once never interleaves within a line.
type PrefixWriter struct {
	Out    io.Writer
	Prefix string
	buf    bytes.Buffer
}

func (p *PrefixWriter) Write(b []byte) (int, error) {
	p.buf.Write(b)
	for {
		i := bytes.IndexByte(p.buf.Bytes(), '\n')
		if i < 0 {
			return len(b), nil
		}
		line := p.buf.Next(i + 1)
		if _, err := p.Out.Write(append([]byte(p.Prefix), line...)); err != nil {
			return len(b), err
		}
	}
}

// Flush writes a last line that had no newline.
func (p *PrefixWriter) Flush() {
	if p.buf.Len() > 0 {
		p.Out.Write(append([]byte(p.Prefix), append(p.buf.Bytes(), '\n')...))
		p.buf.Reset()
	}
}
