package charts

import (
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
