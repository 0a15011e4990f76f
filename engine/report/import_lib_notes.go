package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/engine"
)

// libNotes say that the run was imported, and where the tool's method
// differs from ours in a way that matters when its cells are compared with
// ours (docs/METHODOLOGY.md): one sentence each, for the Run section.
func libNotes(f libFile, rep engine.Report) []string {
	m := f.Metadata
	notes := []string{
		"Measured by " + libTool + ", not by Speed Matrix: where its method differs from ours, the notes below say.",
		"Sustained decode: its window opens once the server has held all C requests, none waiting, for a few seconds (ours: once every stream has its first token).",
		"Per request tok/s is its output_tps_per_user p50 and Time between tokens its per-request inter-token latency (first to last token), p50 over requests; ours are the median of each request's rate inside the window and the median gap between tokens.",
		"It does not look for looping output: a cell where the model repeated itself counts as Valid here, where ours would be Looped.",
	}
	add := func(format string, a ...any) { notes = append(notes, fmt.Sprintf(format, a...)) }
	if len(f.Results) > 0 {
		add("Completed requests is its completed_request_count, which it counts its own way; ours counts the requests that finished inside the window.")
	}
	if m.PrefillMode == "integrated_decode_scout" && len(f.Prefill) > 0 {
		add("Prefill is prompt tokens ÷ TTFT of the decode scout request, as ours, rounded by the tool to whole tok/s and milliseconds.")
	}
	if def := engine.DefaultPlan().Duration.Seconds(); m.DurationPerTest > 0 && m.DurationPerTest < def {
		add("Each decode cell was measured for %s (ours: %s by default): shorter windows vary more from run to run.",
			wholeSeconds(m.DurationPerTest), wholeSeconds(def))
	}
	if m.IgnoreEOS != nil && !*m.IgnoreEOS {
		add("It let requests end at the model's end-of-sequence token (--respect-eos): its decode cells include request restarts, which ours avoid (ignore_eos).")
	}
	if m.DecodeMode == "request-count" {
		add("Its decode cells are finite request bursts (--request-count): their throughput includes admission and completion, so they are not comparable with sustained decode.")
	}
	if m.MetricsAvailable != nil && !*m.MetricsAvailable {
		add("The server had no /metrics: Average active requests and the underfilled check are missing.")
	}
	if n, names := libOtherSources(f.Results); n > 0 {
		add("In %s its total tok/s comes from %s rather than from the stream's usage.", engine.Count(n, "cell", "cells"), strings.Join(names, " or "))
	}
	if n := countStatus(rep.Results, engine.StatusFailed); n > 0 {
		add("%s had failed streams or no tokens: %s keeps such figures; here those cells are Failed, their figures kept for diagnosis only.", engine.Count(n, "cell", "cells"), libTool)
	}
	if skipped := libSkippedPrefill(f); len(skipped) > 0 {
		add("It skipped prefill at %s.", strings.Join(skipped, ", "))
	}
	if n := len(f.BurstResults); n > 0 {
		add("Its Burst / E2E matrix (%s) is not imported: Speed Matrix has no such measurement.", engine.Count(n, "cell", "cells"))
	}
	if !rep.Run.FinishedAt.IsZero() {
		add("Its file records local time without a time zone: Started and Finished are read as this computer's local time.")
	}
	return notes
}

// libSourceNames name the tool's fallbacks for counting a cell's tokens
// when the stream's continuous usage (what ours counts) is missing.
var libSourceNames = map[string]string{
	"openai_stream_chunks_fallback": "stream chunks",
	"prometheus_fallback":           "the server's counters",
}

// libOtherSources counts the cells whose total tok/s came from a fallback,
// and names the fallbacks in order of first use.
func libOtherSources(cells []libCell) (n int, names []string) {
	for _, c := range cells {
		name, ok := libSourceNames[c.AggregateSource]
		if !ok {
			continue
		}
		n++
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return n, names
}

// libSkippedPrefill labels the prefill contexts the tool skipped, with its
// reason when it gave one: "64K (exceeds the model length)".
func libSkippedPrefill(f libFile) []string {
	var out []string
	for _, ctx := range libPrefillContexts(f) {
		p := f.Prefill[strconv.Itoa(ctx)]
		if !p.Skipped {
			continue
		}
		s := engine.ContextLabel(ctx)
		if p.Reason != "" {
			s += " (" + p.Reason + ")"
		}
		out = append(out, s)
	}
	return out
}
