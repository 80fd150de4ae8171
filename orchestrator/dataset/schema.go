package dataset

import "github.com/orch-bench/orch/orchestrator/schema"

// What this package measures is run-directory data, declared once in
// orchestrator/schema (results.json catch_up, consistency, sizes).
type (
	CatchUp           = schema.CatchUp
	SlaveCatchUp      = schema.SlaveCatchUp
	ConsistencyReport = schema.ConsistencyReport
	TableCheck        = schema.TableCheck
	TableValues       = schema.TableValues
	SizeReport        = schema.SizeReport
	TableSize         = schema.TableSize
	EngineSize        = schema.EngineSize
)

// Where SizeReport.DatadirBytes came from.
const (
	SourceDu      = schema.SourceDu
	SourceCatalog = schema.SourceCatalog
)
