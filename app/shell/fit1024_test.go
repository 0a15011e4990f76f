package shell

import (
	"testing"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/matrix"
	appwidget "speedmatrix/app/widget"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
)

// matrixAt1024 is the Matrix screen with a preset's plan and a kind of plan
// shown, laid out in a window 1,024 × 700.
func matrixAt1024(t *testing.T, preset, kind string) *ui {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
	u.Show(app.TabMatrix)
	u.matrix.UsePreset(preset)
	u.matrix.Load.Kind.SetSelected(kind)
	u.Win.Resize(fyne.NewSize(1000, 700))
	u.Win.Resize(fyne.NewSize(1024, 700)) // and lays the screen out again
	return u
}

// TestHintsInSightAt1024: at 1,024 px every hint of the Matrix and load
// test forms is whole inside its pane, even at the pane's narrowest
// (Fyne's form leaves a hint's indent out of its width: the widest were
// cut, "… 1 from 64").
func TestHintsInSightAt1024(t *testing.T) {
	uiOnly(t)
	for _, kind := range []string{matrix.KindMatrix, matrix.KindLoad} {
		u := matrixAt1024(t, app.PresetStandard, kind)
		form := u.matrix.Form
		if kind == matrix.KindLoad {
			form = u.matrix.Load.Form
		}
		var pane *container.Scroll
		apptest.Walk(u.Win.Content(), func(o fyne.CanvasObject) bool {
			if s, ok := o.(*container.Scroll); ok && apptest.Walk(s.Content, func(c fyne.CanvasObject) bool { return c == form }) {
				pane = s // the last found is the innermost
			}
			return false
		})
		if pane == nil {
			t.Fatalf("%s: no pane holds the form", kind)
		}
		// As narrow as the split may make it: at 1,024 px it did.
		pane.Resize(fyne.NewSize(pane.MinSize().Width, pane.Size().Height))
		d := fyne.CurrentApp().Driver()
		// The pane's scroll bar is drawn over its right edge.
		right := d.AbsolutePositionForObject(pane).X + pane.Size().Width - theme.ScrollBarSize()
		hints := map[string]bool{}
		for _, it := range form.Items {
			hints[it.HintText] = it.HintText != ""
		}
		seen := 0
		apptest.Walk(form, func(o fyne.CanvasObject) bool {
			if txt, ok := o.(*canvas.Text); ok && hints[txt.Text] {
				seen++
				end := d.AbsolutePositionForObject(txt).X + fyne.MeasureText(txt.Text, txt.TextSize, txt.TextStyle).Width
				if end > right+0.5 {
					t.Errorf("%s: hint %q ends at x = %.0f, past its pane's edge at %.0f", kind, txt.Text, end, right)
				}
			}
			return false
		})
		if seen < 4 {
			t.Errorf("%s: %d hints found, want the form's", kind, seen)
		}
	}
}

// TestHeatCellsFitTheirText: a Standard plan's eight columns at 1,024 px
// are narrower than "will run" at the cells' size: the text is drawn
// smaller, never past its cell.
func TestHeatCellsFitTheirText(t *testing.T) {
	u := matrixAt1024(t, app.PresetStandard, matrix.KindMatrix)
	h := u.matrix.Preview
	if len(h.Concurrency) < 8 {
		t.Fatalf("the preview has %d columns, want the Standard plan's 8", len(h.Concurrency))
	}
	for key, hc := range h.Cells {
		w := fyne.MeasureText(hc.Main.Text, hc.Main.TextSize, hc.Main.TextStyle).Width
		if cell := hc.Text.Size().Width; cell <= 0 || w > cell-2*theme.Padding()+0.5 {
			t.Errorf("%v: %q is %.0f px in a cell %.0f px wide", key, hc.Main.Text, w, cell)
		}
	}
	hc := h.Cells[[2]int{h.Contexts[0], 1}]
	if hc.Main.Text != "will run" || hc.Main.TextSize >= hc.Text.Layout.(*appwidget.CellText).Size || hc.Main.TextSize < hc.Detail.TextSize {
		t.Errorf("a waiting cell says %q at %.1f px (the figure's size %.1f, the detail's %.1f): want it smaller, not tiny",
			hc.Main.Text, hc.Main.TextSize, hc.Text.Layout.(*appwidget.CellText).Size, hc.Detail.TextSize)
	}
}
