package shell

import (
	"image"
	"image/color"
	"slices"
	"sync"
	"testing"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/roofline"
)

// TestHeatmapRooflineMode: the "% of roofline" colouring is offered once a
// cell has a roofline, shows each cell's share on the export's 0–100 %
// scale, and the colour key says so; without a roofline it stays hidden.
func TestHeatmapRooflineMode(t *testing.T) {
	apptest.NewTempApp(t)
	h := appwidget.NewHeatmap("waiting")
	h.SetAxes([]int{8 * engine.K}, []int{1, 2})
	plain := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8 * engine.K, Concurrency: 1},
		Status: engine.StatusValid, TotalTokPerSec: 167.7, TTFTMs: 36}
	h.SetResult(plain)
	h.Redraw()
	if !h.Mode.Hidden {
		t.Fatal("the roofline colouring is offered for cells without a roofline")
	}

	rep := engine.Report{Run: engine.RunInfo{MaxOutputTokens: 4096}, Results: []engine.Result{plain,
		{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8 * engine.K, Concurrency: 2}, Status: engine.StatusValid, TotalTokPerSec: 312.8, TTFTMs: 50}}}
	g, err := roofline.NewGPU("NVIDIA RTX PRO 6000 Blackwell Server Edition", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	rep.Roofline = engine.NewRoofline(g, engine.RooflineModel{ComputeDType: engine.BF16, StepBytes: 4.558946304e9, ActiveParams: 2.28e9, KVBytesPerToken: 6144})
	rep.ApplyRoofline()
	for _, r := range rep.Results {
		h.SetResult(r)
	}
	h.Redraw()
	if h.Mode.Hidden || h.Mode.Selected != appwidget.HeatModeTotal {
		t.Fatalf("mode hidden %v, selected %q; want offered, total tok/s first", h.Mode.Hidden, h.Mode.Selected)
	}
	if got := h.Cell(8*engine.K, 1).Label(); got != "167.7 36 ms TTFT" {
		t.Errorf("total tok/s cell reads %q", got)
	}
	h.Mode.SetSelected(appwidget.HeatModeRoofline) // redraws
	cell := h.Cell(8*engine.K, 1)
	want := rep.Results[0]
	// 4.5589e9 + 6,144 × (8,192 + 2,048) bytes a step at 1,792 GB/s: 387.7 tok/s.
	if got := cell.Label(); got != "43 % of 387.7" {
		t.Errorf("roofline cell reads %q, want %q (%.1f %% of %.1f)", got, "43 % of 387.7", want.RooflinePct, want.RooflineTokS)
	}
	if c := charts.Viridis(charts.RooflineScale().Pos(want.RooflinePct)); cell.Bg.FillColor != color.Color(c) {
		t.Errorf("fill %v, want the export's %v", cell.Bg.FillColor, c)
	}
	if h.Legend.Label.Text != "% of roofline" || len(h.Legend.Ticks()) != 5 || h.Legend.Ticks()[4] != "100 %" {
		t.Errorf("colour key %q %q", h.Legend.Label.Text, h.Legend.Ticks())
	}
	h.Mode.SetSelected(appwidget.HeatModeTotal)
	if h.Legend.Label.Text != "total tok/s" || h.Cell(8*engine.K, 2).Label() != "312.8 50 ms TTFT" {
		t.Errorf("back to total tok/s: key %q, cell %q", h.Legend.Label.Text, h.Cell(8*engine.K, 2).Label())
	}
}

// kindRecorder is fakeCharts that notes which pictures were drawn.
type kindRecorder struct {
	fakeCharts
	mu    sync.Mutex
	kinds map[charts.Kind]bool
}

func (k *kindRecorder) Picture(kind charts.Kind, r engine.Report, p charts.Pane, dark bool) (image.Image, error) {
	k.mu.Lock()
	k.kinds[kind] = true
	k.mu.Unlock()
	return k.fakeCharts.Picture(kind, r, p, dark)
}

func (k *kindRecorder) drew(kind charts.Kind) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.kinds[kind]
}

// TestResultsRooflineMode: Results offers the "% of roofline" decode
// heatmap for a report with a roofline, and draws that chart when chosen.
func TestResultsRooflineMode(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	rec := &kindRecorder{kinds: map[charts.Kind]bool{}}
	d.Charts = rec
	u := newTestUI(t, d, app.Options{})
	r := u.results
	r.Show(cannedReport("tiny", 195.7), "")
	waitFor(t, r.Rendered, "the charts")
	// The SLO view is always offered on Results; % of roofline only with a roofline.
	if slices.Contains(r.HeatMode.Options, appwidget.HeatModeRoofline) || slices.Contains(menuFiles(r.SaveMenu()), "decode-roofline.png") {
		t.Fatal("a report without a roofline offers the roofline heatmap")
	}
	rep := cannedReport("tiny", 195.7)
	g, _ := roofline.NewGPU("NVIDIA H100 80GB HBM3", 1, 0)
	rep.Roofline = engine.NewRoofline(g, engine.RooflineModel{ComputeDType: engine.BF16, StepBytes: 16e9, ActiveParams: 8e9})
	rep.ApplyRoofline()
	r.Show(rep, "")
	waitFor(t, r.Rendered, "the charts")
	if files := menuFiles(r.SaveMenu()); !slices.Contains(files, "decode-roofline.png") || !slices.Contains(files, "decode-roofline.svg") {
		t.Errorf("Save one file offers %q, without the roofline heatmap", files)
	}
	if !slices.Contains(r.HeatMode.Options, appwidget.HeatModeRoofline) || rec.drew(charts.KindRoofline) {
		t.Fatalf("modes %q; roofline drawn before it was chosen %v", r.HeatMode.Options, rec.drew(charts.KindRoofline))
	}
	r.HeatMode.SetSelected(appwidget.HeatModeRoofline)
	waitFor(t, r.Rendered, "the roofline chart")
	if !rec.drew(charts.KindRoofline) {
		t.Error("choosing % of roofline did not draw the roofline heatmap")
	}
}
