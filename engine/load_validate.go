package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The settings of a load plan a PlanError can be about.
const (
	FieldRates          PlanField = "rates"
	FieldSweepRates     PlanField = "sweep_rates"
	FieldArrivals       PlanField = "arrivals"
	FieldBurst          PlanField = "burst"
	FieldRequests       PlanField = "requests"
	FieldMaxConcurrency PlanField = "max_concurrency"
	FieldInputTokens    PlanField = "input_tokens"
	FieldOutputTokens   PlanField = "output_tokens"
	FieldDataset        PlanField = "dataset"
)

// The bounds of a load plan: past them a test sends more than any server
// serves, or runs for days.
const (
	// MaxRateRPS is the highest request rate a load test offers: more
	// than a client on one machine sends on time.
	MaxRateRPS = 10_000
	// MaxLoadRequests is the most requests one rate sends.
	MaxLoadRequests = 1_000_000
	// MaxLoadRates is the most rates a load test measures.
	MaxLoadRates = 64
	// MinLoadInputTokens is the shortest prompt a load test asks for. Its
	// own start (unique words and the run's id) and the chat template take
	// some 30 to 60 tokens, depending on the tokenizer: a prompt drawn
	// shorter is sent at that size, warned of and flagged.
	MinLoadInputTokens = 32
	// MaxLoadOutputTokens bounds what one rate receives, requests × the
	// longest output: every token's arrival is kept until the rate ends
	// (8 bytes each, 512 MiB at the bound).
	MaxLoadOutputTokens = 64 << 20
	// maxLoadDuration bounds one rate: requests ÷ rate.
	maxLoadDuration = 24 * time.Hour
)

// ValidateLoadPlan rejects load plans that cannot run on a server with
// these limits (zero: unknown), saying what is wrong with each setting:
// the one check of a load plan, for the CLI's flags, the app's fields and
// the run. --burst above the server's max_num_seqs is a warning
// (LoadWarnings), not an error: the server queues the rest.
func ValidateLoadPlan(p LoadPlan, l Limits) error {
	var bad []PlanProblem
	add := func(f PlanField, format string, a ...any) {
		bad = append(bad, PlanProblem{f, fmt.Sprintf(format, a...)})
	}
	modes := 0
	for _, on := range []bool{len(p.RatesRPS) > 0, p.Sweep, p.Burst != 0, p.Trace != nil, p.Conversations != nil} {
		if on {
			modes++
		}
	}
	switch {
	case modes == 0:
		add(FieldRates, "no rate to measure: give request rates per second like 1,2,4,8, or sweep, or a burst, or a trace, or conversations")
	case modes > 1:
		add(FieldRates, "give one of rates, sweep, burst, a trace and conversations")
	}
	switch {
	case p.Trace != nil:
		return traceValidation(p, bad)
	case p.Conversations != nil:
		return conversationValidation(p, l, bad)
	}
	bad = append(bad, rateProblems(p)...)
	if p.Burst < 0 {
		add(FieldBurst, "%d requests at once: use 1 to %d", p.Burst, p.MaxOpen())
	} else if s := OpenProblem(p.Burst, p.InputTokens.Max); s != "" {
		add(FieldBurst, "%s", s)
	}
	if p.Burst == 0 && (p.Requests < 1 || p.Requests > MaxLoadRequests) {
		add(FieldRequests, "%d requests per rate: use 1 to %d", p.Requests, MaxLoadRequests)
	}
	if n := max(p.Requests, p.Burst); p.OutputTokens.Max > 0 && n > 0 && int64(n)*int64(p.OutputTokens.Max) > MaxLoadOutputTokens {
		add(FieldRequests, "%d requests of up to %d output tokens are more tokens than a rate keeps (%d million): lower the requests or the output tokens",
			n, p.OutputTokens.Max, MaxLoadOutputTokens>>20)
	}
	if p.MaxConcurrency < 0 || p.MaxConcurrency > MaxConcurrency {
		add(FieldMaxConcurrency, "%d requests at once: use 0 (no cap) to %d", p.MaxConcurrency, min(MaxConcurrency, p.MaxOpen()))
	} else if s := OpenProblem(p.MaxConcurrency, p.InputTokens.Max); s != "" {
		add(FieldMaxConcurrency, "%s", s)
	}
	if p.Dataset == "" {
		if s := rangeProblem(p.InputTokens, MinLoadInputTokens); s != "" {
			add(FieldInputTokens, "%s", s)
		}
	}
	if s := rangeProblem(p.OutputTokens, 1); s != "" {
		add(FieldOutputTokens, "%s", s)
	}
	if fit := p.InputTokens.Max + p.OutputTokens.Max; l.MaxModelLen > 0 && p.Dataset == "" && rangeProblem(p.InputTokens, 1) == "" && fit > l.MaxModelLen {
		add(FieldInputTokens, "%d prompt and %d output tokens do not fit the model's max_model_len %d: lower the longest prompt or output",
			p.InputTokens.Max, p.OutputTokens.Max, l.MaxModelLen)
	}
	return withAPIAndSLO(p, bad)
}

// traceValidation checks a trace's plan: the trace file and its lengths
// are checked when it is read (engine/trace), the rest here. bad holds
// what is wrong already.
func traceValidation(p LoadPlan, bad []PlanProblem) error {
	add := func(f PlanField, format string, a ...any) {
		bad = append(bad, PlanProblem{f, fmt.Sprintf(format, a...)})
	}
	switch {
	case strings.TrimSpace(p.Trace.File) == "":
		add(FieldTrace, "no trace file: give a Mooncake JSONL trace")
	case p.Dataset != "":
		add(FieldDataset, "a trace builds its own prompts from its hash ids: give a trace or a dataset, not both")
	}
	if p.MaxConcurrency < 0 || p.MaxConcurrency > MaxConcurrency {
		add(FieldMaxConcurrency, "%d requests at once: use 0 (no cap) to %d", p.MaxConcurrency, MaxConcurrency)
	}
	return withAPIAndSLO(p, bad)
}

// withAPIAndSLO is bad with what is wrong with p's API and SLO, as a
// PlanError; nil when nothing is.
func withAPIAndSLO(p LoadPlan, bad []PlanProblem) error {
	if p.API != APIChat && p.API != APICompletions {
		bad = append(bad, PlanProblem{FieldAPI, fmt.Sprintf("%q is not an API: use chat or completions", p.API)})
	}
	bad = append(bad, sloProblems(p.SLO)...)
	if len(bad) > 0 {
		return &PlanError{Problems: bad}
	}
	return nil
}

// rateProblems are what is wrong with a plan's rates and arrivals.
func rateProblems(p LoadPlan) []PlanProblem {
	var bad []PlanProblem
	add := func(f PlanField, format string, a ...any) {
		bad = append(bad, PlanProblem{f, fmt.Sprintf(format, a...)})
	}
	switch {
	case len(p.RatesRPS) > MaxLoadRates:
		add(FieldRates, "%d rates, more than the %d a load test may have", len(p.RatesRPS), MaxLoadRates)
	case slices.ContainsFunc(p.RatesRPS, func(r float64) bool { return !(r > 0) }):
		add(FieldRates, "a rate of 0 or below sends nothing: give requests per second above 0")
	case slices.ContainsFunc(p.RatesRPS, func(r float64) bool { return r > MaxRateRPS }):
		add(FieldRates, "%g requests per second is more than a client sends on time: use at most %d", slices.Max(p.RatesRPS), MaxRateRPS)
	// In seconds, as floating point: a tiny rate's duration overflows a
	// time.Duration, wraps negative and would pass.
	case len(p.RatesRPS) > 0 && p.Requests > 0 && !(float64(p.Requests)/slices.Min(p.RatesRPS) <= maxLoadDuration.Seconds()):
		add(FieldRates, "%d requests at %g per second take more than a day: raise the rate or lower the requests", p.Requests, slices.Min(p.RatesRPS))
	}
	if p.Sweep && (p.SweepRates < 0 || p.SweepRates > MaxLoadRates) {
		add(FieldSweepRates, "%d rates: use 1 to %d", p.SweepRates, MaxLoadRates)
	}
	if p.Burst == 0 && p.Arrivals != ArrivalsPoisson && p.Arrivals != ArrivalsConstant {
		add(FieldArrivals, "%q is not an arrival process: use poisson or constant", p.Arrivals)
	}
	return bad
}

// rangeProblem is what is wrong with a token range whose lengths must be
// at least least, or "".
func rangeProblem(t TokenRange, least int) string {
	switch {
	case t.Min < least:
		return fmt.Sprintf("%d tokens: use at least %d", t.Min, least)
	case t.Max < t.Min:
		return fmt.Sprintf("the range %d:%d runs backwards: give the shorter length first", t.Min, t.Max)
	case t.Max > MaxContextTokens:
		return fmt.Sprintf("%d tokens are more than any model's context: use at most %d", t.Max, MaxContextTokens)
	}
	return ""
}

// LoadWarnings are what may make a valid load plan measure less than it
// seems: a burst above the server's max_num_seqs, whose extra requests
// wait in its queue (and their wait counts in their TTFT).
func LoadWarnings(p LoadPlan, l Limits) []PlanProblem {
	if l.MaxNumSeqs > 0 && p.Burst > l.MaxNumSeqs {
		return []PlanProblem{{FieldBurst, fmt.Sprintf("%d requests at once are more than the server runs (max_num_seqs %d): the rest wait in its queue, and their wait counts in their TTFT",
			p.Burst, l.MaxNumSeqs)}}
	}
	return nil
}
