package report

import (
	"strings"
	"testing"

	"speedmatrix/engine"
)

// TestMarkdownQuality: report.md's Quality section has the drift per
// context with its intervals, the floor and the verdict, the needle table
// with McNemar against the reference, and the flipped task items; a
// simulated server's is labelled so, and a run without a phase has none.
func TestMarkdownQuality(t *testing.T) {
	q := &engine.QualityReport{
		Reference:     engine.QualityHeader{Model: "gemma", K: 20},
		Server:        engine.QualityServer{Server: engine.ServerInfo{Simulated: true}},
		ReferenceFile: "ref.quality.json", Budget: "kld=0.01,top1=98%",
		NoiseFloor: engine.NoiseFloor{Contexts: []engine.ContextDrift{{ContextTokens: 8192, Positions: 1024, Top1Pct: 99.9, KLDMean: 0.0002}}},
		Contexts: []engine.ContextDrift{{ContextTokens: 8192, Positions: 1024, Top1Pct: 93.1, KLDMean: 0.0213, KLDP99: 0.31, KLDMax: 0.9, FirstDivergenceMedian: 14,
			CI: engine.QualityIntervals{Top1Pct: engine.QualityInterval{Lo: 91.2, Hi: 94.8}, KLDMean: engine.QualityInterval{Lo: 0.018, Hi: 0.025}}}},
		Verdicts: []engine.QualityJudged{{ContextTokens: 8192, Floor: true, Real: true, OverBudget: true}},
		Needle:   []engine.NeedleContext{{ContextTokens: 8192, Correct: make([]bool, 20), AccuracyPct: 60, CI: engine.QualityInterval{Lo: 39, Hi: 78}, Reference: &engine.PairedRuns{Items: 20, Before: 19, After: 12, BeforeOnly: 7, P: 0.0156}}},
		Tasks:    &engine.TaskRun{File: "gsm.jsonl", Items: 2, Correct: []bool{true, false}, AccuracyPct: 50, Flipped: []engine.TaskFlip{{Line: 2, Prompt: "What is 6 × 7?"}}, Reference: &engine.PairedRuns{Items: 2, Before: 2, After: 1, BeforeOnly: 1, P: 1}},
	}
	for i := range 12 {
		q.Needle[0].Correct[i] = true
	}
	md := Markdown(engine.Report{Quality: q})
	for _, want := range []string{"## Quality (simulated)", "Compared with the reference ref.quality.json (gemma)", "budget kld=0.01,top1=98%",
		"| 8K | 1,024 | 93.10 (91.20–94.80) | 0.02130 (0.01800–0.02500) |", "| 0.00020 · 99.90 | real drift, above the noise floor, over the budget kld=0.01,top1=98% |",
		"| 8K | 12/20 | 60 % (39–78) | 19/20 → 12/20, p = 0.0156 |", "Tasks gsm.jsonl: 1/2 asked right", "- line 2, now wrong: What is 6 × 7?"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if md := Markdown(engine.Report{}); strings.Contains(md, "## Quality") {
		t.Errorf("a run without a quality phase has a Quality section:\n%s", md)
	}
}
