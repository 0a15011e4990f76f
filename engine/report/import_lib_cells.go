package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"speedmatrix/engine"
)

// libPrefillResults are the prefill cells the tool measured. Contexts it
// skipped are left out of the plan (libNotes names them): they are not
// measurements, and no run of ours could resume them.
func libPrefillResults(f libFile) []engine.Result {
	var out []engine.Result
	for _, ctx := range libPrefillContexts(f) {
		p := f.Prefill[strconv.Itoa(ctx)]
		if p.Skipped {
			continue
		}
		res := engine.Result{
			Cell:         engine.Cell{Phase: engine.PhasePrefill, ContextTokens: ctx, Concurrency: 1},
			ContextLabel: engine.ContextLabel(ctx),
			Status:       engine.StatusValid,
		}
		if p.TokPerSec <= 0 || p.TTFTSeconds <= 0 {
			res.Status, res.Error = engine.StatusFailed, libTool+" recorded no prefill speed for this context"
		} else {
			res.TotalTokPerSec, res.TTFTMs = p.TokPerSec, p.TTFTSeconds*1000
			res.TTFTPct = engine.Percentiles{P50: res.TTFTMs}
			res.PromptTokens, res.Completed = p.PromptTokens, p.Samples
		}
		out = append(out, res)
	}
	return out
}

// libDecodeResults are the decode cells of the tool's matrix, in its order
// of contexts and concurrency levels; a cell the file lacks gets the
// status that explains why (see libMissingCell).
func libDecodeResults(f libFile, log libLog) []engine.Result {
	byCell := map[[2]int]libCell{}
	for _, c := range f.Results {
		if c.AggregateTPS >= 0 { // older files kept skipped cells as -1 or -2
			byCell[[2]int{c.ContextTokens, c.Concurrency}] = c
		}
	}
	metrics := f.Metadata.MetricsAvailable == nil || *f.Metadata.MetricsAvailable
	var out []engine.Result
	seen := map[[2]int]bool{}
	for _, ctx := range f.Metadata.ContextLengths {
		for _, conc := range f.Metadata.ConcurrencyLevels {
			k := [2]int{ctx, conc}
			if seen[k] {
				continue
			}
			seen[k] = true
			if c, ok := byCell[k]; ok {
				out = append(out, libDecodeCell(c, metrics))
			} else {
				out = append(out, libMissingCell(ctx, conc, f, log))
			}
		}
	}
	for _, c := range f.Results { // cells outside the metadata's matrix
		if k := [2]int{c.ContextTokens, c.Concurrency}; !seen[k] && c.AggregateTPS >= 0 {
			seen[k] = true
			out = append(out, libDecodeCell(c, metrics))
		}
	}
	return out
}

// libDecodeCell maps one measured cell. A cell with failed streams is
// Failed, its figures kept for diagnosis only, as ours are.
func libDecodeCell(c libCell, metrics bool) engine.Result {
	res := engine.Result{
		Cell:         engine.Cell{Phase: engine.PhaseDecode, ContextTokens: c.ContextTokens, Concurrency: c.Concurrency},
		ContextLabel: engine.ContextLabel(c.ContextTokens),
		Status:       engine.StatusValid,
		PromptTokens: int(math.Round(c.InputSeqLenAvg)),
	}
	active := 0.0
	if metrics && c.MaxRunningReqs > 0 {
		active = c.EffectiveConcurrency
	}
	fig := engine.PartialFigures{
		TotalTokPerSec:      c.AggregateTPS,
		PerRequestTokPerSec: c.UserTPSP50,
		TTFTMs:              c.TTFTP50 * 1000,
		ITLMs:               c.ITLP50 * 1000,
		AvgActive:           active,
		Completed:           c.CompletedRequestCount,
		OutputTokens:        max(c.ClientOutputTokens, c.TotalTokens),
		MeasuredS:           c.MeasurementSeconds,
	}
	if fig.PerRequestTokPerSec == 0 { // files before 0.4 have only the mean, total ÷ C
		fig.PerRequestTokPerSec = c.PerRequestAvgTPS
	}
	switch {
	case c.NumErrors > 0:
		res.Status, res.Partial = engine.StatusFailed, &fig
		res.Error = fmt.Sprintf("%s: %d of %d streams ended with an error (it kept the cell's figure, %s tok/s)",
			libTool, c.NumErrors, c.NumErrors+c.NumCompleted, TokPerSec(c.AggregateTPS))
		return res
	case c.AggregateTPS == 0:
		res.Status, res.Error = engine.StatusFailed, libTool+" counted no output tokens in this cell"
		return res
	}
	res.TotalTokPerSec, res.PerRequestTokPerSec = fig.TotalTokPerSec, fig.PerRequestTokPerSec
	res.TTFTMs, res.ITLMs, res.AvgActive = fig.TTFTMs, fig.ITLMs, fig.AvgActive
	res.Completed, res.OutputTokens, res.MeasuredS = fig.Completed, fig.OutputTokens, fig.MeasuredS
	res.TTFTPct = engine.Percentiles{P50: c.TTFTP50 * 1000, P90: c.TTFTP90 * 1000, P99: c.TTFTP99 * 1000}
	res.ITLPct = engine.Percentiles{P50: c.ITLP50 * 1000, P90: c.ITLP90 * 1000, P99: c.ITLP99 * 1000}
	res.PerRequestPct = engine.Percentiles{P50: c.UserTPSP50, P90: c.UserTPSP90, P99: c.UserTPSP99}
	res.Flags = libFlags(c, active, metrics)
	res.Underfilled = slices.ContainsFunc(res.Flags, func(f engine.Flag) bool { return f.Kind == engine.FlagUnderfilled })
	return res
}

// libFlags raise our flags from what the tool saw: its own underfilled,
// capacity-limited and warm-up timeout marks, and the server's token count
// checked against its count with our tolerance.
func libFlags(c libCell, active float64, metrics bool) []engine.Flag {
	var flags []engine.Flag
	switch {
	case c.WarmupTimedOut:
		flags = append(flags, engine.Flag{Kind: engine.FlagUnderfilled,
			Message: fmt.Sprintf("underfilled: %s's warm-up timed out (%s) and it measured anyway", libTool, c.TimeoutReason)})
	case (c.Underfilled || c.CapacityLimited) && active > 0:
		flags = append(flags, engine.Flag{Kind: engine.FlagUnderfilled,
			Message: fmt.Sprintf("underfilled: %.1f of %d requests were running on average (%s marked the cell capacity-limited)", active, c.Concurrency, libTool)})
	case c.Underfilled || c.CapacityLimited:
		flags = append(flags, engine.Flag{Kind: engine.FlagUnderfilled,
			Message: fmt.Sprintf("underfilled: %s marked the cell capacity-limited", libTool)})
	}
	if metrics && c.ServerGenThroughput > 0 && c.AggregateTPS > 0 {
		if d := c.ServerGenThroughput/c.AggregateTPS - 1; math.Abs(d) > engine.ServerCountTolerance {
			flags = append(flags, engine.Flag{Kind: engine.FlagServerCount, Message: fmt.Sprintf("the server counted %.1f tok/s (%s counted %.1f, %+.1f %%)",
				c.ServerGenThroughput, libTool, c.AggregateTPS, 100*d)})
		}
	}
	return flags
}

// libMissingCell is a planned cell the file has no result for: skipped by
// hand (the tool's s key, seen in its event log), skipped because it would
// not fit the tool's token budget (the same rule as ours), or not run.
func libMissingCell(ctx, conc int, f libFile, log libLog) engine.Result {
	res := engine.Result{
		Cell:         engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: conc},
		ContextLabel: engine.ContextLabel(ctx),
	}
	budget, out := f.Metadata.MaxTotalTokens, f.Metadata.MaxTokens
	switch {
	case log.skipped[[2]int{ctx, conc}]:
		res.Status, res.Error = engine.StatusCancelled, "skipped by hand in "+libTool
	case engine.OverCapacity(budget, 0, ctx, conc, out):
		res.Status = engine.StatusOverCapacity
		res.Error = fmt.Sprintf("%s skipped it: %d × (%s + %s) = %s tokens exceed its budget of %s tokens",
			libTool, conc, Int(ctx), Int(out), Int(conc*(ctx+out)), Int(budget))
	default:
		res.Status, res.Error = engine.StatusNotRun, "the "+libTool+" file has no result for this cell"
	}
	return res
}
