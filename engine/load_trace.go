package engine

// ArrivalsTrace: requests arrive at a trace's timestamps (LoadPlan.Trace).
const ArrivalsTrace Arrivals = "trace"

// FieldTrace is a load plan's trace file, for what is wrong with it.
const FieldTrace PlanField = "trace"

// TracePlan replays a request trace (Mooncake's JSONL, engine/trace)
// instead of rates: each request at its timestamp, scaled, with a prompt
// built from its hash ids, blocks of BlockSize tokens, equal ids equal
// blocks.
type TracePlan struct {
	// File is the trace's path, read when the test starts.
	File string `json:"file"`
	// TimeScale multiplies the timestamps (0.5: twice as fast); 0 means 1.
	TimeScale float64 `json:"time_scale,omitempty"`
	// BlockSize is the tokens per hash id; 0 means Mooncake's 512.
	BlockSize int `json:"block_size,omitempty"`
	// MaxRequests replays the trace's first requests only; 0: all of them.
	MaxRequests int `json:"max_requests,omitempty"`
}

// TraceSummary is what was replayed of a trace, in report.json: what a
// reader needs to judge its rate's figures beside the file.
type TraceSummary struct {
	Name      string  `json:"name"` // the file's base name
	Requests  int     `json:"requests"`
	SpanS     float64 `json:"span_s"` // first arrival to last, scaled
	TimeScale float64 `json:"time_scale"`
	BlockSize int     `json:"block_size"`
	// InputTokens and OutputTokens are what the trace asks for in all.
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// TraceHitRate is the share of its prompt tokens an unbounded prefix
	// cache would hold, from its hash ids (0..1).
	TraceHitRate float64 `json:"trace_hit_rate"`
	// Sorted: its timestamps were out of order, and were sorted.
	Sorted bool `json:"sorted,omitempty"`
	// Cut says why fewer requests were replayed than the file holds.
	Cut string `json:"cut,omitempty"`
}
