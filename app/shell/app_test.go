package shell

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/results"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestScreensFit1280x800 checks that no screen asks for more than a
// 1280×800 window, so nothing is clipped on a common laptop screen.
func TestScreensFit1280x800(t *testing.T) {
	uiOnly(t)
	for _, hwd := range []fakeHardware{noGPU, oneGPU} {
		d := testDeps(t, &fakeEngine{})
		d.Hardware = hwd
		u := newTestUI(t, d, app.Options{})
		for _, item := range u.Tabs.Items {
			u.Tabs.Select(item)
			min := item.Content.MinSize()
			if min.Width > 1180 || min.Height > 760 {
				t.Errorf("gpus=%d: screen %s needs %.0f×%.0f, more than fits 1280×800 with the tab bar",
					len(hwd.info.GPUs), item.Text, min.Width, min.Height)
			}
		}
		if got := u.Win.Canvas().Content().MinSize(); got.Width > 1280 || got.Height > 800 {
			t.Errorf("gpus=%d: window needs %v", len(hwd.info.GPUs), got)
		}
	}
}

// TestStartupSelectsSimulatorWithoutGPU: the app works on first launch.
func TestStartupSelectsSimulatorWithoutGPU(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	if got := u.server.Kind.Selected; got != app.TargetSim {
		t.Errorf("target kind = %q, want %q without a GPU", got, app.TargetSim)
	}
	if got := u.server.Profile.Selected; got != "tiny" {
		t.Errorf("profile = %q, want tiny", got)
	}
	d := testDeps(t, &fakeEngine{})
	d.Hardware = oneGPU
	u = newTestUI(t, d, app.Options{})
	if got := u.server.Kind.Selected; got != app.TargetVLLM {
		t.Errorf("with a GPU the target kind = %q, want %q", got, app.TargetVLLM)
	}
}

func TestCloseDuringRunAsksThenStopsEverything(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()[:2], hold: true}
	sim := &fakeSim{}
	d := testDeps(t, eng)
	d.Sim = sim
	// Not a temp window: confirming closes it, and a temp window may be closed only once.
	a := apptest.NewTempApp(t)
	u := newUI(a, a.NewWindow("close"), d, app.Options{Target: "sim:tiny"})
	u.Win.SetContent(u.content())
	u.Win.Resize(fyne.NewSize(1280, 800))
	defer u.shutdown()
	u.run.OnStart()
	u.onClose()
	top := u.Win.Canvas().Overlays().Top()
	if top == nil || !apptest.HasText(top, "A run is in progress") {
		t.Fatal("closing during a run does not ask first")
	}
	yes := apptest.FindButton(top, "Quit")
	if yes == nil {
		t.Fatal("the confirmation has no Quit button")
	}
	test.Tap(yes)
	waitFor(t, eng.cancelled, "the run to be cancelled")
	sim.mu.Lock()
	defer sim.mu.Unlock()
	if sim.stopped != 1 {
		t.Errorf("simulator stopped %d times, want 1", sim.stopped)
	}
}

func TestAutorunExportsAndQuits(t *testing.T) {
	dir := t.TempDir()
	eng := &fakeEngine{events: cannedEvents()}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny", Autorun: true, Export: dir})
	quit := make(chan struct{})
	u.quit, u.settle = func() { close(quit) }, 0
	u.start()
	waitFor(t, quit, "autorun to quit")
	if u.exitErr != nil {
		t.Errorf("exit error = %v", u.exitErr)
	}
	if p := eng.lastPlan(); p.Duration > 5*time.Second || len(p.DecodeContexts) == 0 || p.DecodeContexts[len(p.DecodeContexts)-1] > 4096 {
		t.Errorf("autorun on sim:tiny used %v × %v for %v, want the tiny Quick plan", p.DecodeContexts, p.Concurrency, p.Duration)
	}
	for _, name := range append(exportFileNames(), results.ScreenshotFile) {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", name, err)
		}
	}
}

func TestAutorunFailureIsTheExitError(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()[:3], err: errBoom}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny", Autorun: true, Export: t.TempDir()})
	quit := make(chan struct{})
	u.quit, u.settle = func() { close(quit) }, 0
	u.start()
	waitFor(t, quit, "autorun to quit")
	if !errors.Is(u.exitErr, errBoom) {
		t.Errorf("exit error = %v, want the run's error", u.exitErr)
	}
}

// TestContentFitsWindow guards the window size: Fyne grows a window to its
// content's MinSize, so every screen must fit 1280×800 (or scroll).
func TestContentFitsWindow(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.results.Show(cannedReport("tiny", 195.7), "")
	waitFor(t, u.results.Rendered, "the charts")
	for _, it := range u.Tabs.Items {
		u.Tabs.Select(it)
		if got := u.Tabs.MinSize(); got.Width > 1280 || got.Height > 800 {
			t.Errorf("with %s shown the window content asks for %v, more than 1280×800", it.Text, got)
		}
	}
}

// TestAutorunWithoutResultsQuits: a run that measured nothing still quits
// (it used to wait forever for charts that were never drawn), and every
// autorun stops the simulator before it quits.
func TestAutorunWithoutResultsQuits(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()[:2], err: errBoom}
	d := testDeps(t, eng)
	sim := d.Sim.(*fakeSim)
	u := newTestUI(t, d, app.Options{Target: "sim:tiny", Autorun: true, Export: t.TempDir()})
	quit := make(chan struct{})
	stoppedAtQuit := -1
	u.quit, u.settle = func() {
		sim.mu.Lock()
		stoppedAtQuit = sim.stopped
		sim.mu.Unlock()
		close(quit)
	}, 0
	u.start()
	waitFor(t, quit, "autorun to quit")
	if !errors.Is(u.exitErr, errBoom) {
		t.Errorf("exit error = %v, want the run's error", u.exitErr)
	}
	if stoppedAtQuit != 1 {
		t.Errorf("simulator stopped %d times before quit, want 1", stoppedAtQuit)
	}
}

func TestExitAfterQuit(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
	}{{nil, 0}, {errBoom, 1}} {
		var out strings.Builder
		code := -1
		exitAfterQuit(tc.err, &out, func(c int) { code = c })()
		if code != tc.code {
			t.Errorf("exit code with error %v = %d, want %d", tc.err, code, tc.code)
		}
		if !strings.Contains(out.String(), "did not close") || (tc.err != nil && !strings.Contains(out.String(), "boom")) {
			t.Errorf("message %q should say why and give the error", out.String())
		}
	}
}
