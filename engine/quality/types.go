package quality

import "speedmatrix/engine"

// The report's types, kept in engine beside Report (report.json carries
// them); these are their names here.
type (
	Header        = engine.QualityHeader
	Report        = engine.QualityReport
	ServerInfo    = engine.QualityServer
	Judged        = engine.QualityJudged
	NoiseFloor    = engine.NoiseFloor
	Interval      = engine.QualityInterval
	Intervals     = engine.QualityIntervals
	ContextDrift  = engine.ContextDrift
	NeedleContext = engine.NeedleContext
	PairedRuns    = engine.PairedRuns
	TaskRun       = engine.TaskRun
	Flip          = engine.TaskFlip
)
