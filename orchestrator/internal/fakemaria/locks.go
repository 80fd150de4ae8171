package fakemaria

import (
	"regexp"
	"strconv"
	"strings"
)

// User-level locks as the MariaDB manual describes GET_LOCK and its
// siblings: a named lock belongs to one connection; GET_LOCK(name, timeout)
// returns 1 when the connection gets it (or already holds it) and 0 when
// another connection still holds it after timeout seconds (this simulation
// never waits); IS_USED_LOCK returns the holder's connection id or NULL;
// RELEASE_LOCK returns 1 when this connection held it, 0 when another
// does, NULL when nobody does; and a connection's end releases its locks.
var reUserLock = regexp.MustCompile(`^(?:SELECT|DO) (GET_LOCK|IS_USED_LOCK|RELEASE_LOCK)\('((?:[^'\\]|'')*)'(?:, \d+)?\)$`)

// PROCESSLIST as far as orch asks it: one connection by id.
var reProcessByID = regexp.MustCompile(`^SELECT USER, HOST, TIME FROM information_schema\.PROCESSLIST WHERE ID = (\d+)$`)

// userLock answers a user-lock or PROCESSLIST statement, ok false when q
// is neither.
func (c *session) userLock(q string) (table, bool) {
	d := c.db
	d.mu.Lock()
	defer d.mu.Unlock()
	if m := reProcessByID.FindStringSubmatch(q); m != nil {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		cols := []string{"USER", "HOST", "TIME"}
		if _, open := d.conns[id]; !open {
			return table{Cols: cols}, true
		}
		return row(cols, "orch", "localhost", "0"), true
	}
	m := reUserLock.FindStringSubmatch(q)
	if m == nil {
		return table{}, false
	}
	d.sql = append(d.sql, q)
	fn, name := m[1], strings.ReplaceAll(m[2], "''", "'")
	holder, held := d.locks[name]
	col := []string{fn + "('" + m[2] + "')"}
	switch {
	case fn == "IS_USED_LOCK" && held:
		return row(col, strconv.FormatInt(holder.id, 10)), true
	case fn == "IS_USED_LOCK":
		return row(col, nil), true
	case fn == "GET_LOCK" && held && holder != c:
		return row(col, "0"), true
	case fn == "GET_LOCK":
		d.locks[name] = c
		return row(col, "1"), true
	case !held: // RELEASE_LOCK
		return row(col, nil), true
	case holder != c:
		return row(col, "0"), true
	default:
		delete(d.locks, name)
		return row(col, "1"), true
	}
}

// opened gives a new connection its id.
func (d *DB) opened(c *session) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lastConn++
	c.id = d.lastConn
	d.conns[c.id] = c
}

// Close ends the connection, releasing its locks.
func (c *session) Close() error {
	d := c.db
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.conns, c.id)
	for name, holder := range d.locks {
		if holder == c {
			delete(d.locks, name)
		}
	}
	return nil
}

// HeldLocks counts the user-level locks connections hold now.
func (d *DB) HeldLocks() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.locks)
}
