package replication

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// gtidBehind counts the transactions in master's GTID state that slave has
// not applied: the lag that Seconds_Behind_Master cannot show (it read 0 on
// a slave cut off 30k transactions behind). MariaDB positions are
// domain-server-seq lists; MySQL's are uuid[:tag]:ranges sets.
func gtidBehind(master, slave string, mariadb bool) (int64, error) {
	if mariadb {
		return mariadbBehind(master, slave)
	}
	return mysqlBehind(master, slave)
}

// mariadbPos maps each replication domain to its last sequence number.
func mariadbPos(pos string) (map[uint64]uint64, error) {
	out := map[uint64]uint64{}
	for _, g := range strings.Split(pos, ",") {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		parts := strings.Split(g, "-")
		if len(parts) != 3 {
			return nil, fmt.Errorf("GTID %q: want domain-server-sequence", g)
		}
		var n [3]uint64
		for i, p := range parts {
			v, err := strconv.ParseUint(p, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("GTID %q: %w", g, err)
			}
			n[i] = v
		}
		if n[2] > out[n[0]] {
			out[n[0]] = n[2]
		}
	}
	return out, nil
}

func mariadbBehind(master, slave string) (int64, error) {
	m, err := mariadbPos(master)
	if err != nil {
		return 0, fmt.Errorf("master position: %w", err)
	}
	s, err := mariadbPos(slave)
	if err != nil {
		return 0, fmt.Errorf("slave position: %w", err)
	}
	var behind int64
	for dom, seq := range m {
		// Sequence numbers grow by one per transaction within a domain.
		if seq > s[dom] {
			behind += int64(seq - s[dom])
		}
	}
	return behind, nil
}

// interval is a closed range of transaction numbers.
type interval struct{ lo, hi uint64 }

// mysqlSet maps "uuid" or "uuid:tag" to its sorted, merged intervals.
func mysqlSet(set string) (map[string][]interval, error) {
	out := map[string][]interval{}
	set = strings.Join(strings.Fields(set), "")
	for _, part := range strings.Split(set, ",") {
		if part == "" {
			continue
		}
		fields := strings.Split(part, ":")
		if len(fields) < 2 {
			return nil, fmt.Errorf("GTID set element %q: want uuid:ranges", part)
		}
		uuid := strings.ToLower(fields[0])
		key := uuid
		for _, f := range fields[1:] {
			lo, hi, isRange, err := parseRange(f)
			if err != nil {
				return nil, fmt.Errorf("GTID set element %q: %w", part, err)
			}
			if !isRange { // a tag (MySQL 8.3+) names the ranges after it
				key = uuid + ":" + strings.ToLower(f)
				continue
			}
			out[key] = append(out[key], interval{lo, hi})
		}
	}
	for k, ivs := range out {
		out[k] = merge(ivs)
	}
	return out, nil
}

// parseRange reads "N" or "N-M"; anything not starting with a digit is a tag.
func parseRange(f string) (lo, hi uint64, isRange bool, err error) {
	if f == "" || f[0] < '0' || f[0] > '9' {
		return 0, 0, false, nil
	}
	a, b, hasHi := strings.Cut(f, "-")
	if lo, err = strconv.ParseUint(a, 10, 64); err != nil {
		return 0, 0, true, err
	}
	hi = lo
	if hasHi {
		if hi, err = strconv.ParseUint(b, 10, 64); err != nil {
			return 0, 0, true, err
		}
	}
	if hi < lo {
		return 0, 0, true, fmt.Errorf("range %q ends before it starts", f)
	}
	return lo, hi, true, nil
}

func merge(ivs []interval) []interval {
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].lo < ivs[j].lo })
	var out []interval
	for _, iv := range ivs {
		if n := len(out); n > 0 && iv.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, iv.hi)
			continue
		}
		out = append(out, iv)
	}
	return out
}

func mysqlBehind(master, slave string) (int64, error) {
	m, err := mysqlSet(master)
	if err != nil {
		return 0, fmt.Errorf("master GTID set: %w", err)
	}
	s, err := mysqlSet(slave)
	if err != nil {
		return 0, fmt.Errorf("slave GTID set: %w", err)
	}
	var behind int64
	for key, ivs := range m {
		for _, iv := range ivs {
			n := iv.hi - iv.lo + 1
			for _, have := range s[key] {
				lo, hi := max(iv.lo, have.lo), min(iv.hi, have.hi)
				if lo <= hi {
					n -= hi - lo + 1
				}
			}
			behind += int64(n)
		}
	}
	return behind, nil
}
