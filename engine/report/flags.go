package report

import (
	"fmt"
	"slices"
	"strings"

	"speedmatrix/engine"
)

// FlagMarker follows the figures of a Valid cell that a trust check doubts
// (see engine.FlagKind), in report.md, the charts and the app alike.
// A dagger, because every font the exports and the app draw with has one.
const FlagMarker = "†"

// NoteFlagged explains FlagMarker under the tables that show it.
const NoteFlagged = "Flagged (" + FlagMarker + "): a trust check doubts this cell; its figures are kept and the reasons are listed under its table."

// CellName names a cell as the lists under the tables do:
// "Sustained decode 8K × 16", "Prefill 8K × 1".
func CellName(r engine.Result) string {
	return fmt.Sprintf("%s %s × %d", r.Phase.Title(), r.ContextName(), r.Concurrency)
}

// cellFlags are the flags of a cell. A report written before cells carried
// flags only has the Underfilled bit; it is read as an underfilled flag.
func cellFlags(r engine.Result) []engine.Flag {
	if !r.Underfilled || r.HasFlag(engine.FlagUnderfilled) {
		return r.Flags
	}
	under := engine.Flag{Kind: engine.FlagUnderfilled,
		Message: fmt.Sprintf("underfilled: %s of %d requests active on average", fixed1(r.AvgActive), r.Concurrency)}
	return append([]engine.Flag{under}, r.Flags...)
}

// Marked reports whether a cell's figures carry FlagMarker: it is Valid
// and flagged. Cells without figures show their status instead.
func Marked(r engine.Result) bool { return r.Measured() && len(cellFlags(r)) > 0 }

// Mark appends FlagMarker to s, a figure of r, when r is Marked.
func Mark(s string, r engine.Result) string {
	if Marked(r) {
		return s + " " + FlagMarker
	}
	return s
}

// AnyMarked reports whether any of rs is Marked.
func AnyMarked(rs []engine.Result) bool { return slices.ContainsFunc(rs, Marked) }

// FlagLines lists, in the order given, one line per cell that carries
// flags: "Sustained decode 8K × 16: preempted 3 times: KV cache pressure",
// several flags of one cell joined by "; ". report.md, the report sheet and
// the app all list flags with it.
func FlagLines(rs []engine.Result) []string {
	var lines []string
	for _, r := range rs {
		flags := cellFlags(r)
		if len(flags) == 0 {
			continue
		}
		msgs := make([]string, len(flags))
		for i, f := range flags {
			msgs[i] = f.Message
			if msgs[i] == "" {
				msgs[i] = string(f.Kind)
			}
		}
		lines = append(lines, CellName(r)+": "+strings.Join(msgs, "; "))
	}
	return lines
}

// ofPhase returns the results of one phase, in their order.
func ofPhase(rs []engine.Result, p engine.Phase) []engine.Result {
	var out []engine.Result
	for _, r := range rs {
		if r.Phase == p {
			out = append(out, r)
		}
	}
	return out
}

// throttleOf is a cell's throttle verdict, nil when none was sampled.
func throttleOf(r engine.Result) *engine.Throttle {
	if r.Telemetry == nil {
		return nil
	}
	return r.Telemetry.Throttle
}

// ThrottleSummary is the run's GPU throttle verdict in one line, and
// whether it is ok: "GPU throttle: ok in all 12 sampled cells." or
// "GPU 1 throttled (power cap, thermal) in 3 of 12 sampled cells: …".
// The line is empty when no cell had the GPUs' clock-event reasons sampled.
func ThrottleSummary(rs []engine.Result) (line string, ok bool) {
	sampled, throttled := 0, 0
	var reasons []string
	var gpus []engine.GPUKey
	for _, r := range rs {
		t := throttleOf(r)
		if t == nil {
			continue
		}
		sampled++
		if t.OK() {
			continue
		}
		throttled++
		for _, why := range strings.Split(t.Verdict, "+") {
			if why = engine.ThrottleReasonName(why); !slices.Contains(reasons, why) {
				reasons = append(reasons, why)
			}
		}
		gpus = appendThrottled(gpus, t)
	}
	switch {
	case sampled == 0:
		return "", true
	case throttled == 0 && sampled == 1:
		return "GPU throttle: ok in the sampled cell.", true
	case throttled == 0:
		return fmt.Sprintf("GPU throttle: ok in all %d sampled cells.", sampled), true
	}
	return fmt.Sprintf("%s throttled (%s) in %d of %d sampled cells: their figures may be lower than the GPU can do.",
		gpuList(gpus), strings.Join(reasons, ", "), throttled, sampled), false
}

// appendThrottled adds the GPUs t names to gpus, once each, sorted by host
// and index; per-GPU shares name them, or the GPU indexes of older reports.
func appendThrottled(gpus []engine.GPUKey, t *engine.Throttle) []engine.GPUKey {
	add := func(k engine.GPUKey) {
		if !slices.Contains(gpus, k) {
			gpus = append(gpus, k)
		}
	}
	for _, r := range t.Reasons {
		for _, g := range r.PerGPU {
			add(g.Key())
		}
		if len(r.PerGPU) == 0 {
			for _, i := range r.GPUs {
				add(engine.GPUKey{Index: i})
			}
		}
	}
	slices.SortFunc(gpus, engine.CompareGPUKeys)
	return gpus
}

// gpuList names GPUs in a sentence: "GPU 1", "GPUs 0 and 1", "GPU 0 on
// node2 and GPU 1"; "GPU" when none is known.
func gpuList(gpus []engine.GPUKey) string {
	local := !slices.ContainsFunc(gpus, func(k engine.GPUKey) bool { return k.Host != "" })
	names := make([]string, len(gpus))
	for i, k := range gpus {
		names[i] = k.String()
		if local && len(gpus) > 1 {
			names[i] = fmt.Sprint(k.Index)
		}
	}
	switch {
	case len(names) == 0:
		return "GPU"
	case len(names) == 1:
		return names[0]
	}
	list := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	if local {
		return "GPUs " + list
	}
	return list
}
