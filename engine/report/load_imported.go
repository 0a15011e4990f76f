package report

import (
	"fmt"
	"slices"
	"strings"

	"speedmatrix/engine"
)

// What a load test imported from another tool's file shows otherwise than
// ours: its plan, the note under its tables, rows held at a number of
// requests at once, and the figures its file lacks.

// LoadLatencyNote is how a load test's latencies count, under its tables:
// NoteLoadLatencies, or for an imported test that its figures are its
// tool's, by the tool's definitions.
func LoadLatencyNote(l engine.LoadSection) string {
	if imp := l.Imported; imp != nil {
		return "These figures are " + imp.Tool + "'s, counted as that tool counts them: the Run section's notes say where its definitions differ from ours. " +
			"A figure its file does not have reads " + Dash + "."
	}
	return NoteLoadLatencies
}

// concurrentLoadLine is LoadLine for a test held at numbers of requests
// open at once (an imported closed-loop run): "load test · 3 concurrency
// levels (1–16 at once)".
func concurrentLoadLine(l engine.LoadSection) string {
	var levels []int
	for _, r := range l.Results {
		levels = append(levels, r.Concurrency)
	}
	slices.Sort(levels)
	if len(levels) == 1 {
		return "load test · " + Int(levels[0]) + " requests at once"
	}
	return fmt.Sprintf("load test · %d concurrency levels (%s–%s at once)", len(levels), Int(levels[0]), Int(levels[len(levels)-1]))
}

// HasPercentile reports whether a latency's p-th percentile was measured:
// a file of another tool may lack one (vllm bench writes only the
// percentiles asked for) or a whole figure (GuideLLM has no per-gap ITL),
// which reads 0. A 0 is missing when every figure is 0, or when a lower
// percentile is above it, which no distribution has.
func HasPercentile(pct engine.Percentiles, p int) bool {
	v := pct.At(p)
	if v != 0 {
		return true
	}
	switch {
	case pct.P50 == 0 && pct.P90 == 0 && pct.P99 == 0 && pct.Mean == 0:
		return false
	case p >= 90 && pct.P50 > 0, p >= 99 && pct.P90 > 0:
		return false
	}
	return true
}

// importedPlanLine is LoadPlanLine of an imported test: its arrivals and
// requests, its cap and API where its file says them.
func importedPlanLine(p engine.LoadPlan) string {
	parts := []string{arrivalsWords(p.Arrivals) + " arrivals"}
	if p.Arrivals == engine.ArrivalsConcurrent {
		parts[0] = "closed loop (each request sent as one ends)"
	}
	if p.Requests > 0 {
		parts = append(parts, engine.Count(p.Requests, "request", "requests")+" per run")
	}
	if p.MaxConcurrency > 0 {
		parts = append(parts, "max concurrency "+Int(p.MaxConcurrency))
	}
	if p.API != "" {
		parts = append(parts, string(p.API)+" API")
	}
	return strings.Join(parts, " · ")
}
