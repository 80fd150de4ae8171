package server

import (
	"math/big"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// Values are compared the way the server reads them, so that a config
// saying 128M and SHOW VARIABLES saying 134217728 agree, as do ON, 1 and
// TRUE, and ROCKSDB and RocksDB.

var (
	sizeRE    = regexp.MustCompile(`^(\d+)([kmgtpe])$`)
	integerRE = regexp.MustCompile(`^-?\d+$`)
	decimalRE = regexp.MustCompile(`^-?\d+\.\d+$`)
)

// sizeShift is the power of two each option-file suffix stands for.
var sizeShift = map[byte]uint{'k': 10, 'm': 20, 'g': 30, 't': 40, 'p': 50, 'e': 60}

// normValue reduces a value to a canonical spelling: lower case, sizes in
// bytes, decimals without trailing zeros, booleans as on/off, no spaces
// around list commas.
func normValue(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	if m := sizeRE.FindStringSubmatch(v); m != nil {
		n, ok := new(big.Int).SetString(m[1], 10)
		if ok {
			v = n.Lsh(n, sizeShift[m[2][0]]).String()
		}
	}
	if decimalRE.MatchString(v) {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			v = strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	switch v {
	case "on", "true", "yes", "1":
		return "on"
	case "off", "false", "no", "0":
		return "off"
	}
	if strings.Contains(v, ",") {
		parts := strings.Split(v, ",")
		for i, p := range parts {
			parts[i] = strings.TrimSpace(p)
		}
		v = strings.Join(parts, ",")
	}
	return v
}

// sameValue reports whether the server's value actual is what the config
// value intended says. A relative file name (relay-bin) matches the path
// the server reports for it (/var/lib/mysql/relay-bin).
func sameValue(intended, actual string) bool {
	if normValue(intended) == normValue(actual) {
		return true
	}
	if intended != "" && !strings.Contains(intended, "/") && strings.Contains(actual, "/") {
		return normValue(path.Base(actual)) == normValue(intended)
	}
	return false
}

// shownValue is what SHOW VARIABLES reports for an option written as
// name = value: log_bin = BASENAME turns binary logging ON, and a bare
// boolean option means ON.
func shownValue(name, value string, bare bool) string {
	if name == "log_bin" || bare {
		return "ON"
	}
	return value
}

// sqlLiteral spells value for SET GLOBAL. SET accepts no size suffixes, so
// a size given to a numeric variable becomes its byte count; booleans are
// keywords; anything else is a string literal. current is the variable's
// value now, which says whether it is numeric.
func sqlLiteral(value, current string) string {
	v := strings.TrimSpace(value)
	numericVar := integerRE.MatchString(strings.TrimSpace(current)) || decimalRE.MatchString(strings.TrimSpace(current))
	if numericVar {
		if m := sizeRE.FindStringSubmatch(strings.ToLower(v)); m != nil {
			return normValue(v)
		}
	}
	if integerRE.MatchString(v) || decimalRE.MatchString(v) {
		return v
	}
	switch strings.ToUpper(v) {
	case "ON", "OFF", "TRUE", "FALSE":
		return strings.ToUpper(v)
	}
	return flavor.QuoteString(v)
}
