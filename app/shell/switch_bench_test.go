package shell

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/engine"
)

// loadReport reads a report.json fixture of the charts package: seed000 is
// reference report 000 (default plan on a 128K-context server).
func loadReport(tb testing.TB, name string) engine.Report {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "charts", "testdata", name+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	var r engine.Report
	if err := json.Unmarshal(b, &r); err != nil {
		tb.Fatal(err)
	}
	return r
}

// BenchmarkScreenSwitch is the time from selecting a screen, or a tab of
// the Results screen, to its frame painted: Select, then the test
// driver's Capture, which lays out and paints the whole window with Fyne's
// software painter (image scaling included, as the GL painter does it on
// the CPU). Each iteration first shows another screen (not timed), so every
// timed Select really switches. Real charts, reference report 000, a
// 1280×800 window.
//
//	LANG=en_US.UTF-8 go test -tags ci -run '^$' -bench ScreenSwitch -benchtime 10x ./app/shell/
func BenchmarkScreenSwitch(b *testing.B) {
	d := testDeps(b, &fakeEngine{})
	d.Charts = chartRenderer{}
	d.FreeMemory = nil // each picture's memory goes back, as in the app
	w := test.NewTempWindow(b, nil)
	u := newUI(apptest.NewTempApp(b), w, d, app.Options{})
	w.SetContent(u.content())
	w.Resize(fyne.NewSize(1280, 800))
	b.Cleanup(u.shutdown)
	u.results.Show(loadReport(b, "seed000"), "")
	u.Show(app.TabResults)
	waitFor(b, u.results.Rendered, "the UI")
	w.Canvas().Capture()

	cases := switchCases(u)
	loop := loopFor(b)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				c.away()
				w.Canvas().Capture()
				loop.runPending()
				b.StartTimer()
				c.to()
				w.Canvas().Capture()
			}
		})
	}
}

// switchCase is one screen switch to time: away sets the screen up, to is
// the switch.
type switchCase struct {
	name     string
	away, to func()
}

// switchCases are every screen and every Results tab, each reached from
// another screen or tab.
func switchCases(u *ui) []switchCase {
	screen := func(title string) func() { return func() { u.Show(title) } }
	resultsTab := func(i int) func() {
		return func() {
			u.Show(app.TabResults)
			u.results.Views.SelectIndex(i)
		}
	}
	cases := []switchCase{
		{"Hardware", screen(app.TabRun), screen(app.TabHardware)},
		{"Server", screen(app.TabHardware), screen(app.TabServer)},
		{"Matrix", screen(app.TabHardware), screen(app.TabMatrix)},
		{"Run", screen(app.TabHardware), screen(app.TabRun)},
		{"History", screen(app.TabHardware), screen(app.TabHistory)},
		{"Results", screen(app.TabHardware), screen(app.TabResults)},
		{"Settings", screen(app.TabHardware), screen(app.TabSettings)},
	}
	for i, item := range u.results.Views.Items {
		away := (i + 1) % len(u.results.Views.Items)
		cases = append(cases, switchCase{"Results/" + item.Text, resultsTab(away), resultsTab(i)})
	}
	return cases
}
