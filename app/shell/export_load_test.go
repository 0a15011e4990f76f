package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/app"
	"speedmatrix/app/results"
	"speedmatrix/charts"
	"speedmatrix/engine"
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
	want := []string{"report.json", "load.csv", "report.md"}
	for _, k := range charts.LoadKinds {
		want = append(want, string(k)+".png", string(k)+".svg")
	}
	want = append(want, "report.html")
	if !slices.Equal(out.Written, want) {
		t.Errorf("written %v, want %v", out.Written, want)
	}
	csv, err := os.ReadFile(filepath.Join(dir, report.LoadCSVFile))
	if err != nil || !strings.HasPrefix(string(csv), "# simulated (profile tiny)") {
		t.Errorf("load.csv: %v\n%s", err, csv)
	}
	if !results.HoldsExport(dir, rep) {
		t.Error("a folder with a load test's export does not count as one")
	}
}

// TestExportWritesTheArtifactList: Export all writes exactly the files of
// the one list of a run's files (charts.Artifacts), in its order, the
// SLO's picture among them, and Save one file offers each of them.
func TestExportWritesTheArtifactList(t *testing.T) {
	rep := cannedReport("tiny", 195.7)
	rep.Plan.SLO = engine.SLO{TTFT: 2 * time.Second}
	var want []string
	for _, a := range charts.Artifacts(rep, nil) {
		want = append(want, a.Name)
	}
	if !slices.Contains(want, string(charts.KindSLO)+".png") {
		t.Fatalf("the list of a run with an SLO has no SLO picture: %v", want)
	}
	dir := t.TempDir()
	out := results.ExportReport(dir, rep, fakeCharts{}, false)
	if out.Err != nil || !slices.Equal(out.Written, want) {
		t.Fatalf("written %v (%v), want %v", out.Written, out.Err, want)
	}
	for _, name := range want {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", name, err)
		}
	}
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.results.Show(rep, "")
	if got := menuFiles(u.results.SaveMenu()); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("Save one file offers %q, want %q", got, want)
	}
}
