package engine

import (
	"fmt"
	"strings"
)

// FlagKind names one reason to doubt a cell's figures.
type FlagKind string

// The trust checks that can flag a cell. A flagged Valid cell keeps its
// figures; the flag is shown beside them in every export and screen.
const (
	// FlagUnderfilled: fewer than 95 % of the requested streams were running
	// on average (the server's own count when /metrics exists).
	FlagUnderfilled FlagKind = "underfilled"
	// FlagServerCount: the server's generated-token count differs from ours
	// by more than ServerCountTolerance.
	FlagServerCount FlagKind = "server_count"
	// FlagPreempted: the server preempted requests during the cell.
	FlagPreempted FlagKind = "preempted"
	// FlagThrottled: a GPU reported a clock-event reason (power cap,
	// thermal, …) in a share of the cell's samples.
	FlagThrottled FlagKind = "gpu_throttle"
	// FlagBusy: the run was allowed on a server that other clients use, so
	// the idle check and the drain barrier were off.
	FlagBusy FlagKind = "busy_server"
	// FlagNotDrained: the server still had requests running or waiting when
	// the drain barrier gave up after this cell.
	FlagNotDrained FlagKind = "not_drained"
	// FlagTelemetryGap: some GPUs' telemetry was missing during the cell (a
	// DCGM exporter did not answer), so its power, and J/token, are partial.
	FlagTelemetryGap FlagKind = "telemetry_gap"
	// FlagBadMetrics: scrapes of the server's /metrics were skipped during
	// the cell for a value no server could mean (NaN, infinite, negative,
	// absurdly large), so its checks saw fewer of them, or none.
	FlagBadMetrics FlagKind = "bad_metrics"
	// FlagCounterReset: a counter of the server's /metrics went down during
	// the cell: the server may have restarted, and its count of the cell's
	// tokens is left out.
	FlagCounterReset FlagKind = "counter_reset"
)

// ServerCountTolerance is how far the server's token count may differ from
// ours before a cell is flagged (3 %).
const ServerCountTolerance = 0.03

// Flag is one reason to doubt a cell, with a one-line message that says
// what was seen: "preempted 3 times: KV cache pressure".
type Flag struct {
	Kind    FlagKind `json:"kind"`
	Message string   `json:"message"`
}

// ServerCheck is what the server's /metrics said during one decode cell,
// sampled several times a second and compared with the client's count.
type ServerCheck struct {
	Samples int `json:"samples"` // scrapes inside the window
	// Active is the time-average of vllm:num_requests_running in the window.
	Active float64 `json:"active"`
	// ActiveMedian is the median of the scrapes of vllm:num_requests_running
	// in the window. It decides the underfilled flag: a server that can't
	// hold C requests shows fewer in most scrapes, while a single scrape
	// that lands in a restart's gap doesn't count.
	ActiveMedian float64 `json:"active_median"`
	// Waiting is the time-average of vllm:num_requests_waiting in the window.
	Waiting float64 `json:"waiting"`
	// TokPerSec is the tokens the server generated in the window ÷ the
	// window; 0 with NotComparable set when its counters can't say.
	TokPerSec float64 `json:"tok_s,omitempty"`
	// TokSource is the metric TokPerSec came from.
	TokSource string `json:"tok_source,omitempty"`
	// NotComparable says why TokPerSec is missing.
	NotComparable string `json:"not_comparable,omitempty"`
	// CounterReset names the token counter that went down during the cell
	// (a server restart resets it); "" when none did.
	CounterReset string `json:"counter_reset,omitempty"`
	// Preemptions is the increase of vllm:num_preemptions_total over the cell.
	Preemptions int `json:"preemptions"`
	// SpecDecode is set when the server exposes speculative-decoding counters.
	SpecDecode *SpecDecode `json:"spec_decode,omitempty"`
	// ScrapeMedianMs and ScrapeSlowestMs are how long the server took to
	// answer /metrics inside the window. A server short of CPU answers some
	// scrapes late, and its counters then run ahead of what reaches the
	// client: a real vLLM on two cores, in a session of its own, answered
	// in 20 ms median and up to seconds, and counted up to 42 % more.
	ScrapeMedianMs  float64 `json:"scrape_median_ms,omitempty"`
	ScrapeSlowestMs float64 `json:"scrape_slowest_ms,omitempty"`
}

// SpecDecode is speculative decoding's work during one cell.
type SpecDecode struct {
	Drafts         float64 `json:"drafts"`
	DraftTokens    float64 `json:"draft_tokens"`
	AcceptedTokens float64 `json:"accepted_tokens"`
	// AcceptanceRate is accepted ÷ draft tokens (0..1).
	AcceptanceRate float64 `json:"acceptance_rate"`
	// MeanAcceptedLength is 1 + accepted tokens ÷ drafts: tokens each
	// forward pass yields, as vLLM reports it.
	MeanAcceptedLength float64 `json:"mean_accepted_length"`
}

// PartialFigures are what a Failed decode cell measured before it failed,
// kept in report.json for diagnosis and never shown as its figures.
type PartialFigures struct {
	TotalTokPerSec      float64 `json:"total_tok_s"`
	PerRequestTokPerSec float64 `json:"per_request_tok_s"`
	TTFTMs              float64 `json:"ttft_ms"`
	ITLMs               float64 `json:"itl_ms"`
	AvgActive           float64 `json:"avg_active"`
	Completed           int     `json:"completed"`
	OutputTokens        int     `json:"output_tokens"`
	MeasuredS           float64 `json:"measured_s"` // the span the figures cover
}

// Throttle is a cell's GPU throttle verdict from NVML's clock-event
// (throttle) reasons, sampled with the telemetry.
type Throttle struct {
	// Verdict is "ok", or the reasons seen joined by "+": "power_cap+thermal".
	Verdict string `json:"verdict"`
	// Samples is how many samples had the reasons read.
	Samples int              `json:"samples"`
	Reasons []ThrottleReason `json:"reasons,omitempty"`
}

// Throttle reasons as Verdict names them.
const (
	ThrottleOK         = "ok"
	ThrottlePowerCap   = "power_cap"   // software power cap
	ThrottleThermal    = "thermal"     // software or hardware thermal slowdown
	ThrottleHWSlowdown = "hw_slowdown" // hardware slowdown (power brake, overheat)
	ThrottlePowerBrake = "power_brake" // external power brake
)

// ThrottleReason is one reason seen in a cell: the share of samples in
// which any GPU reported it, which GPUs did, and each one's own share.
type ThrottleReason struct {
	Reason string  `json:"reason"`
	Share  float64 `json:"share"` // 0..1 of the samples
	GPUs   []int   `json:"gpus"`
	// PerGPU is each GPU's own share of its samples; reports written before
	// it was added have only GPUs.
	PerGPU []GPUShare `json:"per_gpu,omitempty"`
}

// GPUShare is the share (0..1) of one GPU's samples that saw a reason.
type GPUShare struct {
	Index int     `json:"index"`
	Host  string  `json:"host,omitempty"`
	Share float64 `json:"share"`
}

// Key is the share's GPU.
func (g GPUShare) Key() GPUKey { return GPUKey{Host: g.Host, Index: g.Index} }

// ThrottleReasonName is a reason as text says it: "power cap".
func ThrottleReasonName(reason string) string { return strings.ReplaceAll(reason, "_", " ") }

// OK reports whether the verdict is "ok" (or nothing was sampled).
func (t *Throttle) OK() bool { return t == nil || t.Verdict == "" || t.Verdict == ThrottleOK }

// Describe is the verdict in one line that names each GPU: "GPU 1
// throttled: power cap, 34 % of the window", or "ok". A report written
// before per-GPU shares gives "power cap in 64 % of samples (GPU 0)".
func (t *Throttle) Describe() string {
	if t.OK() {
		return ThrottleOK
	}
	var order []GPUKey
	perGPU := map[GPUKey][]string{}
	var old []string
	for _, r := range t.Reasons {
		name := ThrottleReasonName(r.Reason)
		for _, g := range r.PerGPU {
			if _, seen := perGPU[g.Key()]; !seen {
				order = append(order, g.Key())
			}
			perGPU[g.Key()] = append(perGPU[g.Key()], fmt.Sprintf("%s, %.0f %%", name, 100*g.Share))
		}
		gpus := make([]string, len(r.GPUs))
		for i, g := range r.GPUs {
			gpus[i] = fmt.Sprint(g)
		}
		old = append(old, fmt.Sprintf("%s in %.0f %% of samples (GPU %s)", name, 100*r.Share, strings.Join(gpus, ", ")))
	}
	if len(order) == 0 {
		return strings.Join(old, "; ")
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%s throttled: %s of the window", k, strings.Join(perGPU[k], " and "))
	}
	return strings.Join(parts, "; ")
}

// Message is Describe as a flag's message, which must say that a GPU
// throttled also in the form without per-GPU shares.
func (t *Throttle) Message() string {
	for _, r := range t.Reasons {
		if len(r.PerGPU) > 0 {
			return t.Describe()
		}
	}
	return "GPU throttled: " + t.Describe()
}

// HasFlag reports whether the result carries a flag of kind k.
func (r Result) HasFlag(k FlagKind) bool {
	for _, f := range r.Flags {
		if f.Kind == k {
			return true
		}
	}
	return false
}

// flagged reports whether a measured cell carries any flag.
func (r Result) flagged() bool { return len(r.Flags) > 0 }

// FlagAbortRejected: the server refused to abort requests still streaming
// when the cell's window closed, so they may have run on into the next cell.
const FlagAbortRejected FlagKind = "abort_rejected"
