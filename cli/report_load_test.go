package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/charts"
	"speedmatrix/engine/report"
)

const loadFixture = "../engine/report/testdata/load.report.json"

// TestReportRedrawsALoadTest: report --in on a load test's report.json
// writes its load.csv (labelled simulated, header exact) and its three
// pictures beside it, and neither results.csv nor the matrix's pictures.
func TestReportRedrawsALoadTest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(loadFixture)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, report.JSONFile)
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, err := runReport(t, "--in", in)
	if err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join(dir, report.LoadCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "# simulated (profile tiny)") || lines[1] != strings.Join(report.LoadCSVHeader, ",") ||
		!strings.HasPrefix(lines[6], "16,poisson,200,200,0,") {
		t.Errorf("load.csv:\n%s", csv)
	}
	if !strings.Contains(stdout, filepath.Join(dir, report.LoadCSVFile)) {
		t.Errorf("stdout does not list load.csv: %q", stdout)
	}
	for _, k := range charts.LoadKinds {
		pngSize(t, filepath.Join(dir, string(k)+".png"))
		if st, err := os.Stat(filepath.Join(dir, string(k)+".svg")); err != nil || st.Size() == 0 {
			t.Errorf("%s.svg: %v", k, err)
		}
	}
	for _, name := range []string{report.CSVFile, string(charts.KindHeatmap) + ".png", string(charts.KindPrefill) + ".png"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s written for a load test (err %v)", name, err)
		}
	}
}
