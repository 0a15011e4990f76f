package engine

import "time"

// Arrivals is how a load test spaces the requests of one rate.
type Arrivals string

// The arrival processes of a load test.
const (
	// ArrivalsPoisson spaces requests by exponential gaps (seeded), as
	// independent users arrive.
	ArrivalsPoisson Arrivals = "poisson"
	// ArrivalsConstant spaces requests evenly, 1/rate apart.
	ArrivalsConstant Arrivals = "constant"
	// ArrivalsBurst sends every request at once (LoadPlan.Burst).
	ArrivalsBurst Arrivals = "burst"
	// ArrivalsConcurrent keeps LoadResult.Concurrency requests open, each
	// sent as one ends, with no rate: how other tools' closed-loop runs
	// (GuideLLM's concurrent, AIPerf's --concurrency, vllm bench's
	// --max-concurrency without a rate) are imported.
	ArrivalsConcurrent Arrivals = "concurrent"
)

// TokenRange is a length of prompt or output: Min == Max for a fixed length,
// else drawn uniformly from [Min, Max] per request (seeded).
type TokenRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Fixed reports whether every request gets the same length.
func (t TokenRange) Fixed() bool { return t.Min == t.Max }

// LoadPlan is a load test: requests arriving at set rates, each rate
// measured in turn, with latency per request counted from its scheduled
// arrival (no coordinated omission).
type LoadPlan struct {
	// RatesRPS are the request rates to measure, in requests per second.
	// Empty with Sweep (rates chosen from the measured limit) or Burst.
	RatesRPS []float64 `json:"rates_rps,omitempty"`
	// Sweep first measures the throughput limit at high concurrency, then
	// SweepRates rates spread up to it (GuideLLM's sweep).
	Sweep      bool     `json:"sweep,omitempty"`
	SweepRates int      `json:"sweep_rates,omitempty"`
	Arrivals   Arrivals `json:"arrivals"`
	// Burst, when > 0, sends Burst requests at once, end to end, instead of
	// rates (the terminal tool's burst mode).
	Burst int `json:"burst,omitempty"`
	// Requests is how many requests each rate sends.
	Requests int `json:"requests"`
	// MaxConcurrency caps the requests open at once (0: no cap); a request
	// due while the cap is reached waits, and its wait counts in its latency.
	MaxConcurrency int        `json:"max_concurrency,omitempty"`
	InputTokens    TokenRange `json:"input_tokens"`
	OutputTokens   TokenRange `json:"output_tokens"`
	// Dataset, when set, is the JSONL file of real prompts the requests
	// use instead of sized ones (InputTokens then unused).
	Dataset string `json:"dataset,omitempty"`
	// Trace, when set, replays a request trace instead of rates, burst or
	// sweep: one result, its requests at the trace's times.
	Trace *TracePlan `json:"trace,omitempty"`
	// Conversations, when set, replays the dataset's conversations turn
	// by turn instead of rates: one result over every turn.
	Conversations *ConversationPlan `json:"conversations,omitempty"`
	Seed          int64             `json:"seed"`
	API           API               `json:"api"`
	// SLO decides goodput: the requests per second that meet it.
	SLO SLO `json:"slo,omitzero"`
}

// LoadResult is one rate of a load test: what its requests did, and the
// trust checks of its window.
type LoadResult struct {
	RateRPS  float64  `json:"rate_rps"` // 0 for a burst
	Arrivals Arrivals `json:"arrivals"`
	// Concurrency is how many requests an ArrivalsConcurrent row kept
	// open at once; 0 for every other row.
	Concurrency int    `json:"concurrency,omitempty"`
	Status      Status `json:"status"`
	Error       string `json:"error,omitempty"`
	Flags       []Flag `json:"flags,omitempty"`

	Requests  int     `json:"requests"`
	Completed int     `json:"completed"`
	Failed    int     `json:"failed"`
	DurationS float64 `json:"duration_s"` // first scheduled arrival to last finish

	RequestThroughputRPS float64 `json:"request_throughput_rps"`
	OutputTokPerSec      float64 `json:"output_tok_s"`
	InputTokens          int     `json:"input_tokens"`  // sent in all
	OutputTokens         int     `json:"output_tokens"` // received in all

	TTFTMs Percentiles `json:"ttft_ms"` // from scheduled arrival to first token
	TPOTMs Percentiles `json:"tpot_ms"` // per request: (E2E − TTFT) ÷ (output tokens − 1)
	ITLMs  Percentiles `json:"itl_ms"`  // every gap between tokens, all requests
	E2EMs  Percentiles `json:"e2e_ms"`  // from scheduled arrival to last token

	// GoodputRPS is completed requests per second that met the plan's SLO
	// (every completed request when the SLO is off).
	GoodputRPS float64 `json:"goodput_rps"`
	// BehindMs is how late, at most, the client sent a request after its
	// scheduled time; a late client is flagged, its latencies still count
	// from the schedule.
	BehindMs float64 `json:"behind_ms"`
	// MaxInFlight is the most requests open at once.
	MaxInFlight int `json:"max_in_flight"`

	Server    *ServerCheck `json:"server,omitempty"`
	DrainS    float64      `json:"drain_s,omitempty"`
	Telemetry *Telemetry   `json:"telemetry,omitempty"`
	// PrefixCache is what the server's prefix cache found of the rate's
	// prompts; nil when its /metrics has no prefix-cache figures.
	PrefixCache *PrefixCache `json:"prefix_cache,omitempty"`
	// Reasoning splits the completed requests' output into reasoning and
	// answer tokens, and gives the median time from a request's scheduled
	// send to its first answer token, when the replies streamed reasoning.
	Reasoning
	// Turns is, for a conversation replay, the TTFT and prompt of each
	// turn index (TurnStats).
	Turns []TurnStats `json:"turns,omitempty"`

	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
}

// LoadSection is a load test's part of report.json.
type LoadSection struct {
	Plan LoadPlan `json:"plan"`
	// LimitRPS is the throughput limit a sweep measured first (requests per
	// second at high concurrency); 0 without a sweep.
	LimitRPS float64 `json:"limit_rps,omitempty"`
	// Trace is what was replayed of the plan's trace, once read.
	Trace *TraceSummary `json:"trace,omitempty"`
	// Conversations is what was replayed of the plan's conversations,
	// once read.
	Conversations *ConversationSummary `json:"conversations,omitempty"`
	Results       []LoadResult         `json:"results"`
	// Imported names the tool whose results file the section was read
	// from (the same as the run's Import); nil for a load test Speed
	// Matrix ran.
	Imported *Import `json:"imported,omitempty"`
}

// The flags a load test's rate can raise besides the matrix's trust checks.
const (
	// FlagClientBehind: the client sent requests later than their schedule
	// (its machine is short of CPU); latencies still count from the
	// schedule, but the load offered was burstier than planned.
	FlagClientBehind FlagKind = "client_behind"
	// FlagFailedRequests: some of the rate's requests failed.
	FlagFailedRequests FlagKind = "failed_requests"
	// FlagPromptSize: the server counted prompts of other sizes than drawn:
	// a server without /tokenize, whose prompts are sized by estimate, or
	// sizes below the shortest prompt a test sends (its own start and the
	// chat template).
	FlagPromptSize FlagKind = "prompt_size"
)

// Rates are the request rates a load test measures, as planned: the
// burst's one row (rate 0), the rates given, or none yet for a sweep,
// whose rates come from the limit it measures first.
func (p LoadPlan) Rates() []float64 {
	if p.Burst > 0 || p.Trace != nil || p.Conversations != nil {
		return []float64{0}
	}
	if p.Sweep {
		return nil
	}
	return p.RatesRPS
}

// SweepRatesFor is the rates a sweep measures once it knows the limit:
// SweepRates (DefaultSweepRates when 0) rates evenly spaced from
// limit/SweepRates up to the limit. GuideLLM spreads them from the
// synchronous rate instead; evenly from the first step keeps the sweep to
// one measurement before the rates, and its first rate is as light as
// GuideLLM's is for any sweep of 8 or more rates.
func (p LoadPlan) SweepRatesFor(limitRPS float64) []float64 {
	n := p.SweepRates
	if n <= 0 {
		n = DefaultSweepRates
	}
	if limitRPS <= 0 {
		return nil
	}
	out := make([]float64, n)
	for i := range n {
		out[i] = limitRPS * float64(i+1) / float64(n)
	}
	out[n-1] = limitRPS // exactly, not a rounding above it
	return out
}

// DefaultSweepRates is how many rates a sweep measures unless set.
const DefaultSweepRates = 8

// SweepConcurrency is how many requests a sweep keeps open at once while it
// measures the throughput limit, unless MaxConcurrency caps it lower.
const SweepConcurrency = 64
