//go:build xvfb

package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/app/results"
	"speedmatrix/engine"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/quality/probe"
	"speedmatrix/engine/sim"
)

// TestXvfbQualityScreens writes screenshots of the Results screen's Quality
// tab, of a simulated run compared with a reference of the same simulator
// before its KV cache went fp8, and of the Matrix form with its Quality
// field, at 1,024 × 700 and 1,440 × 900, into QUALITY_SHOTS:
//
//	QUALITY_SHOTS=/tmp/shots LANG=en_US.UTF-8 \
//	  xvfb-run -a -s '-screen 0 1440x900x24' go test -tags xvfb -run XvfbQualityScreens ./app/shell/
func TestXvfbQualityScreens(t *testing.T) {
	out := os.Getenv("QUALITY_SHOTS")
	if out == "" {
		t.Skip("set QUALITY_SHOTS")
	}
	rep := cannedReport("tiny", 195.7)
	q := simulatedComparison(t)
	rep.Quality = &q
	refPath := writeReference(t, t.TempDir(), "tiny")
	d := testDeps(t, &fakeEngine{})
	d.Do, d.Charts, d.FreeMemory = nil, chartRenderer{}, nil
	u := glUI(t, d, fyne.NewSize(1024, 700), func(u *ui) {
		m := u.matrix.Quality
		m.Pick = func(ok func(string)) { ok(refPath) }
		m.Mode.SetSelected(app.QualityCompare)
		m.OnChoose()
	})
	w := u.Win
	shot := func(name string) {
		t.Helper()
		time.Sleep(1500 * time.Millisecond) // a frame or two, and the charts drawn
		writeShot(t, u, filepath.Join(out, name))
		// And the screen as X shows it (the window's GL frame), where
		// ImageMagick is installed.
		if _, err := exec.LookPath("import"); err == nil {
			if b, err := exec.Command("import", "-window", "root", filepath.Join(out, "x-"+name)).CombinedOutput(); err != nil {
				t.Logf("import: %v: %s", err, b)
			}
		}
	}
	for _, size := range []fyne.Size{{Width: 1024, Height: 700}, {Width: 1440, Height: 900}} {
		suffix := map[float32]string{1024: "-1024.png", 1440: "-1440.png"}[size.Width]
		fyne.DoAndWait(func() { w.Resize(size); u.Show(app.TabMatrix) })
		time.Sleep(500 * time.Millisecond)
		fyne.DoAndWait(func() {
			if s := scrollOf(w.Content(), u.matrix.Form); s != nil {
				s.ScrollToBottom() // the Quality field is the form's last
			}
		})
		shot("matrix" + suffix)
		fyne.DoAndWait(func() {
			u.results.Show(rep, "")
			u.Show(app.TabResults)
			u.results.Views.Select(u.results.Quality.Tab)
			u.results.Quality.View.SetSelected(results.QualityViewChart)
		})
		shot("results-quality" + suffix)
		fyne.DoAndWait(func() { u.results.Quality.View.SetSelected(results.QualityViewTables) })
		shot("results-quality-tables" + suffix)
	}
}

// simulatedComparison is the tiny simulator with an fp8 KV cache compared
// with a reference of it recorded with its default cache: drift at 8K.
func simulatedComparison(t *testing.T) quality.Report {
	t.Helper()
	ctx := t.Context()
	connect := func(n sim.Numerics) probe.Server {
		s := newLogprobSim(t, n)
		srv, err := probe.Connect(ctx, openai.New(s.url, ""), "")
		if err != nil {
			t.Fatal(err)
		}
		return srv
	}
	base := connect(sim.Numerics{})
	o := probe.Options{Contexts: []int{512, 2 * engine.K, 7 * engine.K}, Probes: 4, ContinuationTokens: 48}
	ref, err := probe.Record(ctx, base, quality.Header{Server: engine.ServerInfo{Name: "vllm", Simulated: true, SimProfile: "tiny"}}, o, func(quality.Reference) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	ref.Needle, err = probe.Needle(ctx, base, ref.Contexts, 10, ref.Seed, quality.CleanText(quality.Text()), nil, nil, func([]quality.NeedleContext) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	fp8 := connect(sim.Numerics{KVCacheDType: "fp8"})
	rep, err := probe.Run(ctx, fp8, ref, probe.RunOptions{NeedleTrials: 10, Seed: ref.Seed, Budget: quality.DefaultBudget(),
		Server: engine.ServerInfo{Name: "vllm", Simulated: true, SimProfile: "tiny"}}, func(quality.Report) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// scrollOf is the scroll under o that holds target, nil when none does.
func scrollOf(o fyne.CanvasObject, target fyne.CanvasObject) *container.Scroll {
	var found *container.Scroll
	var walk func(o fyne.CanvasObject, in *container.Scroll)
	walk = func(o fyne.CanvasObject, in *container.Scroll) {
		if found != nil || o == nil {
			return
		}
		if o == target {
			found = in
			return
		}
		switch c := o.(type) {
		case *container.Scroll:
			walk(c.Content, c)
		case *fyne.Container:
			for _, ch := range c.Objects {
				walk(ch, in)
			}
		case fyne.Widget:
			r := test.WidgetRenderer(c)
			for _, ch := range r.Objects() {
				walk(ch, in)
			}
		}
	}
	walk(o, nil)
	return found
}
