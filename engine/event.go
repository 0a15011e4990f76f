package engine

import (
	"time"
)

// EventKind says what an Event carries.
type EventKind int

// Kinds of events emitted by Run.
const (
	EventProgress EventKind = iota // Progress is set
	EventLog                       // Log is set
	EventServer                    // Server is set
	EventResult                    // Result is set: one cell finished
	EventDone                      // the run ended; Report holds everything, Err why it stopped early
	EventLoad                      // Load is set: one rate of a load test finished
)

// Event is one thing that happened during a run. Run sends them on a channel
// that it closes after the EventDone event.
type Event struct {
	Kind     EventKind
	Time     time.Time
	Progress *Progress
	Log      string
	Server   *ServerSample
	Result   *Result
	Load     *LoadResult
	// Report is a snapshot of the whole report so far, set on EventResult
	// (so the consumer can save after every cell) and on EventDone.
	Report *Report
	Err    error
}

// Progress is where a run stands.
type Progress struct {
	CellIndex int // 1-based index of the current cell
	CellCount int
	Cell      Cell
	Elapsed   time.Duration
	ETA       time.Duration // estimated time left for the whole run
	// LiveTokPerSec is the current cell's output rate over the last second.
	LiveTokPerSec float64
	// Load is where a load test stands within its current rate (CellIndex
	// and CellCount then count rates); nil for a matrix run.
	Load *LoadProgress
	// Quality is where a run's quality phase stands, after its cells
	// (CellIndex is then CellCount); nil while cells are measured.
	Quality *QualityProgress
}

// QualityProgress is where a quality phase stands: Step ("record",
// "compare", "needle", "tasks") at ContextTokens (0 for tasks), Done of Of
// probes, trials or items begun.
type QualityProgress struct {
	Step          string
	ContextTokens int
	Done, Of      int
}

// LoadProgress is where a load test stands within one rate.
type LoadProgress struct {
	RateRPS   float64 // the rate being measured; 0 for a burst
	Sent      int     // requests sent so far
	Done      int     // requests finished (completed or failed)
	Requests  int     // requests the rate sends in all
	InFlight  int     // requests open now
	BehindMs  float64 // how late the client sends, now, behind the schedule
	Completed int
	Failed    int
}

// ServerSample is the server's state scraped from /metrics.
type ServerSample struct {
	Running      int     `json:"running"`
	Waiting      int     `json:"waiting"`
	KVUsagePct   float64 `json:"kv_usage_pct"`
	GenTokens    float64 `json:"generation_tokens_total"`
	PromptTokens float64 `json:"prompt_tokens_total"`
}
