package shell

import (
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/run"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/charts"
	"speedmatrix/engine"
)

func TestRunFillsHeatmapAndHandsOnTheReport(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny"})
	u.run.OnStart()
	// The run's UI updates wait in the test's UI loop: waitFor runs them.
	done := u.run.UiDone
	if done == nil {
		t.Fatalf("run did not start: %s", u.run.ProgressLine.Text)
	}
	waitFor(t, done, "the run to finish")
	waitFor(t, u.results.Rendered, "the charts")

	if c := u.run.Heat.Cell(1024, 128); c == nil || c.Label() != "Over capacity" {
		t.Errorf("1K × 128 cell = %+v, want Over capacity", c)
	}
	if c := u.run.Heat.Cell(1024, 1); c == nil || c.Label() != "195.7 8 ms TTFT" {
		t.Errorf("1K × 1 cell shows %q, want 195.7 8 ms TTFT", c.Label())
	}
	if got := u.run.ProgressLine.Text; !strings.HasPrefix(got, "Finished in") {
		t.Errorf("progress line = %q", got)
	}
	if got := u.run.Log.Text(); !strings.Contains(got, "Sustained decode 1K × 1: Valid · 195.7 tok/s · 197.0 tok/s/req") || !strings.Contains(got, "tokenizer ready") {
		t.Errorf("event log misses the result or the engine's line:\n%s", got)
	}
	tgt := eng.lastTarget()
	if !tgt.Header.Server.Simulated || tgt.Telemetry != nil {
		t.Errorf("simulator target: simulated %v, telemetry %v; want simulated without GPU telemetry", tgt.Header.Server.Simulated, tgt.Telemetry)
	}
	if len(u.run.SimBadge.Objects) == 0 || !apptest.HasText(u.run.SimBadge, "simulated (profile tiny)") {
		t.Error("Run screen does not label the run simulated (profile tiny)")
	}
	if u.Tabs.Selected().Text != app.TabResults || !u.results.Has {
		t.Errorf("after the run the app shows %q, has results %v", u.Tabs.Selected().Text, u.results.Has)
	}
}

func TestRunProgressLine(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	p := cannedEvents()[1].Progress
	u.run.Heat.SetAxes([]int{1024}, []int{1, 2})
	u.run.Apply(run.RunUpdate{Progress: p})
	if got, want := u.run.ProgressLine.Text, "Cell 2 of 4 · elapsed 1:05 · about 2:10 left"; got != want {
		t.Errorf("progress line = %q, want %q", got, want)
	}
	if got := u.run.Current.Text; !strings.Contains(got, "· 1 request at once ·") || !strings.Contains(got, "1,234.5 tok/s now") {
		t.Errorf("current cell = %q", got)
	}
	if got := u.run.Progress.Value; got != 0.25 {
		t.Errorf("progress bar = %v, want 0.25 (one of four cells done)", got)
	}
	if c := u.run.Heat.Cell(1024, 1); !c.Running || c.Label() != "measuring…" {
		t.Errorf("current cell in the heatmap = %q (running %v)", c.Label(), c.Running)
	}
}

func TestRunCancelStopsTheEngine(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()[:3], hold: true}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny"})
	u.run.OnStart()
	if u.busy() == "" {
		t.Error("busy() is empty during a run: closing would not ask")
	}
	// Esc cancels, as the Run screen says.
	u.Win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	waitFor(t, eng.cancelled, "the engine to see the cancellation")
	waitFor(t, u.run.UiDone, "the run to end")
	if got := u.run.ProgressLine.Text; !strings.HasPrefix(got, "Cancelled after") {
		t.Errorf("progress line = %q, want Cancelled", got)
	}
	if u.run.Running() || u.run.StartBtn.Disabled() {
		t.Error("after cancelling, the run is still marked running or Start is disabled")
	}
}

func TestAccumulatorCoalesces(t *testing.T) {
	var a run.Accumulator
	for i := range 1000 {
		a.Add(engine.Event{Kind: engine.EventProgress, Progress: &engine.Progress{CellIndex: i}})
	}
	a.Add(cannedEvents()[3])
	u, ok := a.Take()
	if !ok || u.Progress.CellIndex != 999 || len(u.Results) != 1 || len(u.Logs) != 1 {
		t.Errorf("take = %v, progress %+v, %d results, %d logs; want the last progress, 1 result, 1 log line", ok, u.Progress, len(u.Results), len(u.Logs))
	}
	if _, ok := a.Take(); ok {
		t.Error("a second take with nothing new reported an update")
	}
}

// TestConsumeThrottles: a flood of events (128 streams report fast) costs
// the UI at most one update per uiUpdateEvery, plus the final one.
func TestConsumeThrottles(t *testing.T) {
	ch := make(chan engine.Event)
	finished := make(chan struct{})
	var applies, results int
	start := time.Now()
	go consume(ch, loopFor(t).post, func(u run.RunUpdate) { applies++; results += len(u.Results) }, finished)
	for i := range 20000 {
		ch <- engine.Event{Kind: engine.EventProgress, Progress: &engine.Progress{CellIndex: i}}
		if i%1000 == 0 {
			ch <- cannedEvents()[3]
		}
	}
	ch <- engine.Event{Kind: engine.EventDone}
	close(ch)
	waitFor(t, finished, "consume to end")
	elapsed := time.Since(start)
	if limit := int(elapsed/appwidget.UiUpdateEvery) + 2; applies > limit {
		t.Errorf("%d UI updates in %v, want at most %d", applies, elapsed, limit)
	}
	if results != 20 {
		t.Errorf("%d results reached the UI, want all 20", results)
	}
}

// TestRunKeepsEventsAndOutputInASmallWindow: at 1024×700, mid-run with a
// banner shown, the Events log and the Output pane each keep a usable
// height (the gauges above them had squeezed them to nothing).
func TestRunKeepsEventsAndOutputInASmallWindow(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
	u.Win.Resize(fyne.NewSize(1024, 700))
	u.Show(app.TabRun)
	r := u.run
	r.Progress.Show()
	r.Apply(run.RunUpdate{Progress: cannedEvents()[1].Progress})
	r.Banner.Show(app.Notice{Message: "The run cannot be saved to History.", Action: "Choose a runs folder you can write on the Settings screen; the measurements are kept in memory until then.",
		Detail: "save report: open /x/report.json: permission denied"})
	r.Banner.OnToggle()
	u.Win.Content().Refresh()
	for name, o := range map[string]fyne.CanvasObject{"Events": r.Log.Object(), "Output": r.Output.Pane.Object()} {
		if h := o.Size().Height; h < 60 {
			t.Errorf("%s is %.0f px tall at 1024×700 with a banner", name, h)
		}
	}
}

// TestStartRunOffWhileTheTargetCannotStart: with "Launch a server" on a
// machine without a GPU, Start run is disabled and the Run screen says why
// in one line, the Server screen's own reason; Ctrl+R says the same and
// runs nothing. Once a server can start and is up, Start run is on.
func TestStartRunOffWhileTheTargetCannotStart(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	u := newTestUI(t, testDeps(t, eng), app.Options{})
	u.server.SelectKind(app.TargetVLLM)
	why := u.server.Launch.Blocker().Problem
	if why == "" || !u.server.Launch.Start.Disabled() {
		t.Fatalf("Start server is not disabled without a GPU (reason %q)", why)
	}
	want := "Start run is off: " + why + "; see the Server screen."
	if !u.run.StartBtn.Disabled() || u.run.ProgressLine.Text != want {
		t.Errorf("Start run disabled %v, line %q; want disabled with %q", u.run.StartBtn.Disabled(), u.run.ProgressLine.Text, want)
	}
	u.run.OnStart() // Ctrl+R
	if b := u.run.Banner; u.run.Running() || len(eng.plans) != 0 || !b.Box.Visible() || b.Current.Message != want {
		t.Errorf("Ctrl+R: running %v, %d runs, banner %q; want no run and the same line", u.run.Running(), len(eng.plans), b.Current.Message)
	}

	u, srv, _ := launchUI(t)
	u.server.SelectKind(app.TargetVLLM)
	u.server.Form.Model.SetText("Qwen/Qwen3-0.6B")
	if !u.run.StartBtn.Disabled() || !strings.Contains(u.run.ProgressLine.Text, "the server is not running: press Start server") {
		t.Errorf("before Start server: Start run disabled %v, line %q", u.run.StartBtn.Disabled(), u.run.ProgressLine.Text)
	}
	u.server.Launch.OnStart()
	close(srv.ready)
	waitFor(t, u.server.Launch.Settled, "the server to be ready")
	if u.run.StartBtn.Disabled() || !strings.HasPrefix(u.run.ProgressLine.Text, "Ready:") {
		t.Errorf("with the server up: Start run disabled %v, line %q", u.run.StartBtn.Disabled(), u.run.ProgressLine.Text)
	}
}

// TestRunColoursAsResults: when a run ends, each cell of the Run screen's
// heatmap has the colour Results and the export give it (one scale rule,
// charts.DecodeScale): 195.7 tok/s is not teal live and purple in Results.
func TestRunColoursAsResults(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny"})
	u.run.OnStart()
	waitFor(t, u.run.UiDone, "the run to finish")
	exported := charts.BuildModel(u.results.Report).Decode
	checked := 0
	for i, row := range exported.Cells {
		for j, c := range row {
			if c.Status != engine.StatusValid {
				continue
			}
			ctx, n := u.results.Report.Results[0].ContextTokens, 0
			fmt.Sscan(exported.Cols[j], &n)
			if exported.Rows[i] != engine.ContextLabel(ctx) {
				t.Fatalf("row %q, want the canned 1K", exported.Rows[i])
			}
			if got, want := u.run.Heat.Cell(ctx, n).Bg.FillColor, color.Color(charts.Viridis(c.Pos)); got != want {
				t.Errorf("%s × %d (%s tok/s): Run %v, Results and export %v", exported.Rows[i], n, c.Text, got, want)
			}
			checked++
		}
	}
	if checked != 2 {
		t.Errorf("%d Valid cells compared, want the 2 canned ones", checked)
	}
}

// TestServerLineSaysWhenItWasScraped: the engine scrapes /metrics between
// cells too and sends at most a sample a second, so the server line says
// when its sample was taken from the start of the cell being measured: a
// drain barrier's "0 running" shown during a 1-request cell says it is
// from before the cell, a 16-request cell's ramp says how far in it was.
func TestServerLineSaysWhenItWasScraped(t *testing.T) {
	uiOnly(t)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cell := func(i, n int, at time.Time) engine.Event {
		return engine.Event{Kind: engine.EventProgress, Time: at, Progress: &engine.Progress{CellIndex: i, CellCount: 3,
			Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 1024, Concurrency: n}}}
	}
	server := func(running int, at time.Time) engine.Event {
		return engine.Event{Kind: engine.EventServer, Time: at, Server: &engine.ServerSample{Running: running, KVUsagePct: 3}}
	}
	var a run.Accumulator
	a.Add(cell(1, 16, t0))
	a.Add(server(8, t0.Add(400*time.Millisecond)))
	a.Add(cell(1, 16, t0.Add(time.Second))) // the monitor's progress of the same cell
	u, _ := a.Take()
	if got, want := run.ServerLine(*u.Server, u.ServerAt, u.CellFrom), "Server (/metrics, 0.4 s into this cell): 8 running · 0 waiting · KV cache 3 % used"; got != want {
		t.Errorf("ramp: %q, want %q", got, want)
	}
	a.Add(server(0, t0.Add(2500*time.Millisecond))) // the drain barrier
	a.Add(cell(2, 1, t0.Add(2600*time.Millisecond)))
	u, _ = a.Take()
	if got, want := run.ServerLine(*u.Server, u.ServerAt, u.CellFrom), "Server (/metrics, 0.1 s before this cell began): 0 running · 0 waiting · KV cache 3 % used"; got != want {
		t.Errorf("drain: %q, want %q", got, want)
	}

	ui := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	ui.run.Apply(u)
	if !strings.HasPrefix(ui.run.ServerLine.Text, "Server (/metrics, 0.1 s before this cell began): 0 running") {
		t.Errorf("Run screen's server line %q", ui.run.ServerLine.Text)
	}
}
