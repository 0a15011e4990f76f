package sweep

import (
	"cmp"
	"fmt"
	"slices"

	"speedmatrix/engine"
)

// UnknownNoisePct is engine.UnknownNoisePct, the noise a comparison
// assumes for a cell whose window gave none.
const UnknownNoisePct = engine.UnknownNoisePct

// Analyze is the answer of sweep s from the runs of its configurations
// (keyed by name; one that failed to start has none).
func Analyze(s Sweep, runs map[string]engine.Report) Answer {
	a := Answer{}
	if s.qualityActive() {
		a.Budget = s.Quality.Budget
	}
	ctxs, concs := decodeGrid(s, runs)
	common, _ := commonLargest(s, runs, ctxs, concs)
	for _, c := range s.Configs {
		a.Headlines = append(a.Headlines, headline(ctxs, c, runs, common))
	}
	for _, ctx := range ctxs {
		for _, conc := range concs {
			a.Cells = append(a.Cells, cellAnswer(s, runs, ctx, conc))
		}
	}
	for _, c := range s.Configs {
		r, ok := runs[c.Name]
		if !ok {
			continue
		}
		for _, res := range r.Results {
			if res.Phase == engine.PhaseDecode && res.Status == engine.StatusLooped {
				a.Looped = append(a.Looped, c.Name+": "+cellLabel(res.ContextTokens, res.Concurrency))
			}
		}
	}
	return a
}

// decodeGrid is the decode contexts and concurrency levels the runs
// measured, in order: a run fits the plan's contexts to its server (4K
// becomes 3,840 tokens where 256 must stay free for the output), so the
// runs' own cells are compared, and the plan's where no run exists yet.
func decodeGrid(s Sweep, runs map[string]engine.Report) (ctxs, concs []int) {
	for _, r := range runs {
		for _, res := range r.Results {
			if res.Phase == engine.PhaseDecode {
				ctxs, concs = append(ctxs, res.ContextTokens), append(concs, res.Concurrency)
			}
		}
	}
	if len(ctxs) == 0 {
		ctxs, concs = slices.Clone(s.Plan.DecodeContexts), slices.Clone(s.Plan.Concurrency)
	}
	slices.Sort(ctxs)
	slices.Sort(concs)
	return slices.Compact(ctxs), slices.Compact(concs)
}

// cellLabel names a decode cell: "8K × 16".
func cellLabel(ctx, conc int) string { return fmt.Sprintf("%s × %d", engine.ContextLabel(ctx), conc) }

// decodeResult is run r's decode cell ctx × conc.
func decodeResult(r engine.Report, ctx, conc int) (engine.Result, bool) {
	for _, res := range r.Results {
		if res.Phase == engine.PhaseDecode && res.ContextTokens == ctx && res.Concurrency == conc {
			return res, true
		}
	}
	return engine.Result{}, false
}

func cellAnswer(s Sweep, runs map[string]engine.Report, ctx, conc int) CellAnswer {
	ca := CellAnswer{ContextTokens: ctx, Concurrency: conc, Label: cellLabel(ctx, conc)}
	var valid []Entry
	for _, c := range s.Configs {
		e := Entry{Config: c.Name}
		if r, ok := runs[c.Name]; ok {
			if res, ok := decodeResult(r, ctx, conc); ok {
				e.Status = res.Status
				if res.Measured() {
					e.TokS, e.CIPct = res.TotalTokPerSec, engine.NoisePct(res)
				}
			}
		}
		ca.Entries = append(ca.Entries, e)
		if e.Status == engine.StatusValid && e.TokS > 0 {
			valid = append(valid, e)
		}
	}
	if len(valid) == 0 {
		if s.qualityActive() {
			weighQuality(s, &ca, nil)
		}
		return ca
	}
	// Stable: between equal figures the earlier configuration wins.
	slices.SortStableFunc(valid, func(x, y Entry) int { return cmp.Compare(y.TokS, x.TokS) })
	best := valid[0]
	ca.Best = best.Config
	if base := ca.Entries[0]; best.Config != base.Config {
		ca.OverBaseline = margin(best, base)
	}
	if len(valid) > 1 {
		ca.OverRunnerUp = margin(best, valid[1])
	}
	if s.qualityActive() {
		weighQuality(s, &ca, valid)
	}
	return ca
}

// margin is how far best is ahead of other.
func margin(best, other Entry) *Margin {
	m := &Margin{Of: other.Config}
	if other.Status != engine.StatusValid || other.TokS <= 0 {
		m.Status = cmp.Or(other.Status, engine.StatusNotRun)
		return m
	}
	m.Gain = best.TokS/other.TokS - 1
	m.NoisePct = best.CIPct + other.CIPct
	m.NoDifference = engine.WithinNoise(m.Gain, best.CIPct, other.CIPct)
	return m
}

// commonLargest is the largest decode cell (context, then requests) that
// every configuration with a run has Valid: the cell whose TTFT the
// headline table compares. ok is false when there is none.
func commonLargest(s Sweep, runs map[string]engine.Report, ctxs, concs []int) (cell [2]int, ok bool) {
	for _, ctx := range slices.Backward(ctxs) {
		for _, conc := range slices.Backward(concs) {
			all, some := true, false
			for _, c := range s.Configs {
				r, has := runs[c.Name]
				if !has {
					continue
				}
				res, found := decodeResult(r, ctx, conc)
				all = all && found && res.Measured()
				some = true
			}
			if all && some {
				return [2]int{ctx, conc}, true
			}
		}
	}
	return cell, false
}

func headline(ctxs []int, c Config, runs map[string]engine.Report, common [2]int) Headline {
	h := Headline{Config: c.Name, Status: c.Status, StartupS: c.StartupS}
	r, ok := runs[c.Name]
	if !ok {
		return h
	}
	h.KVCacheTokens = r.Server.KVCacheTokens
	for _, res := range r.Results {
		if res.Phase == engine.PhaseDecode {
			h.DecodeCells++
			if res.Status == engine.StatusLooped {
				h.LoopedCells++
			}
		}
		if res.Phase == engine.PhaseDecode && res.Measured() && res.TotalTokPerSec > h.PeakTokS {
			h.PeakTokS, h.PeakCell = res.TotalTokPerSec, cellLabel(res.ContextTokens, res.Concurrency)
		}
	}
	if len(ctxs) > 0 {
		ctx := ctxs[0]
		if res, ok := decodeResult(r, ctx, 1); ok && res.Measured() {
			h.SingleTokS, h.SingleCell = res.TotalTokPerSec, cellLabel(ctx, 1)
		}
	}
	if common != [2]int{} {
		if res, ok := decodeResult(r, common[0], common[1]); ok && res.Measured() {
			h.TTFTP50Ms, h.TTFTCell = cmp.Or(res.TTFTPct.P50, res.TTFTMs), cellLabel(common[0], common[1])
		}
	}
	return h
}
