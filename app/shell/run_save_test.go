package shell

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/app"
	"speedmatrix/engine"
	"speedmatrix/engine/runs"
)

// fullStore saves as reportStore does, except into the runs folder root:
// a disk that is full there.
type fullStore struct {
	reportStore
	root string
}

func (f fullStore) Save(dir string, r engine.Report) error {
	if strings.HasPrefix(dir, f.root) {
		return errors.New("write " + filepath.Join(dir, "report.json") + ": no space left on device")
	}
	return f.reportStore.Save(dir, r)
}

// A run History can't take is saved whole in a rescue folder, which the
// Run screen's banner names; Results opens it from there.
func TestRunRescuesWhatHistoryCantTake(t *testing.T) {
	d := testDeps(t, &fakeEngine{events: cannedEvents()})
	d.Store = fullStore{root: d.RunsDir}
	u := newTestUI(t, d, app.Options{Target: "sim:tiny"})
	u.run.OnStart()
	waitFor(t, u.run.UiDone, "the run to finish")
	rescued := u.run.Saver.Rescued
	if filepath.Dir(rescued) != d.Rescue[0] {
		t.Fatalf("rescued in %q, want a folder of %s", rescued, d.Rescue[0])
	}
	n := u.run.Banner.Current
	if !u.run.Banner.Visible() || n.Message != "The run cannot be saved to History, so every measured cell is saved in "+rescued+"." ||
		!strings.Contains(n.Detail, "no space left on device") {
		t.Errorf("banner %+v (visible %v), want it to name %s", n, u.run.Banner.Visible(), rescued)
	}
	if rep, err := u.Deps.Store.Load(rescued); err != nil || len(rep.Results) != 4 {
		t.Errorf("rescued report: %d cells (%v), want all 4", len(rep.Results), err)
	}
	if u.results.Source != rescued {
		t.Errorf("Results opened the run from %q, want %s", u.results.Source, rescued)
	}
}

// A run another run is saving into is not resumed: the banner says why.
func TestResumeRefusesARunInUse(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny"})
	dir := filepath.Join(u.RunsDir(), "20260102-030405-tiny")
	held, err := runs.LockFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	prev := engine.Report{Plan: app.QuickPlan(app.Capacity{}), Results: []engine.Result{{Status: engine.StatusValid}}}
	u.run.StartWith(prev.Plan, &prev, dir)
	n := u.run.Banner.Current
	if u.run.Running() || !u.run.Banner.Visible() || n.Message != "Another run is saving into this run's folder." || n.Detail != "another speedmatrix run is saving into "+dir {
		t.Errorf("running %v, banner %+v; want the resume refused, naming %s", u.run.Running(), n, dir)
	}
	if len(eng.plans) != 0 {
		t.Errorf("the engine ran %d plans", len(eng.plans))
	}
}
