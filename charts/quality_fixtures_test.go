package charts

import (
	"speedmatrix/engine"
)

// qualityDrift is a context's drift: KLD mean and p99 and top-1 %, each
// with an interval a little either side.
func qualityDrift(ctx int, kld, p99, top1 float64) engine.ContextDrift {
	return engine.ContextDrift{ContextTokens: ctx, Probes: 4, Positions: 512, Top1Pct: top1, KLDMean: kld, KLDMedian: kld / 2,
		KLDP99: p99, KLDMax: p99 * 2, DPMean: -0.004, FirstDivergenceMedian: 37, SameTokensPct: 90,
		CI: engine.QualityIntervals{
			Top1Pct: engine.QualityInterval{Lo: top1 - 0.6, Hi: min(100, top1+0.5)},
			KLDMean: engine.QualityInterval{Lo: kld * 0.8, Hi: kld * 1.25},
			KLDP99:  engine.QualityInterval{Lo: p99 * 0.7, Hi: p99 * 1.4},
		}}
}

// qualityFixture is an fp8 KV cache against a bf16 reference at 512, 2K
// and 8K: drift growing with context, over the budget at 8K, with the
// needle task and a task file paired with the reference's.
func qualityFixture(simulated bool) engine.QualityReport {
	q := engine.QualityReport{
		Reference: engine.QualityHeader{FormatVersion: 1, Model: "Qwen/Qwen3-8B", K: 20, ContinuationTokens: 128, Contexts: []int{512, 2048, 8192}},
		Server:    engine.QualityServer{Model: "Qwen/Qwen3-8B", Server: engine.ServerInfo{Name: "vllm", Version: "0.32.0", Quantization: "fp8 KV"}},
		NoiseFloor: engine.NoiseFloor{Contexts: []engine.ContextDrift{
			qualityDrift(512, 0.0003, 0.004, 99.8), qualityDrift(2048, 0.0004, 0.005, 99.7), qualityDrift(8192, 0.0005, 0.006, 99.6)}},
		Contexts: []engine.ContextDrift{
			qualityDrift(512, 0.002, 0.03, 99.2), qualityDrift(2048, 0.004, 0.06, 98.5), qualityDrift(8192, 0.014, 0.15, 95.1)},
		Needle: []engine.NeedleContext{
			{ContextTokens: 512, Correct: repeatBools(20, 20), AccuracyPct: 100, CI: engine.QualityInterval{Lo: 83.9, Hi: 100},
				Reference: &engine.PairedRuns{Items: 20, Before: 20, After: 20, P: 1}},
			{ContextTokens: 8192, Correct: repeatBools(20, 12), AccuracyPct: 60, CI: engine.QualityInterval{Lo: 38.7, Hi: 78.1},
				Reference: &engine.PairedRuns{Items: 20, Before: 19, After: 12, BeforeOnly: 7, AfterOnly: 0, P: 0.015625}},
		},
		Tasks: &engine.TaskRun{File: "gsm8k-50.jsonl", Digest: "abc", Items: 50, Correct: repeatBools(50, 41), AccuracyPct: 82,
			CI: engine.QualityInterval{Lo: 69.2, Hi: 90.2}, Reference: &engine.PairedRuns{Items: 50, Before: 44, After: 41, BeforeOnly: 4, AfterOnly: 1, P: 0.375},
			Flipped: []engine.TaskFlip{{Line: 3, Prompt: "Natalia sold clips to 48 of her friends", Now: false}, {Line: 17, Prompt: "A robe takes 2 bolts", Now: true}}},
		Budget: "kld=0.01,top1=98%",
		Verdicts: []engine.QualityJudged{{ContextTokens: 512, Floor: true, Real: true}, {ContextTokens: 2048, Floor: true, Real: true},
			{ContextTokens: 8192, Floor: true, Real: true, OverBudget: true}},
	}
	if simulated {
		q.Server.Server.Simulated, q.Server.Server.SimProfile = true, "tiny"
	}
	return q
}

// repeatBools is n answers, the first right of them right.
func repeatBools(n, right int) []bool {
	out := make([]bool, n)
	for i := range right {
		out[i] = true
	}
	return out
}
