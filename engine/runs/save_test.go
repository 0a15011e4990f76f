package runs

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

func measured(status engine.Status) engine.Report {
	return engine.Report{SchemaVersion: engine.SchemaVersion, Run: engine.RunInfo{ServedModel: "org/Gemma 4 (it)"},
		Results: []engine.Result{{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 1024, Concurrency: 1}, Status: status}}}
}

// The first save makes the run's folder in the runs folder, named after
// the run; later saves go to the same folder.
func TestSaverMakesTheRunsFolder(t *testing.T) {
	root := t.TempDir()
	start := time.Date(2026, 12, 4, 20, 30, 0, 0, time.UTC)
	s := Saver{Root: root, Now: func() time.Time { return start }}
	saved, err := s.Keep(measured(engine.StatusValid))
	if !saved || err != nil {
		t.Fatalf("Keep = %v, %v", saved, err)
	}
	if want := filepath.Join(root, "20261204-203000-org-Gemma-4-it"); s.Dir != want {
		t.Errorf("folder %q, want %q", s.Dir, want)
	}
	rep, err := report.Load(s.Dir)
	if err != nil || !rep.Run.StartedAt.Equal(start) {
		t.Fatalf("saved report started %v (%v), want %v", rep.Run.StartedAt, err, start)
	}
	dir := s.Dir
	if _, err := s.Keep(measured(engine.StatusFailed)); err != nil || s.Dir != dir {
		t.Errorf("second save in %q (%v), want %q", s.Dir, err, dir)
	}
}

// A run that reached no cell has nothing to keep, and with no folder and
// no runs folder nothing is saved.
func TestSaverKeepsOnlyWhatWasMeasured(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := Saver{Dir: dir}
	if saved, err := s.Keep(measured(engine.StatusNotRun)); saved || err != nil {
		t.Errorf("nothing measured: Keep = %v, %v; want nothing saved", saved, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("nothing measured, yet %s exists (%v)", dir, err)
	}
	if saved, _ := (&Saver{}).Keep(measured(engine.StatusValid)); saved {
		t.Error("no folder and no runs folder, yet it saved")
	}
}

// A load test's folder says it is one: <time>-load-<model>.
func TestLoadFolderName(t *testing.T) {
	root := t.TempDir()
	start := time.Date(2026, 12, 4, 20, 30, 0, 0, time.UTC)
	rep := engine.Report{Run: engine.RunInfo{ServedModel: "tiny", StartedAt: start},
		Load: &engine.LoadSection{Results: []engine.LoadResult{{RateRPS: 1, Status: engine.StatusValid}}}}
	s := Saver{Root: root}
	if saved, err := s.Keep(rep); !saved || err != nil || s.Dir != filepath.Join(root, "20261204-203000-load-tiny") {
		t.Errorf("Keep = %v, %v into %q; want saved into 20261204-203000-load-tiny", saved, err, s.Dir)
	}
	s.Release()
}

// A failed save is kept in Err until a save works again.
func TestSaverRemembersTheFailure(t *testing.T) {
	boom := errors.New("disk full")
	fail := true
	s := Saver{Dir: t.TempDir(), Rescue: []string{}, Save: func(string, engine.Report) error {
		if fail {
			return boom
		}
		return nil
	}}
	if _, err := s.Keep(measured(engine.StatusValid)); !errors.Is(err, boom) || !errors.Is(s.Err, boom) {
		t.Fatalf("Keep = %v, Err %v; want %v", err, s.Err, boom)
	}
	fail = false
	if _, err := s.Keep(measured(engine.StatusValid)); err != nil || s.Err != nil {
		t.Errorf("after a save that worked: %v, Err %v", err, s.Err)
	}
}

func TestFolder(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		served, model, want string
	}{
		{"gemma", "", "20260102-030405-gemma"},
		{"", "/models/Qwen3-8B", "20260102-030405-Qwen3-8B"},
		{"../../etc", "", "20260102-030405-..-..-etc"},
		{"", "", "20260102-030405-model"},
		{"???", "", "20260102-030405-model"},
	} {
		rep := engine.Report{Run: engine.RunInfo{ServedModel: tc.served, Model: tc.model, StartedAt: start}}
		if got := Folder(rep); got != tc.want {
			t.Errorf("Folder(%q, %q) = %q, want %q", tc.served, tc.model, got, tc.want)
		}
	}
}

// The Saver writes exactly the saved files of the one list of a run's
// files (report.Artifacts, the saved part of charts.Artifacts): after every
// cell, nothing drawn.
func TestSaverWritesTheSavedArtifacts(t *testing.T) {
	dir := t.TempDir()
	s := Saver{Dir: dir}
	rep := measured(engine.StatusValid)
	rep.Results[0].Telemetry = &engine.Telemetry{Samples: 1}
	if _, err := s.Keep(rep); err != nil {
		t.Fatal(err)
	}
	s.Release()
	var want []string
	for _, a := range report.Artifacts(rep) {
		if a.Stage != report.Saved {
			t.Errorf("%s is not a saved file", a.Name)
		}
		want = append(want, a.Name)
	}
	if got := visibleFiles(t, dir); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("the run's folder holds %v, want %v", got, want)
	}
}

// visibleFiles are the names in dir, sorted, less the lock and other
// hidden files.
func visibleFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}
