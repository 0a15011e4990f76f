package runs

import (
	"os"
	"path/filepath"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// A load test's report, which has no matrix cells, is saved once a rate
// was reached, with load.csv in place of results.csv; one whose rates are
// all Not run is not.
func TestSaverKeepsALoadTest(t *testing.T) {
	for _, tc := range []struct {
		status engine.Status
		saved  bool
	}{{engine.StatusValid, true}, {engine.StatusFailed, true}, {engine.StatusNotRun, false}} {
		dir := t.TempDir()
		rep := engine.Report{SchemaVersion: engine.SchemaVersion, Run: engine.RunInfo{ServedModel: "tiny"},
			Load: &engine.LoadSection{Results: []engine.LoadResult{{RateRPS: 2, Arrivals: engine.ArrivalsPoisson, Status: tc.status}}}}
		s := Saver{Dir: dir}
		saved, err := s.Keep(rep)
		if err != nil || saved != tc.saved {
			t.Errorf("%s: saved %v, err %v; want saved %v", tc.status, saved, err, tc.saved)
		}
		s.Release()
		_, err = os.Stat(filepath.Join(dir, report.LoadCSVFile))
		if (err == nil) != tc.saved {
			t.Errorf("%s: load.csv there: %v, want %v", tc.status, err == nil, tc.saved)
		}
		if _, err := os.Stat(filepath.Join(dir, report.CSVFile)); err == nil {
			t.Errorf("%s: results.csv written for a load test", tc.status)
		}
	}
}
