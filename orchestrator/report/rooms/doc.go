// Package rooms holds the report's floor plan as tests: the rooms
// (orchestrator/report/load, analyse, judge and render) import only the
// rooms below them, and none depends on a package that reaches a host.
// It has no code: its tests stand apart from the rooms they check, so that
// an import that runs back up is named even where it makes a cycle.
package rooms
