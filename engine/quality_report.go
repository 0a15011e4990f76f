package engine

import (
	"fmt"
	"time"
)

// The quality section of a report, and quality.json: the types engine/quality
// fills (the quality issue). They live here, with Report, so that report.json
// can carry them; engine/quality names them too.

// QualityHeader is what a reference says about itself, and the "reference"
// section of quality.json: who was recorded, with which settings.
type QualityHeader struct {
	FormatVersion int `json:"format_version"`
	// Model is the model id the server reported.
	Model string `json:"model"`
	// Tokenizer is the tokenizer's fingerprint (Fingerprint).
	Tokenizer string     `json:"tokenizer"`
	Server    ServerInfo `json:"engine"`
	// Settings are the server's settings that can change what it
	// computes (dtype, kv_cache_dtype, quantization…), as written.
	Settings map[string]string `json:"settings,omitempty"`
	// K is how many top logprobs each position asked for.
	K int `json:"k"`
	// ContinuationTokens is how many greedy tokens each probe asked for.
	ContinuationTokens int `json:"continuation_tokens"`
	// Contexts are the context lengths probed, in tokens, ascending.
	Contexts []int `json:"contexts"`
	// Seed chose the probe texts.
	Seed       uint64    `json:"seed"`
	RecordedAt time.Time `json:"recorded_at"`
}

// QualityReport is quality.json: the reference compared with, its noise floor,
// and the drift per context. Other tools read these names: keep them.
type QualityReport struct {
	Reference QualityHeader `json:"reference"`
	// Server is the server compared with the reference.
	Server     QualityServer  `json:"server"`
	NoiseFloor NoiseFloor     `json:"noise_floor"`
	Contexts   []ContextDrift `json:"contexts"`
	// Needle is the needle task per context, each paired with the
	// reference's run of the same trials where it has one.
	Needle []NeedleContext `json:"needle,omitempty"`
	// Tasks is the task file's run, paired with the reference's.
	Tasks *TaskRun `json:"tasks,omitempty"`
	// Budget is the budget the contexts were judged against, and
	// Verdicts the judgement per context.
	Budget   string          `json:"budget,omitempty"`
	Verdicts []QualityJudged `json:"verdicts,omitempty"`
	// ReferenceFile and ReferenceSHA256 name the reference file a run's
	// quality phase compared with (report.json; its name only, never a
	// path to read): a resumed phase checks that the file given again is
	// the same one.
	ReferenceFile   string `json:"reference_file,omitempty"`
	ReferenceSHA256 string `json:"reference_sha256,omitempty"`
}

// QualityServer names a server compared with a reference: its model, its
// tokenizer's fingerprint and its engine (simulated when it is).
type QualityServer struct {
	Model     string     `json:"model"`
	Tokenizer string     `json:"tokenizer"`
	Server    ServerInfo `json:"engine"`
}

// QualityJudged is one context's drift judged: real (above the noise floor
// beyond both intervals; false where there is no floor, Floor false) and
// over the budget.
type QualityJudged struct {
	ContextTokens int  `json:"context_tokens"`
	Floor         bool `json:"floor"`
	Real          bool `json:"real"`
	OverBudget    bool `json:"over_budget"`
}

// NoiseFloor is the reference server against itself, per context: each
// probe recorded alone and again under load. Batched kernels are not
// batch-invariant, so this is what "no difference" measures.
type NoiseFloor struct {
	Contexts []ContextDrift `json:"contexts"`
}

// QualityInterval is a 95 % interval, Lo ≤ Hi.
type QualityInterval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// QualityIntervals are a context's 95 % bootstrap intervals, one per figure,
// named as the figures are.
type QualityIntervals struct {
	Top1Pct               QualityInterval `json:"top1_pct"`
	KLDMean               QualityInterval `json:"kld_mean"`
	KLDMedian             QualityInterval `json:"kld_median"`
	KLDP99                QualityInterval `json:"kld_p99"`
	KLDMax                QualityInterval `json:"kld_max"`
	DPMean                QualityInterval `json:"dp_mean"`
	FirstDivergenceMedian QualityInterval `json:"first_divergence_median"`
}

// ContextDrift is the drift at one context, over the positions of all its
// probes pooled: each position counts once, so a longer probe weighs more.
// With one probe the intervals are the figures themselves: one probe
// measures no spread between probes.
type ContextDrift struct {
	ContextTokens int `json:"context_tokens"`
	Probes        int `json:"probes"`
	// Positions is how many positions were compared.
	Positions int `json:"positions"`
	// Top1Pct is the share of positions whose most probable tokens agree.
	Top1Pct float64 `json:"top1_pct"`
	// KLDMean … KLDMax are the KL divergence's mean, median, 99th
	// percentile and largest, in nats (Compare).
	KLDMean   float64 `json:"kld_mean"`
	KLDMedian float64 `json:"kld_median"`
	KLDP99    float64 `json:"kld_p99"`
	KLDMax    float64 `json:"kld_max"`
	// DPMean is the mean change in the probability of the reference's
	// most probable token.
	DPMean float64 `json:"dp_mean"`
	// FirstDivergenceMedian is, over probes, the median of how many
	// positions agree on the top token before the first that does not (a
	// probe that never diverges counts all its positions).
	FirstDivergenceMedian float64 `json:"first_divergence_median"`
	// SameTokensPct is the share of positions whose two top-K list the
	// same tokens, where the KLD assumed nothing (Compare).
	SameTokensPct float64          `json:"same_tokens_pct"`
	CI            QualityIntervals `json:"ci"`
}

// NeedleContext is the needle task at one context: trial i was built from
// Seed+i, so another run with the same seed and text asks the same
// questions and the two pair.
type NeedleContext struct {
	ContextTokens int    `json:"context_tokens"`
	Seed          uint64 `json:"seed"`
	// Correct says, per trial, whether the key came back exactly.
	Correct []bool `json:"correct"`
	// AccuracyPct is the share right, with its Wilson interval (CI, in
	// percent).
	AccuracyPct float64         `json:"accuracy_pct"`
	CI          QualityInterval `json:"ci"`
	// Reference is this run against the reference's run of the same
	// trials; nil when the reference ran none at this context.
	Reference *PairedRuns `json:"reference,omitempty"`
}

// PairedRuns is the exact McNemar test of two runs of the same items: how
// many each got right of how many, the discordant pairs, and p.
type PairedRuns struct {
	Items      int     `json:"items"`
	Before     int     `json:"before"`
	After      int     `json:"after"`
	BeforeOnly int     `json:"before_only"`
	AfterOnly  int     `json:"after_only"`
	P          float64 `json:"p"`
}

// TaskRun is a task file's items asked of one server: right or wrong per
// item, in the file's order. Digest names the file's items (TasksDigest),
// so that only a run of the same items pairs with it.
type TaskRun struct {
	File   string `json:"file"`
	Digest string `json:"digest"`
	Items  int    `json:"items"`
	// Correct says, per item asked so far, whether the answer matched.
	Correct     []bool          `json:"correct"`
	AccuracyPct float64         `json:"accuracy_pct"`
	CI          QualityInterval `json:"ci"`
	// Reference is this run against the reference's run of the same
	// items, and Flipped the items whose verdict changed; nil and empty
	// when the reference ran none of them (or not all).
	Reference *PairedRuns `json:"reference,omitempty"`
	Flipped   []TaskFlip  `json:"flipped,omitempty"`
}

// TaskFlip is an item right in one run and wrong in the other.
type TaskFlip struct {
	Line   int    `json:"line"`   // its line in the task file
	Prompt string `json:"prompt"` // its prompt's start
	// Now is whether this run got it right (the reference did not), or
	// wrong (the reference did).
	Now bool `json:"now_right"`
}

// At is the floor's figures at a context, when it has any positions there.
func (f NoiseFloor) At(contextTokens int) (ContextDrift, bool) {
	for _, c := range f.Contexts {
		if c.ContextTokens == contextTokens && c.Positions > 0 {
			return c, true
		}
	}
	return ContextDrift{}, false
}

// String is the pair as a report line says it: "19/20 → 12/20, p = 0.016".
func (p PairedRuns) String() string {
	return fmt.Sprintf("%d/%d → %d/%d, p = %.3g", p.Before, p.Items, p.After, p.Items, p.P)
}

// MaxQualityItems is the most needle trials at one context, or task items,
// a quality section read from a file may hold.
const MaxQualityItems = 100_000

// Problem is what makes a quality section read from a file more than a
// run measures ("" when nothing): more contexts than a plan has levels,
// more trials or items than MaxQualityItems.
func (q *QualityReport) Problem() string {
	for _, n := range []struct {
		what string
		n    int
	}{{"drift contexts", len(q.Contexts)}, {"noise-floor contexts", len(q.NoiseFloor.Contexts)}, {"verdicts", len(q.Verdicts)}, {"needle contexts", len(q.Needle)}} {
		if n.n > MaxLevels {
			return fmt.Sprintf("its quality section has %d %s; at most %d", n.n, n.what, MaxLevels)
		}
	}
	for _, n := range q.Needle {
		if len(n.Correct) > MaxQualityItems {
			return fmt.Sprintf("its quality section has %d needle trials at %d tokens; at most %d", len(n.Correct), n.ContextTokens, MaxQualityItems)
		}
	}
	if t := q.Tasks; t != nil && (t.Items > MaxQualityItems || len(t.Correct) > t.Items || len(t.Flipped) > len(t.Correct)) {
		return fmt.Sprintf("its quality section's task run has %d of %d items and %d flipped; at most %d items", len(t.Correct), t.Items, len(t.Flipped), MaxQualityItems)
	}
	return ""
}

// Right is how many of a run's items (needle trials, task items) were
// right.
func Right(correct []bool) int {
	n := 0
	for _, c := range correct {
		if c {
			n++
		}
	}
	return n
}

// Words is how a report says which way an item flipped: "now right" (the
// reference got it wrong) or "now wrong".
func (f TaskFlip) Words() string {
	if f.Now {
		return "now right"
	}
	return "now wrong"
}

// PairedLine is a run against the reference's run of the same items
// (PairedRuns.String), or, where the reference ran none, that it has no
// run of these items ("trials", "items").
func PairedLine(p *PairedRuns, items string) string {
	if p == nil {
		return "no reference run of these " + items
	}
	return p.String()
}
