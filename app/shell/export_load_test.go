package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"speedmatrix/app/results"
	"speedmatrix/charts"
	"speedmatrix/engine/report"
)

// TestExportLoadTest: Export all of a load test writes load.csv, its
// report.md and its three pictures, and neither results.csv nor the
// matrix's pictures; a folder holding them counts as an export.
func TestExportLoadTest(t *testing.T) {
	rep, err := report.Load(filepath.Join("..", "..", "engine", "report", "testdata", "load.report.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := results.ExportReport(dir, rep, fakeCharts{}, false)
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	want := []string{"report.json", "load.csv", "report.md", "report.html"}
	for _, k := range charts.LoadKinds {
		want = append(want, string(k)+".png", string(k)+".svg")
	}
	if !slices.Equal(out.Written, want) {
		t.Errorf("written %v, want %v", out.Written, want)
	}
	csv, err := os.ReadFile(filepath.Join(dir, report.LoadCSVFile))
	if err != nil || !strings.HasPrefix(string(csv), "# simulated (profile tiny)") {
		t.Errorf("load.csv: %v\n%s", err, csv)
	}
	if !results.HoldsExport(dir) {
		t.Error("a folder with a load test's export does not count as one")
	}
}
