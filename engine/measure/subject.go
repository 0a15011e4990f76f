package measure

import (
	"speedmatrix/engine"
	"time"
)

// Target is the server a run measures and how to talk to it.
type Target struct {
	BaseURL string // e.g. http://127.0.0.1:8000
	APIKey  string
	Model   string // served model name; empty: the first one /v1/models lists
	// FirstTokenTimeout is how long a request may wait for its first token
	// (0: five minutes, long enough for a 128K prefill on a small GPU).
	FirstTokenTimeout time.Duration
	// StallTimeout is how long a request that has produced a token may go
	// without a byte before it counts as stalled (0: 30 s).
	StallTimeout time.Duration
	// RequestTimeout bounds every non-streaming request: models, tokenize,
	// metrics, health, version (0: 30 s).
	RequestTimeout time.Duration
}

// RunOptions are what a run knows besides its plan and its server: the
// report sections known before it, an earlier run to finish, where
// hardware telemetry comes from, and whether the server's process lives.
type RunOptions struct {
	// Header holds the report sections the caller knows before the run
	// (Hardware, Engine, LaunchCommand, Run.Model, Run.BenchmarkTool); Run
	// fills in the rest.
	Header engine.Report
	// Resume, when set, is an earlier run of the same plan to finish.
	Resume *Resume
	// Telemetry, when set, is summarised over each cell's window.
	Telemetry engine.TelemetrySource
	// ServingGPUs are the GPUs that serve the model (a launched server's
	// CUDA_VISIBLE_DEVICES, say): J/token sums their power. Empty: every
	// GPU Telemetry samples.
	ServingGPUs []engine.GPUKey
	// Alive, when set, is asked between and during cells; an error means the
	// server process died: the run ends at once, incomplete and resumable.
	Alive func() error
	// AllowBusy measures a server that other clients use: the idle check
	// and the drain barrier are off, and every decode cell is flagged.
	AllowBusy bool
	// IdleWait is how long the idle check waits for another client's
	// requests to end before it refuses the run (zero: 30 s).
	IdleWait time.Duration
	// IdlePowerWindow is how long the GPUs' idle power is read before the
	// first cell (zero: 5 s); the simulator's is 5 model seconds.
	IdlePowerWindow time.Duration
	// Output, when set, receives the text that one stream of each decode
	// cell generates, as it arrives (see OutputTap).
	Output *OutputTap
	// RooflineFor, when set and the Header has no roofline facts, gives
	// them once the server has said which model it serves: the model's
	// Hugging Face id or folder (from /v1/models), else its served name.
	RooflineFor func(model string) *engine.RooflineFacts
	// SimulatorFor, when set, gives the report header of a simulator
	// profile (simtarget.Header): a run that finds Speed Matrix's
	// simulator at the endpoint (speedmatrix sim names its profile in
	// /version) reports that profile's simulated rig and roofline as its
	// Hardware, not the hardware the Header describes; ok is false for a
	// profile this build does not know.
	SimulatorFor func(profile string) (h engine.Report, ok bool)
}

// Subject is a server to measure as whoever found or started it describes
// it: its Target, and the RunOptions that come with it.
type Subject struct {
	Target
	RunOptions
}

// Resume is an earlier, unfinished run to finish: Run keeps its finished
// cells and measures the others (Failed, Cancelled, Not run).
type Resume struct {
	Report engine.Report // what the earlier run saved
	// KeepFailed keeps its Failed cells instead of measuring them again.
	KeepFailed bool
	// Force measures even when the server is not the one the run began with.
	Force bool
}
