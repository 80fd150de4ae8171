package fakemaria

import (
	"hash/crc32"
	"regexp"
	"strconv"
	"strings"
)

// The server's catalog as a DBA sees it: which schemas and tables exist,
// which accounts mysql.user holds, and tables keyed by their first two
// columns that take INSERT IGNORE, SELECT and DELETE (and one optional
// CHAR column, added by CREATE TABLE or ALTER TABLE ... ADD COLUMN, which
// information_schema.COLUMNS lists). Enough of MariaDB's dialect for a
// client that looks before it writes.

type catalog struct {
	schemas map[string]bool
	tables  map[string][][]string // schema.table: its rows
	extra   map[string]string     // schema.table: its third column's name
}

var (
	reSchemata  = regexp.MustCompile(`^SELECT SCHEMA_NAME FROM information_schema\.SCHEMATA WHERE SCHEMA_NAME IN \((.*)\)$`)
	reTablesIn  = regexp.MustCompile(`^SELECT CONCAT\(TABLE_SCHEMA, '\.', TABLE_NAME\) FROM information_schema\.TABLES WHERE TABLE_SCHEMA IN \((.*)\)$`)
	reUsersIn   = regexp.MustCompile(`^SELECT CONCAT\(User, '@', Host\) FROM mysql\.user WHERE CONCAT\(User, '@', Host\) IN \((.*)\)$`)
	reNewSchema = regexp.MustCompile("^CREATE DATABASE IF NOT EXISTS `([^`]+)`$")
	reNewTable  = regexp.MustCompile("^CREATE TABLE IF NOT EXISTS `([^`]+)`\\.`([^`]+)` \\(")
	reInsert    = regexp.MustCompile("^INSERT IGNORE INTO `([^`]+)`\\.`([^`]+)` \\(([\\w, ]+)\\) VALUES (.*)$")
	reSelect2   = regexp.MustCompile("^SELECT ([\\w, ]+) FROM `([^`]+)`\\.`([^`]+)`$")
	reColumn    = regexp.MustCompile(`^SELECT COLUMN_NAME FROM information_schema\.COLUMNS WHERE TABLE_SCHEMA = '([^']+)' AND TABLE_NAME = '([^']+)' AND COLUMN_NAME = '([^']+)'$`)
	reAddColumn = regexp.MustCompile("^ALTER TABLE `([^`]+)`\\.`([^`]+)` ADD COLUMN (\\w+) ")
	reExtraCol  = regexp.MustCompile(`, (\w+) CHAR\(\d+\)`)
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
		c.schemas, c.tables, c.extra = map[string]bool{}, map[string][][]string{}, map[string]string{}
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
			if x := reExtraCol.FindStringSubmatch(q); x != nil {
				c.extra[m[1]+"."+m[2]] = x[1]
			}
		}
	case reAddColumn.MatchString(q):
		m := reAddColumn.FindStringSubmatch(q)
		c.extra[m[1]+"."+m[2]] = m[3]
	case reColumn.MatchString(q):
		m := reColumn.FindStringSubmatch(q)
		var out []string
		if c.extra[m[1]+"."+m[2]] == m[3] {
			out = append(out, m[3])
		}
		return one(out), true
	case reInsert.MatchString(q):
		m := reInsert.FindStringSubmatch(q)
		name, vals := m[1]+"."+m[2], quotedList(m[4])
		n := len(strings.Split(m[3], ","))
		for i := 0; i+n <= len(vals); i += n {
			r := append([]string(nil), vals[i:i+n]...)
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
		cols := strings.Split(m[1], ", ")
		t := table{Cols: cols}
		for _, r := range c.tables[m[2]+"."+m[3]] {
			row := make([]any, len(cols))
			for i := range cols {
				row[i] = ""
				if i < len(r) {
					row[i] = r[i]
				}
			}
			t.Rows = append(t.Rows, row)
		}
		return t, true
	case reDelete.MatchString(q):
		m := reDelete.FindStringSubmatch(q)
		name, vals := m[1]+"."+m[2], quotedList(m[3])
		var keep [][]string
		for _, r := range c.tables[name] {
			gone := false
			for i := 0; i+1 < len(vals); i += 2 {
				gone = gone || len(r) >= 2 && r[0] == vals[i] && r[1] == vals[i+1]
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
func checksum(rows [][]string) uint32 {
	var sum uint32
	for _, r := range rows {
		sum += crc32.ChecksumIEEE([]byte(strings.Join(r, "\x00")))
	}
	return sum
}

// hasRow reports whether rows hold r's key (its first two columns): INSERT
// IGNORE keeps the row already there.
func hasRow(rows [][]string, r []string) bool {
	for _, x := range rows {
		if len(x) >= 2 && len(r) >= 2 && x[0] == r[0] && x[1] == r[1] {
			return true
		}
	}
	return false
}
