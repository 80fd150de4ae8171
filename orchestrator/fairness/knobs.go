package fairness

import (
	"fmt"
	"strings"
)

// KnobCause is a matrix knob that, set alike on the configurations,
// reaches the setting of some engines under test and not of others: a
// knob names one engine's variable (innodb_flush_log_at_trx_commit), and
// the other engine keeps what its profile says.
type KnobCause struct {
	// Knobs are the knobs involved as set: "innodb_flush_log_at_trx_commit=1".
	Knobs []string
	// Set are the engines whose setting the knobs are; Unset the others.
	Set, Unset []string
	// Counterparts are the Unset engines' own variables for the same
	// setting, the fix; Kept says what they are.
	Counterparts, Kept []string
}

func (k *KnobCause) String() string {
	return "--knobs " + strings.Join(k.Knobs, ";") + " reaches " + strings.Join(k.Set, ", ") +
		", not " + strings.Join(k.Unset, ", ")
}

// Line is the one-line refusal of a matrix on w (w.Knob set): the knob, the
// engines, what the others keep and the fix.
func (k *KnobCause) Line(w Warning) string {
	noun := map[Kind]string{Durability: "durability", Caching: "cache", IO: "IO"}[w.Kind]
	return fmt.Sprintf("--knobs %s changes the %s of %s and not of %s (%s keeps %s on %s): "+
		"give %s the same with %s in --knobs, or pass --allow-asymmetry",
		strings.Join(k.Knobs, ";"), noun, strings.Join(k.Set, ", "), strings.Join(k.Unset, ", "),
		strings.Join(k.Unset, ", "), strings.Join(k.Kept, "; "), w.Host, strings.Join(k.Unset, ", "), strings.Join(k.Counterparts, " and "))
}

// knobCause finds, among the configurations whose values differ, which
// take a knob's variable for the aspect (Set) and which do not (Unset);
// nil when no knob is involved or the knob reaches every side (then the
// difference is not the knob's).
func knobCause(differing []seen, knobs []string) *KnobCause {
	if len(knobs) == 0 {
		return nil
	}
	c := &KnobCause{}
	for _, v := range knobs {
		for _, s := range differing {
			if val, ok := s.h.Vars[v]; ok {
				c.Knobs = append(c.Knobs, v+"="+val)
				break
			}
		}
	}
	for _, s := range differing {
		takes := false
		for _, v := range s.vars {
			takes = takes || contains(knobs, v)
		}
		if takes {
			c.Set = appendNew(c.Set, s.c.Engine)
			continue
		}
		c.Unset = appendNew(c.Unset, s.c.Engine)
		c.Counterparts = appendNew(c.Counterparts, s.vars...)
		c.Kept = appendNew(c.Kept, strings.TrimPrefix(s.shown, s.c.Engine+" "))
	}
	if len(c.Unset) == 0 || len(c.Set) == 0 {
		return nil
	}
	return c
}

func contains(list []string, x string) bool {
	for _, l := range list {
		if l == x {
			return true
		}
	}
	return false
}

// Refusal is the first warning a matrix refuses to start on without
// --allow-asymmetry, knob-made ones first (they have a one-line fix).
func Refusal(ws []Warning) (Warning, bool) {
	for _, w := range ws {
		if w.Knob != nil {
			return w, true
		}
	}
	for _, w := range ws {
		if Refused(w) {
			return w, true
		}
	}
	return Warning{}, false
}
