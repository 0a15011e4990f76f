package shell

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine/report"
)

// TestDropDownNeverOpensOnNoCanvas: Fyne's menu dereferences the canvas
// it is given unchecked, so a Select whose canvas Fyne has forgotten
// panicked on the click that opened it (the crash after "Save one file…",
// then a Select). The app's drop-downs open no menu then, and open it on
// the next click.
func TestDropDownNeverOpensOnNoCanvas(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Fyne opens a menu on no canvas without panicking: the guard in dropdown.go may go")
			}
		}()
		widget.NewPopUpMenu(fyne.NewMenu("", fyne.NewMenuItem("report.md", nil)), nil)
	}()

	d := appwidget.NewDropDown([]string{"report.md", "results.csv"}, func(string) {})
	u.Win.SetContent(d)
	overlays := u.Win.Canvas().Overlays()
	forgotten := func(fyne.CanvasObject) fyne.Canvas { return nil }
	known := d.CanvasFor
	d.CanvasFor = forgotten
	test.Tap(d)
	d.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	if overlays.Top() != nil {
		t.Fatalf("a menu opened on a canvas Fyne does not know: %T", overlays.Top())
	}
	d.CanvasFor = known
	test.Tap(d)
	menu := apptest.Walk(overlays.Top(), func(o fyne.CanvasObject) bool { _, ok := o.(*widget.PopUpMenu); return ok })
	if !menu || !apptest.HasText(overlays.Top(), report.MarkdownFile) {
		t.Errorf("the next click opened %T (a menu: %v), want the menu of options", overlays.Top(), menu)
	}
}

// TestSaveOneFileInTheBackground: the file chosen in Save one file… is
// made and written off the UI goroutine, then the status says where.
func TestSaveOneFileInTheBackground(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	r := u.results
	rep := cannedReport("tiny", 195.7)
	r.Show(rep, "")
	path := filepath.Join(t.TempDir(), "report.md")
	saved := make(chan struct{})
	r.SaveAs = func(name string, ok func(w io.WriteCloser, path string)) {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		ok(closeNotifier{f, saved}, path)
	}
	r.OnSaveOne(report.MarkdownFile) // the menu item's action
	waitFor(t, saved, "the file to be written")
	waitUntil(t, func() bool { return strings.HasPrefix(r.Status.Text, "Saved ") }, "the status")
	if b, err := os.ReadFile(path); err != nil || string(b) != report.Markdown(rep) {
		t.Errorf("saved %d bytes (%v), want report.md", len(b), err)
	}
	if r.Status.Text != "Saved "+path+"." {
		t.Errorf("status %q; want where it went", r.Status.Text)
	}
}

// closeNotifier closes done after closing its file.
type closeNotifier struct {
	*os.File
	done chan struct{}
}

func (c closeNotifier) Close() error {
	defer close(c.done)
	return c.File.Close()
}

// TestPanicInACallbackIsRecovered: a panic in a callback of ours on the UI
// goroutine is logged with its stack, and the app goes on.
func TestPanicInACallbackIsRecovered(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	var got []string
	u.Panicked = func(p any, stack []byte) { got = append(got, p.(string)+"\n"+string(stack)) }
	done := make(chan struct{})
	u.Do(func() { panic("boom") })
	u.Do(func() { close(done) })
	waitFor(t, done, "the next callback")
	if len(got) != 1 || !strings.HasPrefix(got[0], "boom\n") || !strings.Contains(got[0], "TestPanicInACallbackIsRecovered") {
		t.Errorf("logged %q, want the panic and its stack", got)
	}
}

// TestCrashKeepsTheRun: a panic out of the window's event loop stops the
// run and the simulator, and the error Main returns says where every
// finished cell of the run is saved.
func TestCrashKeepsTheRun(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()[:4], hold: true}
	d := testDeps(t, eng)
	sims := &fakeSim{}
	d.Sim = sims
	u := newTestUI(t, d, app.Options{Target: "sim:tiny"})
	u.run.OnStart()
	waitUntil(t, func() bool { return u.run.Saver.Dir != "" }, "the first cell to be saved")
	var log bytes.Buffer
	err := u.crashed(errors.New("nil pointer"), []byte("goroutine 1 [running]:\n"), &log)
	if err == nil || !strings.Contains(err.Error(), "every finished cell of the run is saved in "+u.run.Saver.Dir) {
		t.Errorf("Main would report %v", err)
	}
	if !strings.HasPrefix(log.String(), "speedmatrix: internal error in the window: nil pointer\ngoroutine 1") {
		t.Errorf("logged %q", log.String())
	}
	select {
	case <-eng.cancelled:
	default:
		t.Error("the run goes on after the crash")
	}
	if sims.stopped == 0 {
		t.Error("the simulator was not stopped")
	}
	if rep, err := report.Load(u.run.Saver.Dir); err != nil || len(rep.Results) == 0 {
		t.Errorf("the saved run: %d cells, %v", len(rep.Results), err)
	}
}
