package sim

import (
	"fmt"
	"time"
)

// Faults injects failures into a Server, for testing how a client copes.
type Faults struct {
	// ErrorRate is the fraction of generation requests answered with HTTP 500.
	ErrorRate float64
	// DisconnectAfterTokens drops a stream's connection after this many
	// tokens (0: never). It and StallAfterTokens apply to streams only.
	DisconnectAfterTokens int
	// StallAfterTokens stops sending after this many tokens while keeping the
	// connection open until the client gives up (0: never).
	StallAfterTokens int
	// StartupDelay makes /health and /v1/* answer 503 for this long after New.
	StartupDelay time.Duration
	// GenTokensAtFinish makes vllm:generation_tokens_total advance only when
	// a request finishes or is aborted, by its whole output, as on servers
	// whose counter moves only at the end; the latency histograms still
	// advance every step.
	GenTokensAtFinish bool
	// LingerAfterDisconnect keeps a sequence whose client went away running
	// (generating, holding its KV blocks, counted in num_requests_running)
	// for this long in model time, or until it finishes, before it is
	// aborted (0: aborted at once).
	LingerAfterDisconnect time.Duration
	// OtherLoad keeps this many requests of another client (no HTTP client:
	// OtherPromptTokens of prompt, up to OtherMaxTokens of output each) in
	// flight from New on, each replaced when it finishes.
	OtherLoad int
}

// FaultError is a fault setting that makes no sense. Field names the
// Faults field, so that a front end can name its own flag or field.
type FaultError struct {
	Field string // "StallAfterTokens"
	Value string // as given
	Want  string // what would do: "a number of tokens, or 0 for never"
}

func (e *FaultError) Error() string {
	return fmt.Sprintf("fault %s = %s makes no sense: use %s", e.Field, e.Value, e.Want)
}

// Validate reports the first fault setting that makes no sense, as a
// *FaultError.
func (f Faults) Validate() error {
	bad := func(field string, v any, want string) error {
		return &FaultError{Field: field, Value: fmt.Sprint(v), Want: want}
	}
	switch {
	case f.ErrorRate < 0 || f.ErrorRate > 1:
		return bad("ErrorRate", f.ErrorRate, "a fraction from 0 to 1")
	case f.DisconnectAfterTokens < 0:
		return bad("DisconnectAfterTokens", f.DisconnectAfterTokens, "a number of tokens, or 0 for never")
	case f.StallAfterTokens < 0:
		return bad("StallAfterTokens", f.StallAfterTokens, "a number of tokens, or 0 for never")
	case f.StartupDelay < 0:
		return bad("StartupDelay", f.StartupDelay, "a duration such as 5s, or 0")
	case f.LingerAfterDisconnect < 0:
		return bad("LingerAfterDisconnect", f.LingerAfterDisconnect, "a duration such as 2s, or 0 to stop at once")
	case f.OtherLoad < 0:
		return bad("OtherLoad", f.OtherLoad, "a number of requests, or 0 for none")
	}
	return nil
}

// Options configures a Server.
type Options struct {
	Profile Profile
	// APIKey, when set, makes /v1/* require (as vLLM's --api-key does)
	// "Authorization: Bearer KEY"; other keys get vLLM's 401.
	APIKey string
	// TimeScale runs the model this many times faster than real time; 0 means 1.
	TimeScale float64
	Faults    Faults
	// Seed selects the draws of the profile's Noise, how long answers run
	// without ignore_eos, and a looping request's phrase (0 is a valid
	// seed). The text itself is the pseudo-model's greedy choice, the same
	// whatever the seed, as a real server's greedy text is.
	Seed int64
	// Mode is the server the simulator speaks as: EngineVLLM ("" too)
	// or EngineSGLang.
	Mode string
	// NoMetrics serves no /metrics (404), as SGLang without
	// --enable-metrics.
	NoMetrics bool
	// Numerics are the vLLM settings that change what the model computes
	// (--dtype, --kv-cache-dtype, --quantization): the served logprobs and
	// text drift from the zero value's as drift.go calibrates.
	Numerics Numerics
	// MaxLogprobs is vLLM's --max-logprobs: the most logprobs a request may
	// ask for per token; 0 means vLLM's default, DefaultMaxLogprobs. At
	// most MaxLogprobsLimit.
	MaxLogprobs int
	// OldReasoningField streams a reasoning profile's thought as
	// delta.reasoning_content, vLLM's name before 0.16; by default it is
	// delta.reasoning, as current vLLM streams it (and
	// message.reasoning in a whole answer).
	OldReasoningField bool
}

// reasoningField is the chat field a reply's reasoning goes in, with its
// colon: `"reasoning":`, or `"reasoning_content":` for OldReasoningField.
func (o Options) reasoningField() string {
	if o.OldReasoningField {
		return `"reasoning_content":`
	}
	return `"reasoning":`
}

// The engines the simulator can speak as.
const (
	ModeVLLM   = "vllm"
	ModeSGLang = "sglang"
)

// validateLogprobs reports a MaxLogprobs the simulator cannot serve.
func (o Options) validateLogprobs() error {
	if o.MaxLogprobs < 0 || o.MaxLogprobs > MaxLogprobsLimit {
		return fmt.Errorf("max logprobs %d: use 1 to %d, or 0 for vLLM's default of %d", o.MaxLogprobs, MaxLogprobsLimit, DefaultMaxLogprobs)
	}
	return nil
}

// validateMode reports an Engine the simulator does not speak.
func (o Options) validateMode() error {
	switch o.Mode {
	case "", ModeVLLM, ModeSGLang:
		return nil
	}
	return fmt.Errorf("engine %q is not one the simulator speaks: use %s or %s", o.Mode, ModeVLLM, ModeSGLang)
}
