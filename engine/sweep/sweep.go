// Package sweep is a sweep's data and its answer: one plan run against
// several configurations of the same server (speedmatrix sweep, the app's
// "Compare settings…"), and per cell which configuration is fastest and by
// how much, with both windows' ± beside the margin. Its child
// engine/sweep/runner launches each configuration in turn and measures it;
// this package imports none of what that takes (launch, measure, runs,
// TOML), so that charts can draw a sweep from its data alone.
//
// A sweep's folder holds sweep.json (this package's Sweep: the
// configurations, their state and, once runs exist, the Answer), one
// ordinary run folder per configuration (DIR/NAME/), and the summary:
// sweep.md, sweep.csv, sweep-best.png/.svg and one delta heatmap per
// configuration against the baseline.
package sweep

import (
	"time"

	"speedmatrix/engine"
)

// Files of a sweep's folder.
const (
	JSONFile = "sweep.json"
	MDFile   = "sweep.md"
	CSVFile  = "sweep.csv"
	// BestName is the base name of the best-configuration heatmap
	// (sweep-best.png, sweep-best.svg).
	BestName = "sweep-best"
	// DeltaPrefix starts the base name of each configuration's delta
	// heatmap against the baseline: sweep-delta-FOLDER.png.
	DeltaPrefix = "sweep-delta-"
	// ParetoName is the base name of the Pareto chart of every
	// configuration's cells (sweep-pareto.png, sweep-pareto.svg).
	ParetoName = "sweep-pareto"
	// BaselineName is the name of the first configuration, the unchanged
	// server.toml.
	BaselineName = "baseline"
	// MaxConfigs is the largest grid a sweep runs without --yes (the app
	// asks): 64 vLLM start-ups take hours. HardMaxConfigs bounds it even so.
	MaxConfigs = 64
	// formatVersion is sweep.json's format.
	formatVersion = 1
)

// Setting is one server.toml key set to a value for a configuration. Value
// is written as in TOML ("4", "true", "\"fp8\"", "[0, 1]"), so that it
// keeps its type through sweep.json.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Status is where a configuration of a sweep stands.
type Status string

// A configuration's statuses, in the order a sweep moves through them.
const (
	StatusPending   Status = "Pending"   // not started yet
	StatusStarting  Status = "Starting"  // its server is starting
	StatusMeasuring Status = "Measuring" // its plan runs
	StatusDone      Status = "Done"      // its run completed (whatever its cells' statuses)
	StatusPartial   Status = "Partial"   // its run stopped before the end: --resume finishes it
	// StatusFailed is a server that did not start (out of memory, invalid
	// flag); Reason says why in one line, and the sweep went on.
	StatusFailed Status = "Failed to start"
)

// Config is one server configuration of a sweep and what became of it.
type Config struct {
	// Name is how every output names it: "baseline", or its settings
	// ("max_num_seqs=4 enforce_eager=true"), or the table's name in a
	// --vary-file.
	Name string `json:"name"`
	// Folder is its run folder, under the sweep's.
	Folder string `json:"folder"`
	// Settings are what it changes of server.toml; none for the baseline.
	Settings []Setting `json:"settings,omitempty"`
	Baseline bool      `json:"baseline,omitempty"`
	Status   Status    `json:"status"`
	// Reason is the one-line reason of a Failed or Partial one.
	Reason string `json:"reason,omitempty"`
	// StartupS is how long its server took to become ready; MeasureS how
	// long its plan ran (both summed over resumes).
	StartupS float64 `json:"startup_s,omitempty"`
	MeasureS float64 `json:"measure_s,omitempty"`
	// QualityS is how long its quality phase ran (summed over resumes).
	QualityS float64 `json:"quality_s,omitempty"`
	// ChangesOutput lists its settings that change what the model answers
	// (quantization, KV cache dtype, another model): faster, perhaps, but
	// not the same model quality.
	ChangesOutput []string `json:"changes_output,omitempty"`
	// Quality is what its quality phase found, in a sweep with one.
	Quality *ConfigQuality `json:"quality,omitempty"`
}

// Settled reports whether a sweep is done with c: its run completed, or
// its server did not start (which a resume tries again).
func (c Config) Settled() bool { return c.Status == StatusDone || c.Status == StatusFailed }

// Settled counts the configurations the sweep is done with.
func (s Sweep) Settled() int {
	n := 0
	for _, c := range s.Configs {
		if c.Settled() {
			n++
		}
	}
	return n
}

// Sweep is sweep.json: the plan every configuration runs, the
// configurations in order (the baseline first), the estimate and, once any
// run exists, the answer.
type Sweep struct {
	FormatVersion int `json:"sweep_version"`
	// Tool is the speedmatrix version that began the sweep.
	Tool string `json:"tool"`
	// Server is the server.toml the configurations vary (its path as given).
	Server string `json:"server_toml"`
	// ServerSHA256 is the digest of server.toml's text when the sweep
	// began: a resume refuses a changed file, whose configurations would
	// not be the ones measured.
	ServerSHA256 string `json:"server_toml_sha256"`
	// Origin is what the configurations were made of besides server.toml:
	// a resume makes them again from it and from server.toml, and runs
	// nothing else.
	Origin
	// Simulated is set when the configurations' servers were simulators
	// (a stand-in vllm that serves engine/sim): every export says so.
	Simulated bool        `json:"simulated,omitempty"`
	Plan      engine.Plan `json:"plan"`
	// Quality, when set, measures every configuration's drift against
	// the baseline's, recorded as the reference (speedmatrix sweep
	// --quality); the answer then names the best within its budget.
	Quality *QualitySetup `json:"quality,omitempty"`
	Configs []Config      `json:"configs"`
	Started time.Time     `json:"started"`
	Ended   time.Time     `json:"ended,omitzero"`
	// EstimateS is the estimate made before the first start-up, start-ups
	// included, from Prior (runner.EstimateBasis says what it assumed);
	// ActualS how long it took (without the pauses between resumes).
	EstimateS float64 `json:"estimate_s"`
	Prior     Prior   `json:"prior,omitzero"`
	ActualS   float64 `json:"actual_s,omitempty"`
	Answer    *Answer `json:"answer,omitempty"`
}

// Answer is the sweep's verdict: the headline figures of every
// configuration, then per decode cell the best one.
type Answer struct {
	Headlines []Headline   `json:"headlines"`
	Cells     []CellAnswer `json:"cells"`
	// Looped lists, for configurations whose settings change the model's
	// output, the cells that went Looped: "kv_cache_dtype=fp8: 64K × 1".
	Looped []string `json:"looped,omitempty"`
	// Budget is the quality budget the cells were answered by, when the
	// sweep measured quality ("kld=0.01,top1=98%").
	Budget string `json:"quality_budget,omitempty"`
}

// Headline is one configuration's row of the summary table. A figure the
// run doesn't have is 0 and its cell label empty.
type Headline struct {
	Config string `json:"config"`
	Status Status `json:"status"`
	// PeakTokS is the highest total tok/s of any Valid decode cell, at PeakCell ("8K × 64").
	PeakTokS float64 `json:"peak_total_tok_s,omitempty"`
	PeakCell string  `json:"peak_cell,omitempty"`
	// SingleTokS is total tok/s of one request at the smallest decode
	// context (SingleCell).
	SingleTokS float64 `json:"single_tok_s,omitempty"`
	SingleCell string  `json:"single_cell,omitempty"`
	// TTFTP50Ms is the TTFT median of the Valid decode cell with the
	// largest context (then the most requests) in this run, at TTFTCell.
	TTFTP50Ms     float64 `json:"ttft_p50_ms,omitempty"`
	TTFTCell      string  `json:"ttft_cell,omitempty"`
	KVCacheTokens int     `json:"kv_cache_tokens,omitempty"`
	StartupS      float64 `json:"startup_s,omitempty"`
	// LoopedCells of its DecodeCells went Looped.
	LoopedCells int `json:"looped_cells,omitempty"`
	DecodeCells int `json:"decode_cells,omitempty"`
}

// CellAnswer is one decode cell (context × concurrency) across the
// configurations.
type CellAnswer struct {
	ContextTokens int    `json:"context_tokens"`
	Concurrency   int    `json:"concurrency"`
	Label         string `json:"label"` // "8K × 16"
	// Entries are every configuration's figure or status, in the sweep's order.
	Entries []Entry `json:"entries"`
	// Best is the configuration with the highest Valid total tok/s; ""
	// when none has one.
	Best string `json:"best,omitempty"`
	// OverBaseline and OverRunnerUp are Best's margins. OverBaseline is
	// absent when Best is the baseline; OverRunnerUp when no other
	// configuration has this cell Valid (then its status says why).
	OverBaseline *Margin `json:"over_baseline,omitempty"`
	OverRunnerUp *Margin `json:"over_runner_up,omitempty"`
	// WithinBudget is, in a sweep that measured quality, the fastest
	// Valid configuration within the quality budget at this cell's
	// context (withinBudget); "" when none is. Where it is not Best,
	// BestDrift is Best's drift there (nil: not measured) and
	// WithinOverBaseline its own margin (nil when it is the baseline).
	WithinBudget string `json:"within_budget,omitempty"`
	// BudgetMissed is set when Best is not within the budget here.
	BudgetMissed       bool    `json:"budget_missed,omitempty"`
	BestDrift          *Drift  `json:"best_drift,omitempty"`
	WithinOverBaseline *Margin `json:"within_over_baseline,omitempty"`
}

// Entry is one configuration's result in one cell.
type Entry struct {
	Config string        `json:"config"`
	Status engine.Status `json:"status"` // "" when its run has no such cell (it failed to start)
	TokS   float64       `json:"total_tok_s,omitempty"`
	// CIPct is the 95 % half-width of TokS in percent; 0 when unknown.
	CIPct float64 `json:"ci_pct,omitempty"`
	// Drift is its drift against the reference at this cell's context
	// (ConfigQuality.DriftAt); nil where none was measured.
	Drift *Drift `json:"drift,omitempty"`
}

// Margin is how much faster Best is than another configuration in a cell.
type Margin struct {
	Of string `json:"of"`
	// Gain is Best's total tok/s over Of's, less one (0.12: 12 % faster);
	// 0 when Of has no Valid figure (Status says what it has).
	Gain float64 `json:"gain,omitempty"`
	// NoisePct is the margin both windows' ± allow, in percent: the sum
	// of their 95 % half-widths (or the assumed floor where one is unknown);
	// each is its window's, not a re-run's (engine.RerunCaveat).
	NoisePct float64 `json:"noise_pct,omitempty"`
	// NoDifference is set when Gain is within NoisePct: the runs can't tell
	// the two apart.
	NoDifference bool `json:"no_difference,omitempty"`
	// Status is Of's status when it isn't Valid (Over capacity, Failed…).
	Status engine.Status `json:"status,omitempty"`
}

// Origin is what a sweep's configurations were made of besides
// server.toml: the --vary options as given (the app writes its fields the
// same way), or a --vary-file with the digest of its text. A resume makes
// the configurations again from them and refuses a sweep.json whose
// configurations differ: a results file is data, never instructions.
type Origin struct {
	Vary []string `json:"vary,omitempty"`
	// VaryFile is the --vary-file's path as given; VaryFileSHA256 the
	// digest of its text, which a resume compares as it does server.toml's.
	VaryFile       string `json:"vary_file,omitempty"`
	VaryFileSHA256 string `json:"vary_file_sha256,omitempty"`
}

// HardMaxConfigs is the most configurations a sweep runs, --yes or not:
// a thousand start-ups of vLLM take days; a larger grid is several sweeps.
const HardMaxConfigs = 1024
