package report

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"speedmatrix/engine"
)

// TestArtifactsAreTheSavedFiles: the saved files of a matrix, a run with
// telemetry and a load test, in the order Save writes them, each saved and
// each with what `report --in` does with it; Save writes each with the
// bytes its Artifact makes.
func TestArtifactsAreTheSavedFiles(t *testing.T) {
	tel := engine.Report{Results: []engine.Result{{Telemetry: &engine.Telemetry{Samples: 1}}}}
	for _, tc := range []struct {
		name string
		r    engine.Report
		want []string
	}{
		{"matrix", engine.Report{}, []string{JSONFile, CSVFile, MarkdownFile}},
		{"telemetry", tel, []string{JSONFile, CSVFile, MarkdownFile, TelemetryCSVFile}},
		{"load", engine.Report{Load: &engine.LoadSection{}}, []string{JSONFile, LoadCSVFile, MarkdownFile}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := Artifacts(tc.r)
			var names []string
			again := map[string]Again{}
			for _, a := range files {
				names = append(names, a.Name)
				again[a.Name] = a.Again
				if a.Stage != Saved || a.Picture != "" {
					t.Errorf("%s: stage %v, picture %q; want a saved data file", a.Name, a.Stage, a.Picture)
				}
			}
			if !slices.Equal(names, tc.want) {
				t.Fatalf("Artifacts = %v, want %v", names, tc.want)
			}
			if again[JSONFile] != Kept || again[CSVFileFor(tc.r)] != Redrawn || again[MarkdownFile] != Judged {
				t.Errorf("again %v: want report.json kept, the CSV redrawn, report.md judged", again)
			}
			dir := t.TempDir()
			if err := Save(dir, tc.r); err != nil {
				t.Fatal(err)
			}
			for _, a := range files {
				want, err := a.Bytes(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if got, err := os.ReadFile(filepath.Join(dir, a.Name)); err != nil || string(got) != string(want) {
					t.Errorf("%s: %v, %d bytes; want its Artifact's %d", a.Name, err, len(got), len(want))
				}
			}
		})
	}
}
