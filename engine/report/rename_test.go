package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReportsBeforeTheRenameLoad: report.json files written while the Go
// names said Engine for the inference server (engine.EngineInfo,
// Report.Engine, ServerProcess.EngineVersion) load into the renamed fields
// (ServerInfo, Report.Server, ServerVersion), because the JSON keys did not
// change, and write back the same bytes.
func TestReportsBeforeTheRenameLoad(t *testing.T) {
	for _, name := range []string{"captured.report.json", "report.json", "standard-sim.report.json", "load.report.json"} {
		path := filepath.Join("testdata", name)
		rep, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rep.Server.Name == "" {
			t.Errorf("%s: the engine section's name is empty after loading", name)
		}
		if name == "captured.report.json" && (rep.Process == nil || rep.Process.ServerVersion == "") {
			t.Errorf("%s: the server process or its engine_version did not load: %+v", name, rep.Process)
		}
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		again, err := JSON(rep)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.TrimSpace(again), bytes.TrimSpace(old)) {
			t.Errorf("%s: written back differs from the file (%d bytes against %d)", name, len(again), len(old))
		}
	}
}
