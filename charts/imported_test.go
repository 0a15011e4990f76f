package charts

import (
	"slices"
	"testing"

	"speedmatrix/engine/report"
)

// TestImportedBadge: the report sheet of an imported run names the tool
// where ours says Measured, so its figures are never taken for ours.
func TestImportedBadge(t *testing.T) {
	r, _, err := report.Read("../engine/report/testdata/llm-inference-bench-0.4.18.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := BuildModel(r).Header.Badge; got != "Imported · llm-inference-bench 0.4.18" {
		t.Errorf("badge %q", got)
	}
	if got := BuildModel(loadSeed(t, "seed000")).Header.Badge; got != "Measured" {
		t.Errorf("our run's badge %q", got)
	}
}

// TestLoadImportedPeers: another tool's load test draws what its file
// has: no ITL panel for GuideLLM, which has no per-gap figure, and a
// closed loop's points labelled with its number at once, without a
// goodput chart (it has no offered rate); neither has a Pareto chart,
// whose points are a matrix's decode cells.
func TestLoadImportedPeers(t *testing.T) {
	guide, _, err := report.Read("../engine/report/testdata/peers/guidellm-0.8.1.rate.json")
	if err != nil {
		t.Fatal(err)
	}
	m := buildLoad(guide)
	if m.ITL.Empty != "This load test's file has no ITL figures." || m.TTFT.Empty != "" || len(m.TTFT.Series[1].Points) != 1 {
		t.Errorf("GuideLLM: ITL %q, TTFT %q %+v", m.ITL.Empty, m.TTFT.Empty, m.TTFT.Series)
	}
	vllm, _, err := report.Read("../engine/report/testdata/peers/vllm-bench-0.32.0+cpu.concurrency.json")
	if err != nil {
		t.Fatal(err)
	}
	m = buildLoad(vllm)
	if got := m.TTFT.Series[1].Points[0].Label; got != "×4" || m.Goodput.Empty == "" {
		t.Errorf("vllm bench at 4 at once: label %q, goodput %q", got, m.Goodput.Empty)
	}
	// An imported load test is on the Pareto chart as ours is: each row at
	// 1,000 ÷ its median TPOT against its output tok/s.
	ps := report.ParetoPoints(vllm)
	row := vllm.Load.Results[0]
	if p := buildPareto(vllm); p.Empty != "" || len(ps) != 1 || len(ps[0]) != 1 || ps[0][0].Level != "×4" ||
		ps[0][0].PerRequest != 1000/row.TPOTMs.P50 || ps[0][0].TotalPerGPU != row.OutputTokPerSec || !slices.Contains(p.Notes, report.ParetoLoadNote) {
		t.Errorf("vllm bench at 4 at once on the Pareto chart: %+v, %+v", ps, p)
	}
	if kinds := KindsFor(vllm); len(kinds) != len(LoadKinds) {
		t.Errorf("pictures of an imported load test: %v", kinds)
	}
}
