package app

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"speedmatrix/engine"
)

func TestHistorySavesEveryRunAndOpensIt(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	d := testDeps(t, eng)
	u := newTestUI(t, d, Options{Target: "sim:tiny"})
	u.run.onStart()
	waitFor(t, u.run.uiDone, "the run")
	waitFor(t, u.results.rendered, "the charts")
	if _, err := os.Stat(filepath.Join(d.runsDir, "20260102-030405-tiny", "report.json")); err != nil {
		t.Fatalf("run not saved under <timestamp>-<model>: %v", err)
	}
	h := u.history
	if len(h.runs) != 1 || runTitle(h.runs[0]) != "2026-01-02 03:04:05 · tiny" {
		t.Fatalf("history lists %v", h.runs)
	}
	u.results.has = false
	h.list.Select(0)
	h.onOpen()
	if !u.results.has || u.tabs.Selected().Text != tabResults {
		t.Error("opening a saved run does not show it on Results")
	}
	if len(u.results.report.Results) != 4 {
		t.Errorf("opened run has %d results, want 4", len(u.results.report.Results))
	}
	waitFor(t, u.results.rendered, "the charts of the opened run")
}

func TestHistoryCompare(t *testing.T) {
	for _, tc := range []struct {
		name   string
		charts chartDrawer
	}{{"chart image", fakeCharts{}}, {"fallback grid", fakeCharts{err: errBoom}}} {
		t.Run(tc.name, func(t *testing.T) {
			d := testDeps(t, &fakeEngine{})
			d.charts = tc.charts
			u := newTestUI(t, d, Options{})
			h := u.history
			a, b := cannedReport("a", 100), cannedReport("b", 150)
			b.Run.StartedAt = b.Run.StartedAt.Add(time.Hour)
			if _, err := h.save(a, ""); err != nil {
				t.Fatal(err)
			}
			if _, err := h.save(b, ""); err != nil {
				t.Fatal(err)
			}
			if len(h.runs) != 2 {
				t.Fatalf("history lists %v, want 2 runs", h.runs)
			}
			h.base.SetSelectedIndex(1) // newest first: index 1 is run a
			h.other.SetSelectedIndex(0)
			h.onCompare()
			waitUntil(t, func() bool {
				img := chartImage(h.compareResult.Objects[0])
				return img != nil && img.Image != nil || hasText(h.compareResult, "+50.0 %")
			}, "the comparison")
			obj := h.compareResult.Objects[0]
			if isImg := chartImage(obj) != nil; isImg != (tc.name == "chart image") {
				t.Errorf("compare shows %T", obj)
			}
			if tc.name == "fallback grid" && !hasText(obj, "+50.0 %") {
				t.Error("fallback grid lacks the +50.0 % change of the 1K × 1 cell")
			}
		})
	}
}

func TestDeltaText(t *testing.T) {
	valid := func(v float64) engine.Result { return engine.Result{Status: engine.StatusValid, TotalTokPerSec: v} }
	over := engine.Result{Status: engine.StatusOverCapacity}
	for _, tc := range []struct {
		name        string
		base, other engine.Result
		okB, okO    bool
		want        string
	}{
		{"faster", valid(100), valid(125), true, true, "+25.0 %"},
		{"slower", valid(200), valid(150), true, true, "-25.0 %"},
		{"now over capacity", valid(200), over, true, true, "Valid → Over capacity"},
		{"missing", valid(200), engine.Result{}, true, false, "—"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := deltaText(tc.base, tc.other, tc.okB, tc.okO); got != tc.want {
				t.Errorf("deltaText = %q, want %q", got, tc.want)
			}
		})
	}
}
