package shell

import (
	"testing"

	"speedmatrix/app"
	"speedmatrix/app/matrix"
	appwidget "speedmatrix/app/widget"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestMatrixFormsAfterTheirRendererIsDropped: Fyne drops the renderer of a
// widget hidden for a minute (the Matrix form behind a load test, the load
// test's form behind the matrix) and builds it again when the form is
// refreshed or shown. Each form must come back as it was: every field in
// its row, none over another (after a load test, the Matrix form's fields
// floated over other rows until a restart).
func TestMatrixFormsAfterTheirRendererIsDropped(t *testing.T) {
	uiOnly(t)
	cases := []struct {
		name         string
		form         func(m *matrix.Tab) *widget.Form
		shown, other string
		// whileHidden is what the app does meanwhile.
		whileHidden func(m *matrix.Tab)
	}{
		{"the Matrix form after a load test", func(m *matrix.Tab) *widget.Form { return m.Form }, matrix.KindMatrix, matrix.KindLoad,
			func(m *matrix.Tab) { m.UsePreset(app.PresetQuick) }}, // a new Prefill repeats hint: the form refreshes
		{"the load test's form after the matrix", func(m *matrix.Tab) *widget.Form { return m.Load.Form }, matrix.KindLoad, matrix.KindMatrix,
			func(m *matrix.Tab) { m.Load.Rates.SetText("20") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
			m := u.matrix
			u.Show(app.TabMatrix)
			m.UsePreset(app.PresetStandard)
			m.Load.Kind.SetSelected(c.shown)
			form := c.form(m)
			if p := appwidget.FormProblems(form); len(p) > 0 {
				t.Fatalf("before: %v", p)
			}
			m.Load.Kind.SetSelected(c.other)
			// Hidden long enough: Fyne drops its renderer (when this ends).
			t.Run("hidden", func(t *testing.T) { test.TempWidgetRenderer(t, form) })
			c.whileHidden(m)
			m.Load.Kind.SetSelected(c.shown)
			// What the window does with a renderer it has not laid out.
			test.TempWidgetRenderer(t, form).Layout(form.Size())
			if p := appwidget.FormProblems(form); len(p) > 0 {
				t.Errorf("after: %v", p)
			}
		})
	}
}

// TestFormProblemInSightAtSmallSize: at 1,024 × 700, a problem in either
// form is shown where the window shows it, not under the form's fold, and
// the load test's Rates card says why it has no rows.
func TestFormProblemInSightAtSmallSize(t *testing.T) {
	uiOnly(t)
	cases := []struct {
		name  string
		kind  string
		spoil func(m *matrix.Tab)
		shown func(m *matrix.Tab) *appwidget.Banner
	}{
		{"load test", matrix.KindLoad, func(m *matrix.Tab) { m.Load.Rates.SetText("fast") }, func(m *matrix.Tab) *appwidget.Banner { return m.Load.Banner }},
		{"matrix", matrix.KindMatrix, func(m *matrix.Tab) { m.Concurrency.SetText("many") }, func(m *matrix.Tab) *appwidget.Banner { return m.Banner }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
			m := u.matrix
			u.Show(app.TabMatrix)
			m.Load.Kind.SetSelected(c.kind)
			c.spoil(m)
			u.Win.Resize(fyne.NewSize(1024, 700)) // and lays the screen out
			b := c.shown(m)
			if !b.Visible() {
				t.Fatal("no problem shown")
			}
			pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(b.Box)
			if bottom, h := pos.Y+b.Box.Size().Height, u.Win.Canvas().Size().Height; bottom > h || b.Box.Size().Height <= 0 {
				t.Errorf("the problem ends at y = %.0f in a window %.0f high: out of sight", bottom, h)
			}
			if c.kind == matrix.KindLoad {
				if got := m.Load.RatesCard.Subtitle; got != matrix.RatesNoneForNow {
					t.Errorf("Rates card without rows says %q, want why (%q)", got, matrix.RatesNoneForNow)
				}
				m.Load.Rates.SetText("20")
				if got := m.Load.RatesCard.Subtitle; got != matrix.RatesSubtitle || len(m.Load.Preview.Rows) != 1 {
					t.Errorf("fixed: Rates card %q with %d rows, want %q and the one rate", got, len(m.Load.Preview.Rows), matrix.RatesSubtitle)
				}
			}
		})
	}
}
