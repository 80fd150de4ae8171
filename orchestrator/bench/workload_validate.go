package bench

import (
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/topology"
)

var (
	nameRE     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	databaseRE = regexp.MustCompile(`^[A-Za-z0-9_$]{1,64}$`)
	engineRE   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)
	envNameRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	loadTypes  = []string{"mixed", "read", "write", "key", "update"}
)

// validate checks the whole workload. Errors point at the offending key
// when it came from the file.
func (w *Workload) validate() error {
	if !nameRE.MatchString(w.Name) {
		return w.fail("name", "%q is not a workload name (letters, digits, '.', '_', '-'; at most 64)", clip(w.Name))
	}
	if _, ok := Spec(w.Tool); !ok {
		if w.Tool == "" {
			return w.fail("tool", "missing; one of %s", kindList())
		}
		return w.fail("tool", "unknown tool %q (valid: %s)", clip(string(w.Tool)), kindList())
	}
	if err := w.validateFields(); err != nil {
		return err
	}
	if err := w.validateOptions(); err != nil {
		return err
	}
	return w.validateArgs()
}

func (w *Workload) validateFields() error {
	d := w.spec()
	switch {
	case d.Test && w.Test == "":
		return w.fail("test", "missing: the %s test to run (oltp_insert, a Lua path, ...)", w.Tool)
	case !d.Test && w.Test != "":
		return w.fail("test", "only for %s", toolsWhere(func(d *DriverSpec) bool { return d.Test }))
	case d.Tool == "" && w.Parser == "":
		return w.fail("parser", "missing: how to read the program's output (%s)", strings.Join(Formats(), ", "))
	case d.Tool != "" && w.Parser != "":
		return w.fail("parser", "only for %s: %s output has its own parser", toolsWhere(func(d *DriverSpec) bool { return d.Tool == "" }), w.Tool)
	case w.Parser != "" && !slices.Contains(Formats(), w.Parser):
		return w.fail("parser", "unknown parser %q (valid: %s)", clip(w.Parser), strings.Join(Formats(), ", "))
	case !w.spec().has(PhasePrepare) && w.Prepare:
		return w.fail("prepare", "%s has no prepare phase", w.Tool)
	case !w.spec().has(PhaseCleanup) && w.Cleanup:
		return w.fail("cleanup", "%s has no cleanup phase", w.Tool)
	case w.RunOn != "" && w.RunOn != topology.RoleLoadBox && w.RunOn != topology.RoleMaster:
		return w.fail("run_on", "%q is not loadbox or master", clip(string(w.RunOn)))
	case w.Database != "" && !databaseRE.MatchString(w.Database):
		return w.fail("database", "%q is not a plain schema name (letters, digits, '_', '$')", clip(w.Database))
	}
	for _, f := range []struct{ key, v string }{{"binary", w.Binary}, {"test", w.Test}, {"workdir", w.Workdir}} {
		if strings.HasPrefix(f.v, "-") || strings.ContainsAny(f.v, "\x00\n\r") {
			return w.fail(f.key, "%q cannot start with '-' or hold control characters", clip(f.v))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(w.Env)) {
		switch key := "env." + k; {
		case !envNameRE.MatchString(k):
			return w.fail(key, "not a variable name")
		case k == "MYSQL_PWD" || strings.HasPrefix(k, "ORCH_MYSQL_"):
			return w.fail(key, "set by orch from the inventory")
		case strings.ContainsRune(w.Env[k], 0):
			return w.fail(key, "value holds a NUL byte")
		}
	}
	return nil
}

func (w *Workload) validateOptions() error {
	o := &w.Options
	v := reflect.ValueOf(o).Elem()
	for i := range v.NumField() {
		f, sf := v.Field(i), v.Type().Field(i)
		if f.IsZero() {
			continue
		}
		key := "options." + yamlKey(sf)
		if !slices.Contains(strings.Split(sf.Tag.Get("tools"), ","), string(w.Tool)) {
			return w.fail(key, "does not apply to tool %s (its options: %s)", w.Tool, strings.Join(optionKeys(w.Tool), ", "))
		}
		for _, n := range intValues(f) {
			if lo, ok := tagInt(sf, "min"); ok && n < lo {
				return w.fail(key, "%d is below the minimum %d", n, lo)
			}
			if hi, ok := tagInt(sf, "max"); ok && n > hi {
				return w.fail(key, "%d is above the maximum %d", n, hi)
			}
		}
	}
	switch {
	case o.Histogram != nil && *o.Histogram && o.Percentile != nil && *o.Percentile == 0:
		return w.fail("options.histogram", "sysbench cannot print a histogram with percentile 0")
	case o.TimeS != nil && *o.TimeS == 0 && o.Events != nil && *o.Events == 0:
		return w.fail("options.time_s", "time_s 0 with events 0 would run forever; set one of them")
	case o.LoadType != "" && !slices.Contains(loadTypes, o.LoadType):
		return w.fail("options.auto_generate_sql_load_type", "%q is not one of %s", clip(o.LoadType), strings.Join(loadTypes, ", "))
	}
	if v := w.spec().Validate; v != nil {
		return v(w)
	}
	if o.Engine != "" {
		return w.checkEngines(o.Engine)
	}
	return nil
}

// checkEngines checks engine names for options.engine.
func (w *Workload) checkEngines(engines ...string) error {
	for _, e := range engines {
		if !engineRE.MatchString(e) {
			return w.fail("options.engine", "%q is not an engine name", clip(e))
		}
	}
	return nil
}

// validateSlap: mysqlslap's --engine takes a comma-separated list, each
// run once per engine.
func validateSlap(w *Workload) error {
	if w.Options.Engine == "" {
		return nil
	}
	return w.checkEngines(strings.Split(w.Options.Engine, ",")...)
}

// validateCustom: a custom workload names its program. It takes no
// options.engine (no option is tagged for it), so none is checked.
func validateCustom(w *Workload) error {
	if w.Binary == "" {
		return w.fail("binary", "missing: the program a custom workload runs")
	}
	return nil
}

// toolsWhere names the drivers whose entry has a property: "tool custom",
// "tools sysbench and sysbench-legacy".
func toolsWhere(has func(d *DriverSpec) bool) string {
	var names []string
	for i := range Drivers {
		if has(&Drivers[i]) {
			names = append(names, string(Drivers[i].Kind))
		}
	}
	if len(names) == 1 {
		return "tool " + names[0]
	}
	return "tools " + strings.Join(names, " and ")
}

// validateArgs keeps passwords off the command line: the builders deliver
// the password as MYSQL_PWD, and extra_args must not undo that.
func (w *Workload) validateArgs() error {
	for i, a := range w.ExtraArgs {
		key := fmt.Sprintf("extra_args[%d]", i)
		if strings.ContainsRune(a, 0) {
			return w.fail(key, "holds a NUL byte")
		}
		if passwordFlag(w.Tool, a) {
			return w.fail(key, "passwords never go on the command line: orch passes the inventory's password as MYSQL_PWD")
		}
	}
	return nil
}

// passwordFlag reports an argument that would carry a password: any long
// option naming one (--mysql-password, --password; a --password-file is
// fine), and what the driver's own option parser reads as one
// (DriverSpec.PasswordArg).
func passwordFlag(tool DriverKind, arg string) bool {
	if d, ok := Spec(tool); ok && d.PasswordArg != nil && d.PasswordArg(arg) {
		return true
	}
	if !strings.HasPrefix(arg, "--") {
		return false
	}
	name := longOption(arg)
	if strings.HasSuffix(name, "-file") {
		return false
	}
	return strings.Contains(name, "password") || strings.Contains(name, "passwd")
}

// slapPasswordArg: mysqlslap's option parser also reads -p (alone or in a
// cluster like -vpSECRET) and the abbreviations of --password it accepts
// (--pass).
func slapPasswordArg(arg string) bool {
	switch {
	case !strings.HasPrefix(arg, "-"):
		return false
	case !strings.HasPrefix(arg, "--"):
		return strings.ContainsRune(arg, 'p')
	}
	name := longOption(arg)
	return len(name) >= 2 && strings.HasPrefix("password", name)
}

// longOption is a --long-option's name, lower case, '_' as '-'.
func longOption(arg string) string {
	name, _, _ := strings.Cut(strings.ToLower(arg[2:]), "=")
	return strings.ReplaceAll(name, "_", "-")
}

// fail builds an error at key's position in the file (or naming the file
// alone when the key was not in it, e.g. a default or an override).
func (w *Workload) fail(key, format string, args ...any) error {
	pos, ok := w.pos[key]
	switch {
	case ok:
	case w.Source != "":
		pos = topology.Pos{File: w.Source}
	default:
		pos = topology.Pos{File: "workload " + w.Name} // built in code
	}
	return &topology.Error{Pos: pos, Msg: key + ": " + strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")}
}

func kindList() string {
	s := make([]string, len(Drivers))
	for i, d := range Drivers {
		s[i] = string(d.Kind)
	}
	return strings.Join(s, ", ")
}

// optionKeys lists the option keys that apply to a driver.
func optionKeys(kind DriverKind) []string {
	var keys []string
	t := reflect.TypeFor[Options]()
	for i := range t.NumField() {
		if slices.Contains(strings.Split(t.Field(i).Tag.Get("tools"), ","), string(kind)) {
			keys = append(keys, yamlKey(t.Field(i)))
		}
	}
	if len(keys) == 0 {
		return []string{"none"}
	}
	return keys
}

func tagInt(sf reflect.StructField, tag string) (int, bool) {
	s, ok := sf.Tag.Lookup(tag)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// intValues returns the integers an option field holds (none for others).
func intValues(f reflect.Value) []int {
	switch v := f.Interface().(type) {
	case *int:
		return []int{*v}
	case IntList:
		return v
	}
	return nil
}
