package fakemaria

import (
	"hash/crc32"
	"regexp"
	"strconv"
	"strings"
)

// The server's catalog as a DBA sees it: which schemas and tables exist,
// which accounts mysql.user holds, and two-column tables that take
// INSERT IGNORE, SELECT and DELETE. Enough of MariaDB's dialect for a
// client that looks before it writes.

type catalog struct {
	schemas map[string]bool
	tables  map[string][][2]string // schema.table: its rows
}

var (
	reSchemata  = regexp.MustCompile(`^SELECT SCHEMA_NAME FROM information_schema\.SCHEMATA WHERE SCHEMA_NAME IN \((.*)\)$`)
	reTablesIn  = regexp.MustCompile(`^SELECT CONCAT\(TABLE_SCHEMA, '\.', TABLE_NAME\) FROM information_schema\.TABLES WHERE TABLE_SCHEMA IN \((.*)\)$`)
	reUsersIn   = regexp.MustCompile(`^SELECT CONCAT\(User, '@', Host\) FROM mysql\.user WHERE CONCAT\(User, '@', Host\) IN \((.*)\)$`)
	reNewSchema = regexp.MustCompile("^CREATE DATABASE IF NOT EXISTS `([^`]+)`$")
	reNewTable  = regexp.MustCompile("^CREATE TABLE IF NOT EXISTS `([^`]+)`\\.`([^`]+)` \\(")
	reInsert    = regexp.MustCompile("^INSERT IGNORE INTO `([^`]+)`\\.`([^`]+)` \\(\\w+, \\w+\\) VALUES (.*)$")
	reSelect2   = regexp.MustCompile("^SELECT \\w+, \\w+ FROM `([^`]+)`\\.`([^`]+)`$")
	reDelete    = regexp.MustCompile("^DELETE FROM `([^`]+)`\\.`([^`]+)` WHERE (.*)$")
	reDropDB    = regexp.MustCompile("^DROP DATABASE IF EXISTS `([^`]+)`$")
	reDropTable = regexp.MustCompile("^DROP TABLE IF EXISTS `([^`]+)`\\.`([^`]+)`$")
	reChecksum  = regexp.MustCompile("^CHECKSUM TABLE `([^`]+)`\\.`([^`]+)`$")
	reCount     = regexp.MustCompile("^SELECT COUNT\\(\\*\\) FROM `([^`]+)`\\.`([^`]+)`$")
)

// catalogStatement runs q if it is one of the catalog's; ok is false if not.
func (d *DB) catalogStatement(q string, binlog bool) (t table, ok bool) {
	c := &d.cat
	if c.schemas == nil {
		c.schemas, c.tables = map[string]bool{}, map[string][][2]string{}
	}
	if d.canary {
		c.schemas["orch"] = true
		if _, ok := c.tables["orch.canary"]; !ok {
			c.tables["orch.canary"] = nil
		}
	}
	one := func(vals []string) table {
		t := table{Cols: []string{"v"}}
		for _, v := range vals {
			t.Rows = append(t.Rows, []any{v})
		}
		return t
	}
	switch {
	case reSchemata.MatchString(q):
		var out []string
		for _, s := range quotedList(reSchemata.FindStringSubmatch(q)[1]) {
			if c.schemas[s] {
				out = append(out, s)
			}
		}
		return one(out), true
	case reTablesIn.MatchString(q):
		var out []string
		for _, s := range quotedList(reTablesIn.FindStringSubmatch(q)[1]) {
			for name := range c.tables {
				if strings.HasPrefix(name, s+".") {
					out = append(out, name)
				}
			}
		}
		return one(out), true
	case reUsersIn.MatchString(q):
		var out []string
		for _, a := range quotedList(reUsersIn.FindStringSubmatch(q)[1]) {
			if d.users[a] {
				out = append(out, a)
			}
		}
		return one(out), true
	case reNewSchema.MatchString(q):
		c.schemas[reNewSchema.FindStringSubmatch(q)[1]] = true
	case reNewTable.MatchString(q):
		m := reNewTable.FindStringSubmatch(q)
		if _, ok := c.tables[m[1]+"."+m[2]]; !ok {
			c.tables[m[1]+"."+m[2]] = nil
		}
	case reInsert.MatchString(q):
		m := reInsert.FindStringSubmatch(q)
		name, vals := m[1]+"."+m[2], quotedList(m[3])
		for i := 0; i+1 < len(vals); i += 2 {
			r := [2]string{vals[i], vals[i+1]}
			if !hasRow(c.tables[name], r) {
				c.tables[name] = append(c.tables[name], r)
			}
		}
	case reChecksum.MatchString(q):
		// As MariaDB answers: the table's name and a checksum of its rows
		// (0 when empty), NULL for a table that does not exist.
		m := reChecksum.FindStringSubmatch(q)
		rows, ok := c.tables[m[1]+"."+m[2]]
		t := table{Cols: []string{"Table", "Checksum"}, Rows: [][]any{{m[1] + "." + m[2], nil}}}
		if ok {
			t.Rows[0][1] = strconv.FormatUint(uint64(checksum(rows)), 10)
		}
		return t, true
	case reCount.MatchString(q):
		m := reCount.FindStringSubmatch(q)
		rows, ok := c.tables[m[1]+"."+m[2]]
		if !ok {
			return table{}, false // the caller reports the statement, as a missing table fails
		}
		return table{Cols: []string{"COUNT(*)"}, Rows: [][]any{{strconv.Itoa(len(rows))}}}, true
	case reSelect2.MatchString(q):
		m := reSelect2.FindStringSubmatch(q)
		t := table{Cols: []string{"a", "b"}}
		for _, r := range c.tables[m[1]+"."+m[2]] {
			t.Rows = append(t.Rows, []any{r[0], r[1]})
		}
		return t, true
	case reDelete.MatchString(q):
		m := reDelete.FindStringSubmatch(q)
		name, vals := m[1]+"."+m[2], quotedList(m[3])
		var keep [][2]string
		for _, r := range c.tables[name] {
			gone := false
			for i := 0; i+1 < len(vals); i += 2 {
				gone = gone || r == [2]string{vals[i], vals[i+1]}
			}
			if !gone {
				keep = append(keep, r)
			}
		}
		c.tables[name] = keep
	case reDropDB.MatchString(q):
		s := reDropDB.FindStringSubmatch(q)[1]
		delete(c.schemas, s)
		for name := range c.tables {
			if strings.HasPrefix(name, s+".") {
				delete(c.tables, name)
			}
		}
		if s == "orch" {
			d.canary = false
		}
	case reDropTable.MatchString(q):
		m := reDropTable.FindStringSubmatch(q)
		delete(c.tables, m[1]+"."+m[2])
	default:
		return table{}, false
	}
	d.write(binlog)
	return table{}, true
}

// checksum is a checksum of rows that does not depend on their order, as
// a table's live checksum does not.
func checksum(rows [][2]string) uint32 {
	var sum uint32
	for _, r := range rows {
		sum += crc32.ChecksumIEEE([]byte(r[0] + "\x00" + r[1]))
	}
	return sum
}

func hasRow(rows [][2]string, r [2]string) bool {
	for _, x := range rows {
		if x == r {
			return true
		}
	}
	return false
}
