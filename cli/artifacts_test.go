package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/charts"
	"speedmatrix/engine/report"
)

// TestArtifactListDrivesRunAndReport: a run's folder holds every file of
// the one list of a run's files (charts.Artifacts), its SLO picture among
// them; `report --in` writes again, and names, exactly the list's drawn
// files and those whose Again is Redrawn, and leaves report.json and
// report.md as the run saved them.
func TestArtifactListDrivesRunAndReport(t *testing.T) {
	t.Parallel()
	fastSim(t)
	dir := filepath.Join(t.TempDir(), "run")
	if out, err := runCLI(t, t.Context(), append([]string{"--sim", "tiny", "--out", dir, "--slo-ttft", "2s"}, smallMatrix...)...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rep, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := charts.Artifacts(rep, nil)
	for _, a := range files {
		if st, err := os.Stat(filepath.Join(dir, a.Name)); err != nil || st.Size() == 0 {
			t.Errorf("the run's folder lacks %s: %v", a.Name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, string(charts.KindSLO)+".png")); err != nil {
		t.Errorf("a run with an SLO has no SLO picture: %v", err)
	}

	again := filepath.Join(t.TempDir(), "again")
	var stdout bytes.Buffer
	if err := cliFor(t).report(t.Context(), []string{"--in", dir, "--out", again}, &stdout, &stdout); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	for _, a := range files {
		_, err := os.Stat(filepath.Join(again, a.Name))
		if want := a.Stage == report.Drawn || a.Again == report.Redrawn; want != (err == nil) {
			t.Errorf("report --in wrote %s: %v, want %v", a.Name, err == nil, want)
		}
		line := "wrote " + filepath.Join(again, a.Name) + "\n"
		if a.Picture != "" {
			line = "wrote " + filepath.Join(again, a.Picture) + " {.png,.svg}\n"
		}
		if want := a.Stage == report.Drawn || a.Again == report.Redrawn; want && !strings.Contains(stdout.String(), line) {
			t.Errorf("report --in does not say %q:\n%s", line, stdout.String())
		}
	}
}
