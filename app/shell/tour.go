package shell

import (
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/app/history"
	"speedmatrix/app/matrix"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
)

// The tour (--tour DIR) visits every screen as a new user would, runs the
// Quick plan, and writes each screen as NN-name.png with the texts it shows
// as NN-name.txt (one per line) into DIR, then quits. The end-to-end test
// checks them; docs/gallery shows them.

// tourStep is one picture of the tour.
type tourStep struct {
	name  string
	setup func(u *ui) // UI goroutine: bring the screen to the state shown
	// ready, when set, is polled on the UI goroutine until it holds.
	ready func(u *ui) bool
	// hold, when set, is how long the step waits, once ready, before its
	// picture: long enough for Fyne to drop the renderers of what is
	// hidden (see tourRendererExpiry), as it does in an app left open.
	hold time.Duration
}

// tourRendererExpiry is how long the tour waits for Fyne to drop the
// renderers of hidden widgets: e2e-tour.sh sets FYNE_CACHE=2s (Fyne keeps an
// unseen renderer 2 s then, a minute by default), and Fyne cleans its cache
// at most every 10 s.
const tourRendererExpiry = 13 * time.Second

// tourSettle lets the window lay out and draw a screen before it is captured.
const tourSettle = 700 * time.Millisecond

// tourSteps are the tour's pictures, in order.
func tourSteps() []tourStep {
	show := func(title string) func(u *ui) { return func(u *ui) { u.Show(title) } }
	return []tourStep{
		{name: "hardware", setup: show(app.TabHardware)},
		{name: "server-simulator", setup: show(app.TabServer)},
		{name: "server-launch", setup: func(u *ui) { u.Show(app.TabServer); u.server.SelectKind(app.TargetVLLM) }},
		{name: "server-endpoint", setup: func(u *ui) { u.server.SelectKind(app.TargetEndpoint) }},
		{name: "matrix", setup: func(u *ui) {
			u.server.SelectKind(app.TargetSim)
			u.matrix.UsePreset(app.PresetQuick)
			u.Show(app.TabMatrix)
		}},
		{name: "run-ready", setup: show(app.TabRun)},
		{name: "run-midrun", setup: func(u *ui) { u.run.OnStart() }, ready: func(u *ui) bool {
			p := u.State.Run.Progress
			return p != nil && p.CellIndex >= 6
		}},
		{name: "results", setup: func(*ui) {}, ready: func(u *ui) bool { return !u.run.Running() && u.results.Has && u.results.IsRendered() }},
		{name: "results-checks", setup: func(u *ui) { u.results.Views.SelectIndex(len(u.results.Views.Items) - 2) }},
		{name: "history", setup: show(app.TabHistory)},
		{name: "settings", setup: show(app.TabSettings)},
		{name: "run-after", setup: show(app.TabRun)},
		// The states that crowd a small window: a banner on Run, a failed
		// export with its details, the widest table, the longest list and
		// the compare chart beside the list of runs.
		{name: "run-refused", setup: func(u *ui) { u.server.SelectKind(app.TargetEndpoint); u.Show(app.TabRun); u.run.OnStart() }},
		{name: "results-export-failed", setup: func(u *ui) {
			u.server.SelectKind(app.TargetSim)
			u.Show(app.TabResults)
			u.results.Views.SelectIndex(0)
			u.results.ExportInto(tourNotAFolder(u))
		}, ready: func(u *ui) bool { return appwidget.IsClosed(u.results.Exported) }},
		{name: "results-export-details", setup: func(u *ui) { u.results.Banner.OnToggle() }},
		{name: "results-measurements", setup: func(u *ui) { u.results.Banner.Hide(); u.results.Views.SelectIndex(3) }},
		{name: "results-save-one", setup: func(u *ui) { u.results.OnSaveMenu() }},
		{name: "history-compare", setup: func(u *ui) {
			u.Win.Canvas().Overlays().Top().Hide()
			u.Show(app.TabHistory)
			u.history.A.SetSelectedIndex(0)
			u.history.B.SetSelectedIndex(0)
			u.history.OnCompare()
		}, ready: func(u *ui) bool { return compareDrawn(u.history) }},
		{name: "matrix-standard", setup: func(u *ui) { u.matrix.UsePreset(app.PresetStandard); u.Show(app.TabMatrix) }},
		// The run judged against an SLO on Results, one cell's figures shown.
		{name: "results-slo", setup: func(u *ui) {
			u.Show(app.TabResults)
			r := u.results
			r.Views.SelectIndex(0)
			r.HeatMode.SetSelected(appwidget.HeatModeSLO)
			r.Slo.Fields.Ttft.SetText(tourSLOTTFT)
			r.Slo.Fields.Itl.SetText(tourSLOITL)
			tourChooseCell(r.Slo.Heat)
		}, ready: func(u *ui) bool { return u.results.IsRendered() }},
		// The load test, the other kind of plan: its form, and Run ready to start it.
		{name: "matrix-load", setup: func(u *ui) { u.matrix.Load.Kind.SetSelected(matrix.KindLoad); u.Show(app.TabMatrix) }},
		{name: "run-load-ready", setup: show(app.TabRun)},
		// A short load test, and the matrix form after it: the form hidden
		// behind the load test's all that while must come back whole.
		{name: "run-load-after", setup: func(u *ui) {
			u.Show(app.TabMatrix)
			u.matrix.Load.Rates.SetText(tourLoadRates)
			u.matrix.Load.Requests.SetText(tourLoadRequests)
			u.Show(app.TabRun)
			u.run.OnStart()
		}, ready: func(u *ui) bool {
			return !u.run.Running() && u.results.Has && u.results.Report.Load != nil && u.results.IsRendered()
		}, hold: tourRendererExpiry},
		{name: "matrix-after-load", setup: func(u *ui) { u.Show(app.TabMatrix); u.matrix.Load.Kind.SetSelected(matrix.KindMatrix) }},
		// A load test the form refuses: its problem in sight at 1,024 × 700.
		{name: "matrix-load-refused", setup: func(u *ui) {
			u.matrix.Load.Kind.SetSelected(matrix.KindLoad)
			u.matrix.Load.Rates.SetText("fast")
		}},
	}
}

// The SLO the tour judges its Quick run on the tiny simulator against:
// its first rows meet it at few requests and miss it at many.
const (
	tourSLOTTFT = "100ms"
	tourSLOITL  = "20ms"
)

// The load test the tour runs: the steps (Rates 20, Requests 10).
const (
	tourLoadRates    = "20"
	tourLoadRequests = "10"
)

// tourChooseCell shows the figures of the first row's Valid cell with the
// most requests.
func tourChooseCell(h *appwidget.Heatmap) {
	if len(h.Contexts) == 0 {
		return
	}
	for i := len(h.Concurrency) - 1; i >= 0; i-- {
		key := [2]int{h.Contexts[0], h.Concurrency[i]}
		if hc := h.Cells[key]; hc != nil && hc.Status == engine.StatusValid {
			h.ShowDetails(key)
			return
		}
	}
}

// tourNotAFolder is a file in the tour's folder that an export cannot
// make its folder in.
func tourNotAFolder(u *ui) string {
	path := filepath.Join(u.Opts.Tour, "not-a-folder")
	_ = os.WriteFile(path, nil, 0o644)
	return path
}

// compareDrawn reports whether History shows its comparison: the chart
// drawn, or the grid in its place.
func compareDrawn(h *history.Tab) bool {
	if len(h.CompareResult.Objects) == 0 {
		return false
	}
	if c, ok := h.CompareResult.Objects[0].(*fyne.Container); ok {
		if v, ok := c.Layout.(*appwidget.ChartView); ok {
			return v.Settled
		}
	}
	return true
}

// runTour walks the steps in the background and quits; errors end in
// exitErr. A step that is not ready within a minute fails the tour.
func (u *ui) runTour(dir string) {
	fail := func(err error) {
		u.Do(func() {
			u.exitErr = err
			u.endAutorun()
		})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(fmt.Errorf("tour: %w", err))
		return
	}
	for i, st := range tourSteps() {
		name := fmt.Sprintf("%02d-%s", i+1, st.name)
		u.doWait(func() { st.setup(u) })
		deadline := time.Now().Add(time.Minute)
		for st.ready != nil && !u.doCheck(st.ready) {
			if time.Now().After(deadline) {
				fail(fmt.Errorf("tour: %s was not ready within a minute", name))
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(tourSettle + st.hold)
		var err error
		u.doWait(func() { err = u.captureScreen(filepath.Join(dir, name)) })
		if err != nil {
			fail(err)
			return
		}
	}
	u.Do(u.endAutorun)
}

// doWait runs f on the UI goroutine and waits for it.
func (u *ui) doWait(f func()) {
	done := make(chan struct{})
	u.Do(func() {
		defer close(done)
		f()
	})
	<-done
}

// doCheck evaluates cond on the UI goroutine.
func (u *ui) doCheck(cond func(*ui) bool) bool {
	var ok bool
	u.doWait(func() { ok = cond(u) })
	return ok
}

// captureScreen writes the window as PNG and its visible texts beside it;
// a blank picture is an error.
func (u *ui) captureScreen(base string) error {
	img := appwidget.CaptureWindow(u.Win)
	if img == nil {
		return errors.New("tour: the window could not be captured")
	}
	if n := distinctColors(img, 16); n < 16 {
		return fmt.Errorf("tour: %s is blank (%d colours)", filepath.Base(base), n)
	}
	if p := u.layoutProblems(); len(p) > 0 {
		return fmt.Errorf("tour: %s: %s", filepath.Base(base), strings.Join(p, "; "))
	}
	if err := appwidget.WritePNG(base+".png", img); err != nil {
		return fmt.Errorf("tour: %w", err)
	}
	texts := strings.Join(visibleTexts(u.Win.Content()), "\n") + "\n"
	return os.WriteFile(base+".txt", []byte(texts), 0o644)
}

// layoutProblems lists the fields out of place on the screen shown: those
// of the Matrix screen's form in view.
func (u *ui) layoutProblems() []string {
	if sel := u.Tabs.Selected(); sel == nil || sel.Text != app.TabMatrix {
		return nil
	}
	if u.matrix.Load.On() {
		return appwidget.FormProblems(u.matrix.Load.Form)
	}
	return appwidget.FormProblems(u.matrix.Form)
}

// distinctColors counts the colours of img, stopping at limit.
func distinctColors(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// visibleTexts lists the texts a user sees in obj: labels, texts, buttons,
// cards, entries and tab titles of what is visible.
func visibleTexts(obj fyne.CanvasObject) []string {
	var out []string
	var visit func(o fyne.CanvasObject)
	visit = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		switch w := o.(type) {
		case *widget.Label:
			out = append(out, w.Text)
		case *canvas.Text:
			out = append(out, w.Text)
		case *widget.Button:
			out = append(out, w.Text)
		case *widget.Card:
			out = append(out, w.Title, w.Subtitle)
			visit(w.Content)
			return
		case *widget.Entry:
			out = append(out, w.Text)
		case *widget.RichText:
			out = append(out, w.String())
		case *container.AppTabs:
			for _, it := range w.Items {
				out = append(out, it.Text)
			}
			if sel := w.Selected(); sel != nil {
				visit(sel.Content)
			}
			return
		case *container.Scroll:
			visit(w.Content)
			return
		case *appwidget.TabScreen:
			visit(w.Content())
			return
		case *fyne.Container:
			for _, c := range w.Objects {
				visit(c)
			}
			return
		case *container.Split:
			visit(w.Leading)
			visit(w.Trailing)
		case *appwidget.TapArea:
			visit(w.Content)
		case *widget.Form:
			for _, it := range w.Items {
				out = append(out, it.Text)
				visit(it.Widget)
			}
		case *appwidget.DropDown:
			out = append(out, w.Selected)
		case *widget.SelectEntry:
			out = append(out, w.Text)
		case *widget.Check:
			out = append(out, w.Text)
		case *widget.RadioGroup:
			out = append(out, w.Options...)
		case *widget.Table:
			// A table makes its cells as it draws them: read its first rows
			// from its own callbacks instead.
			if w.Length == nil || w.CreateCell == nil || w.UpdateCell == nil {
				return
			}
			rows, cols := w.Length()
			for r := range min(rows, 50) {
				for c := range cols {
					cell := w.CreateCell()
					w.UpdateCell(widget.TableCellID{Row: r, Col: c}, cell)
					visit(cell)
				}
			}
		}
	}
	visit(obj)
	return out
}
