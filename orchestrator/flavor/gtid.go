package flavor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// GTIDGap counts the transactions in the master's GTID position that the
// slave's position lacks: replication lag in transactions. It is the lag to
// trust, because Seconds_Behind_Master reads 0 on a slave whose link is
// down. Positions are what srv's MasterGTIDQuery and SlaveGTIDQuery return:
// MariaDB domain-server-seq lists or MySQL uuid[:tag]:ranges sets.
func (srv Server) GTIDGap(master, slave string) (int64, error) {
	m, err := parseGTID(srv, master)
	if err != nil {
		return 0, fmt.Errorf("master GTID position: %w", err)
	}
	s, err := parseGTID(srv, slave)
	if err != nil {
		return 0, fmt.Errorf("slave GTID position: %w", err)
	}
	var gap uint64
	for key, spans := range m {
		gap += missing(spans, s[key])
	}
	return int64(gap), nil
}

// GTIDCount is how many transactions a position covers. Its per-second
// delta is the master's binlog commit rate (a slave's apply rate), and a
// frozen count is one sign of a stalled master.
func (srv Server) GTIDCount(pos string) (uint64, error) {
	g, err := parseGTID(srv, pos)
	if err != nil {
		return 0, err
	}
	var n uint64
	for _, spans := range g {
		for _, sp := range spans {
			n += sp.hi - sp.lo + 1
		}
	}
	return n, nil
}

// span is a closed range of transaction numbers.
type span struct{ lo, hi uint64 }

// gtidSet maps a GTID source (a MariaDB domain, a MySQL uuid[:tag]) to its
// sorted, disjoint spans. A MariaDB position "d-s-n" becomes span 1..n of
// domain d: sequence numbers grow by one per transaction within a domain,
// so both flavours count the same way.
type gtidSet map[string][]span

func parseGTID(srv Server, pos string) (gtidSet, error) {
	if srv.UsesMariaDBGTID() {
		return parseMariaDBGTID(pos)
	}
	return parseMySQLGTID(pos)
}

func parseMariaDBGTID(pos string) (gtidSet, error) {
	set := gtidSet{}
	for _, g := range strings.Split(pos, ",") {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		domain, rest, ok1 := strings.Cut(g, "-")
		_, seqText, ok2 := strings.Cut(rest, "-")
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("GTID %q: want domain-server-sequence", g)
		}
		if _, err := strconv.ParseUint(domain, 10, 32); err != nil {
			return nil, fmt.Errorf("GTID %q: domain: %w", g, err)
		}
		seq, err := strconv.ParseUint(seqText, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("GTID %q: sequence: %w", g, err)
		}
		// gtid_binlog_pos lists one entry per server that wrote in a
		// domain; the highest sequence is the domain's position.
		if seq > 0 && (len(set[domain]) == 0 || seq > set[domain][0].hi) {
			set[domain] = []span{{1, seq}}
		}
	}
	return set, nil
}

func parseMySQLGTID(pos string) (gtidSet, error) {
	set := gtidSet{}
	// The server prints long sets with a newline after each comma.
	pos = strings.Join(strings.Fields(pos), "")
	for _, elem := range strings.Split(pos, ",") {
		if elem == "" {
			continue
		}
		parts := strings.Split(elem, ":")
		if len(parts) < 2 || parts[0] == "" {
			return nil, fmt.Errorf("GTID set element %q: want uuid:ranges", elem)
		}
		key := strings.ToLower(parts[0])
		for _, p := range parts[1:] {
			if p == "" {
				return nil, fmt.Errorf("GTID set element %q: empty range", elem)
			}
			if p[0] < '0' || p[0] > '9' {
				// A tag (MySQL 8.3+) names the ranges that follow it.
				key = strings.ToLower(parts[0]) + ":" + strings.ToLower(p)
				continue
			}
			sp, err := parseSpan(p)
			if err != nil {
				return nil, fmt.Errorf("GTID set element %q: %w", elem, err)
			}
			set[key] = append(set[key], sp)
		}
	}
	for k, spans := range set {
		set[k] = normalise(spans)
	}
	return set, nil
}

func parseSpan(s string) (span, error) {
	loText, hiText, isRange := strings.Cut(s, "-")
	lo, err := strconv.ParseUint(loText, 10, 64)
	if err != nil {
		return span{}, err
	}
	hi := lo
	if isRange {
		if hi, err = strconv.ParseUint(hiText, 10, 64); err != nil {
			return span{}, err
		}
	}
	if hi < lo {
		return span{}, fmt.Errorf("range %q ends before it starts", s)
	}
	return span{lo, hi}, nil
}

// normalise sorts spans and merges those that overlap or touch.
func normalise(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	out := spans[:0]
	for _, sp := range spans {
		if n := len(out); n > 0 && sp.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, sp.hi)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// missing counts the numbers in want that have does not contain; both are
// sorted and disjoint, so one forward sweep does.
func missing(want, have []span) uint64 {
	var n uint64
	j := 0
	for _, w := range want {
		n += w.hi - w.lo + 1
		for j < len(have) && have[j].hi < w.lo {
			j++
		}
		for k := j; k < len(have) && have[k].lo <= w.hi; k++ {
			n -= min(w.hi, have[k].hi) - max(w.lo, have[k].lo) + 1
		}
	}
	return n
}

// RecordedGTIDGap is GTIDGap for positions read back from a run directory
// by a reader that does not know the servers' flavour: a MariaDB position
// (domain-server-sequence) never holds a colon, a MySQL set always does.
func RecordedGTIDGap(master, slave string) (int64, error) {
	return recordedFlavor(master+slave).GTIDGap(master, slave)
}

// RecordedGTIDCount is GTIDCount for a recorded position (RecordedGTIDGap).
func RecordedGTIDCount(pos string) (uint64, error) { return recordedFlavor(pos).GTIDCount(pos) }

// recordedFlavor is a server whose GTID style is the one pos is written in.
func recordedFlavor(pos string) Server {
	if strings.Contains(pos, ":") {
		return Server{Flavor: MySQL}
	}
	return Server{Flavor: MariaDB}
}
