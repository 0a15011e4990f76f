package sweep

import (
	"fmt"

	"speedmatrix/engine"
)

// MaxEstimateS bounds an estimate, whatever a sweep.json says its
// configurations took, and the quality phase's time it records: a year.
const MaxEstimateS = 365 * 24 * 3600

// StartupBasis is where a Prior's start-up comes from.
type StartupBasis string

// The bases of a Prior's start-up.
const (
	// StartupAssumed is runner.PriorStartupS, vLLM's usual: nothing
	// better is known.
	StartupAssumed StartupBasis = ""
	// StartupStandIn is Speed Matrix's stand-in for vllm serve
	// (launch.StandIn), which starts in seconds: launch.StandInStartup.
	StartupStandIn StartupBasis = "stand-in"
	// StartupMeasured is the baseline's own server, timed as it last
	// started before the sweep (the app's Launch form).
	StartupMeasured StartupBasis = "measured"
)

// Prior is what a sweep's estimate assumes before its configurations have
// measured anything: how long one server takes to start, and why, and the
// servers' max model length when the baseline gives it, to which every
// run fits the plan's contexts. The zero Prior assumes vLLM's usual
// start-up and the plan as planned.
type Prior struct {
	StartupS    float64      `json:"startup_s,omitempty"`
	Startup     StartupBasis `json:"startup,omitempty"`
	MaxModelLen int          `json:"max_model_len,omitempty"`
}

// problem says why p is not a prior a sweep writes ("" when it is): a
// sweep.json is data, and its figures are bounded where they enter. It
// names no string of the file's.
func (p Prior) problem() string {
	switch {
	case p.Startup != StartupAssumed && p.Startup != StartupStandIn && p.Startup != StartupMeasured:
		return "its estimate's prior has an unknown start-up basis"
	case !(p.StartupS >= 0 && p.StartupS <= 24*3600):
		return fmt.Sprintf("its estimate's prior has a start-up of %g s, outside 0–86400", p.StartupS)
	case p.MaxModelLen < 0 || p.MaxModelLen > engine.MaxContextTokens:
		return fmt.Sprintf("its estimate's prior has max model length %d, outside 0–%d", p.MaxModelLen, engine.MaxContextTokens)
	}
	return ""
}
