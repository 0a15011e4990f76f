package sweep

import (
	"fmt"

	"speedmatrix/engine"
	"speedmatrix/engine/quality"
)

// ReferenceFile is the quality reference a sweep with quality records of
// its baseline, in the sweep's folder.
const ReferenceFile = "baseline.quality.json"

// QualitySetup is a sweep's quality phase (speedmatrix sweep --quality):
// the baseline is recorded as the reference after its matrix, and every
// other configuration is compared with it after its own (probe.Run).
type QualitySetup struct {
	// Budget is the quality budget cells are answered by, as
	// quality.ParseBudget reads it ("kld=0.01,top1=98%").
	Budget string `json:"budget"`
	// NeedleTrials per context (0: no needle task).
	NeedleTrials int `json:"needle_trials"`
	// Probes per context and ContinuationTokens per probe of the
	// reference (0: probe's defaults).
	Probes             int `json:"probes,omitempty"`
	ContinuationTokens int `json:"continuation_tokens,omitempty"`
	// ReferenceSHA256 is the digest of ReferenceFile once its recording
	// finished; "" before. A resume refuses a file of another digest.
	ReferenceSHA256 string `json:"reference_sha256,omitempty"`
}

// QualityState is where a configuration's quality phase stands.
type QualityState string

// A configuration's quality states.
const (
	QualityPending     QualityState = ""             // not begun
	QualityPartial     QualityState = "partial"      // interrupted: a resume goes on from its report's quality section
	QualityMeasured    QualityState = "measured"     // compared with the reference (or, for the baseline, recorded as it)
	QualityNotMeasured QualityState = "not measured" // Reason says why; the sweep went on
)

// ConfigQuality is what a configuration's quality phase found, as the
// answer reads it; its run's report.json holds the whole section.
type ConfigQuality struct {
	State QualityState `json:"state"`
	// Reason says why the quality was not measured, in one line.
	Reason string `json:"reason,omitempty"`
	// Reference is set on the baseline: it is the reference, and drifts
	// from nothing.
	Reference bool `json:"reference,omitempty"`
	// AwaitsReference is a quality not measured for want of the
	// baseline's reference: a resume that records it measures this one.
	AwaitsReference bool `json:"awaits_reference,omitempty"`
	// Contexts are the drift per context compared, ascending.
	Contexts []Drift `json:"contexts,omitempty"`
}

// Drift is one context's drift against the reference, judged by the
// sweep's budget (quality.Budget.Check, the noise floor deciding what is
// real).
type Drift struct {
	ContextTokens int     `json:"context_tokens"`
	Top1Pct       float64 `json:"top1_pct"`
	KLDMean       float64 `json:"kld_mean"`
	// Real is whether the drift is above the noise floor beyond both
	// intervals.
	Real bool `json:"real,omitempty"`
	// Top1Over and KLDOver say which of the budget's bounds it breaks.
	Top1Over bool `json:"top1_over,omitempty"`
	KLDOver  bool `json:"kld_over,omitempty"`
}

// Over reports whether the drift is over the budget.
func (d Drift) Over() bool { return d.Top1Over || d.KLDOver }

// DriftsOf is report r's drift per context judged by budget b.
func DriftsOf(r quality.Report, b quality.Budget) []Drift {
	var out []Drift
	for _, c := range r.Contexts {
		if c.Positions == 0 {
			continue
		}
		floor, _ := r.NoiseFloor.At(c.ContextTokens)
		v, _ := quality.Judge(c, floor)
		check := b.Check(c, floor)
		out = append(out, Drift{ContextTokens: c.ContextTokens, Top1Pct: c.Top1Pct, KLDMean: c.KLDMean, Real: v.Real(),
			Top1Over: check.Top1Over, KLDOver: check.KLDOver})
	}
	return out
}

// DriftAt is the drift that stands for a cell of ctx tokens: the nearest
// context compared at or above it (drift grows with context, so a shorter
// one would flatter it), else the longest compared. ok is false when
// nothing was compared.
func (q *ConfigQuality) DriftAt(ctx int) (Drift, bool) {
	if q == nil || len(q.Contexts) == 0 {
		return Drift{}, false
	}
	for _, d := range q.Contexts {
		if d.ContextTokens >= ctx {
			return d, true
		}
	}
	return q.Contexts[len(q.Contexts)-1], true
}

// Worst is the drift a configuration is summed up by: the first context
// over the budget (the shortest that breaks it), else the longest.
func (q *ConfigQuality) Worst() (Drift, bool) {
	if q == nil || len(q.Contexts) == 0 {
		return Drift{}, false
	}
	for _, d := range q.Contexts {
		if d.Over() {
			return d, true
		}
	}
	return q.Contexts[len(q.Contexts)-1], true
}

// qualityProblem is why s's quality sections are not ones a sweep writes;
// "" when they are.
func (s Sweep) qualityProblem() string {
	if s.Quality != nil {
		if _, err := quality.ParseBudget(s.Quality.Budget); err != nil {
			return "its quality " + err.Error()
		}
		if s.Quality.NeedleTrials < 0 || s.Quality.NeedleTrials > quality.MaxNeedleTrials || s.Quality.Probes < 0 ||
			s.Quality.Probes > quality.MaxProbes || s.Quality.ContinuationTokens < 0 || s.Quality.ContinuationTokens > quality.MaxContinuationTokens {
			return "its quality setup is out of bounds"
		}
	}
	for _, c := range s.Configs {
		if !(c.QualityS >= 0 && c.QualityS <= MaxEstimateS) {
			return fmt.Sprintf("configuration %q has a quality phase of %g s", c.Name, c.QualityS)
		}
		if q := c.Quality; q != nil && len(q.Contexts) > engine.MaxLevels {
			return fmt.Sprintf("configuration %q has %d quality contexts; at most %d", c.Name, len(q.Contexts), engine.MaxLevels)
		}
	}
	return ""
}
