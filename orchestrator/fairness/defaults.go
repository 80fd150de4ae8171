package fairness

import (
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// enginePrefixes maps each plugin engine to its variables' prefix: those
// variables exist only while the engine is loaded.
var enginePrefixes = func() map[string]string {
	out := map[string]string{}
	for _, e := range flavor.EngineSpecs() {
		if e.VarPrefix != "" {
			out[e.Name] = e.VarPrefix
		}
	}
	return out
}()

// Effective overlays a rendered configuration (name -> value, as the
// profile and knobs set them) on server's defaults (from the manuals,
// flavor.Server.VarDefaults: they stand in for SHOW VARIABLES before any
// server is touched). Engine variables are kept only for the engine under
// test and for engines the rendered file configures: an engine that is
// not loaded has no cache to warn about. A server orch has no defaults
// for contributes none.
func Effective(server flavor.Server, engine string, rendered map[string]string) map[string]string {
	configured := map[string]bool{engine: true}
	for name := range rendered {
		for e, p := range enginePrefixes {
			if strings.HasPrefix(normName(name), p) {
				configured[e] = true
			}
		}
	}
	out := map[string]string{}
	for name, v := range server.VarDefaults() {
		keep := true
		for e, p := range enginePrefixes {
			if strings.HasPrefix(name, p) && !configured[e] {
				keep = false
			}
		}
		if keep {
			out[name] = v
		}
	}
	for name, v := range rendered {
		out[normName(name)] = v
	}
	return out
}
