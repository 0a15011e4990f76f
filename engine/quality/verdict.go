package quality

import (
	"strconv"
	"strings"

	"speedmatrix/engine"
)

// Verdict says which of a context's drifts are real: above the noise
// floor beyond both intervals.
type Verdict struct {
	// KLD is whether the KLD mean's interval lies wholly above the floor's.
	KLD bool
	// Top1 is whether the top-1 agreement's interval lies wholly below
	// the floor's.
	Top1 bool
}

// Real reports whether either drift is real.
func (v Verdict) Real() bool { return v.KLD || v.Top1 }

// Judge is the verdict on a context's drift c against the noise floor at
// the same context. A drift is real only when the two 95 % intervals do
// not overlap, the candidate's on the worse side: a difference within
// the floor's spread is what the reference server does against itself.
// ok is false when the floor has no positions: nothing to judge against.
func Judge(c, floor ContextDrift) (v Verdict, ok bool) {
	if floor.Positions == 0 || c.Positions == 0 {
		return Verdict{}, false
	}
	return Verdict{
		KLD:  c.CI.KLDMean.Lo > floor.CI.KLDMean.Hi,
		Top1: c.CI.Top1Pct.Hi < floor.CI.Top1Pct.Lo,
	}, true
}

// The default quality budget: a KLD mean of 0.01 nats and 98 % top-1
// agreement, "kld=0.01,top1=98%". For scale: a bf16 and a float32 vLLM
// of the rig's 2-layer model differ by 0.00006 nats (Compare's bound; the
// full-vocabulary KL is 0.0003) and 96.5 % top-1 (BENCHMARKS.md); its
// near-uniform distributions flip their top token easily, so top-1 is
// what puts float32 over this budget there.
const (
	DefaultBudgetKLD     = 0.01
	DefaultBudgetTop1Pct = 98.0
)

// Budget is how much drift a configuration may show and still count as
// the same model: a KLD mean at most KLD nats and a top-1 agreement at
// least Top1Pct %, at every context. A zero bound bounds nothing.
type Budget struct {
	KLD     float64 `json:"kld,omitempty"`
	Top1Pct float64 `json:"top1_pct,omitempty"`
}

// DefaultBudget is the budget unless the user sets one.
func DefaultBudget() Budget { return Budget{KLD: DefaultBudgetKLD, Top1Pct: DefaultBudgetTop1Pct} }

// String writes b as ParseBudget reads it: "kld=0.01,top1=98%".
func (b Budget) String() string {
	var parts []string
	if b.KLD > 0 {
		parts = append(parts, "kld="+strconv.FormatFloat(b.KLD, 'g', -1, 64))
	}
	if b.Top1Pct > 0 {
		parts = append(parts, "top1="+strconv.FormatFloat(b.Top1Pct, 'g', -1, 64)+"%")
	}
	return strings.Join(parts, ",")
}

// BudgetError says why a budget does not read (engine.QualityBudgetError).
type BudgetError = engine.QualityBudgetError

// ParseBudget reads a budget like "kld=0.01,top1=98%"
// (engine.ParseQualityBudget, the one reader of the form String writes).
// Errors are *BudgetError, naming the item.
func ParseBudget(s string) (Budget, error) {
	kld, top1, err := engine.ParseQualityBudget(s)
	if err != nil {
		return Budget{}, err
	}
	return Budget{KLD: kld, Top1Pct: top1}, nil
}

// BudgetCheck is how one context's drift fares against a budget.
type BudgetCheck struct {
	// KLDOver is whether the KLD mean is above the budget's, and that
	// drift real (Judge).
	KLDOver bool
	// Top1Over is whether the top-1 agreement is below the budget's, and
	// that drift real.
	Top1Over bool
}

// Over reports whether the context is over the budget.
func (c BudgetCheck) Over() bool { return c.KLDOver || c.Top1Over }

// Check is c's figures against the budget, the noise floor at the same
// context deciding what counts: a figure over its bound is over the budget
// only when its drift is real (Judge), since the reference server itself
// drifts that much; without a floor (no positions) the figures alone
// decide, since nothing shows them to be noise. A context without
// positions is not over.
func (b Budget) Check(c, floor ContextDrift) BudgetCheck {
	if c.Positions == 0 {
		return BudgetCheck{}
	}
	v, judged := Judge(c, floor)
	return BudgetCheck{
		KLDOver:  b.KLD > 0 && c.KLDMean > b.KLD && (!judged || v.KLD),
		Top1Over: b.Top1Pct > 0 && c.Top1Pct < b.Top1Pct && (!judged || v.Top1),
	}
}
