package shell

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
)

func TestParseSLOBound(t *testing.T) {
	for _, tc := range []struct {
		text    string
		want    time.Duration
		problem string // in the error; "" when it parses
	}{
		{"", 0, ""},
		{"  ", 0, ""},
		{"0", 0, ""},
		{"2s", 2 * time.Second, ""},
		{"500ms", 500 * time.Millisecond, ""},
		{"1.5 s", 1500 * time.Millisecond, ""},
		{"2 sec", 2 * time.Second, ""},
		{"2", 0, `TTFT bound: "2" has no unit: write it like 2s or 500ms`},
		{"fast", 0, `TTFT bound: "fast" is not a duration: write it like 2s or 500ms`},
		{"-1s", 0, "TTFT bound: -1s is not above zero"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got, err := appwidget.ParseSLOBound(app.SloTTFTName, tc.text)
			if tc.problem == "" {
				if err != nil || got != tc.want {
					t.Errorf("= %v, %v; want %v", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.problem) {
				t.Errorf("error %v, want one saying %q", err, tc.problem)
			}
		})
	}
}

// TestSLOFieldsRead: the fields write an engine.SLO, the default
// percentile as 0, and what the engine refuses is said in the fields' words.
func TestSLOFieldsRead(t *testing.T) {
	test.NewTempApp(t)
	f := appwidget.NewSLOFields(nil)
	f.Ttft.SetText("2s")
	if s, err := f.Read(); err != nil || s != (engine.SLO{TTFT: 2 * time.Second}) {
		t.Errorf("2s at p99 = %+v, %v", s, err)
	}
	f.Ttft.SetText("2h")
	_, err := f.Read()
	if err == nil || err.Error() != "TTFT bound: 2h0m0s is longer than any request waits for a token: use at most 1 hour" {
		t.Errorf("2h: %v", err)
	}
	f.Set(engine.SLO{ITL: 50 * time.Millisecond, Percentile: 90})
	if f.Ttft.Text != "" || f.Itl.Text != "50ms" || f.Pct.Selected != "p90" {
		t.Errorf("set shows %q %q %q", f.Ttft.Text, f.Itl.Text, f.Pct.Selected)
	}
}

func TestBoundTextRoundTrips(t *testing.T) {
	for _, d := range []time.Duration{0, 50 * time.Millisecond, 500 * time.Microsecond, 2 * time.Second, 1500 * time.Millisecond} {
		back, err := appwidget.ParseSLOBound(app.SloITLName, appwidget.BoundText(d))
		if err != nil || back != d {
			t.Errorf("%v written %q reads back as %v, %v", d, appwidget.BoundText(d), back, err)
		}
	}
}

// sloCell is a Valid decode cell with these TTFT and ITL p99s (ms).
func sloCell(ctx, c int, ttftP99, itlP99, tokS float64) engine.Result {
	return engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: c}, Status: engine.StatusValid,
		TotalTokPerSec: tokS, TTFTMs: ttftP99 / 2, ITLMs: itlP99 / 2, MeasuredS: 10,
		TTFTPct: engine.Percentiles{P50: ttftP99 / 2, P90: ttftP99 * 0.8, P99: ttftP99, N: 400},
		ITLPct:  engine.Percentiles{P50: itlP99 / 2, P90: itlP99 * 0.8, P99: itlP99, N: 9000}}
}

// sloResults: at 8K, 1 and 8 requests meet TTFT p99 ≤ 2 s and ITL p99
// ≤ 50 ms and 32 misses on ITL; at 32K even 1 request misses on TTFT.
func sloResults() []engine.Result {
	return []engine.Result{
		sloCell(8*engine.K, 1, 300, 20, 50),
		sloCell(8*engine.K, 8, 900, 40, 3842),
		sloCell(8*engine.K, 32, 1500, 65, 9000),
		sloCell(32*engine.K, 1, 2500, 30, 40),
	}
}

var testSLO = engine.SLO{TTFT: 2 * time.Second, ITL: 50 * time.Millisecond}

// TestSLOViewMarksCells: the SLO view shows which cells meet the SLO with
// their margin; the tok/s view outlines those that miss it.
func TestSLOViewMarksCells(t *testing.T) {
	test.NewTempApp(t)
	h := appwidget.NewHeatmap("")
	h.SetAxes([]int{8 * engine.K, 32 * engine.K}, []int{1, 8, 32})
	for _, r := range sloResults() {
		h.SetResult(r)
	}
	h.Redraw()
	if !h.Mode.Hidden || h.Cell(8*engine.K, 32).Bg.StrokeWidth != 0 {
		t.Fatal("without an SLO the heatmap offers a choice or marks a cell")
	}
	h.SetSLO(testSLO)
	h.Redraw()
	if h.Mode.Hidden || h.Mode.Options[len(h.Mode.Options)-1] != appwidget.HeatModeSLO {
		t.Fatalf("with an SLO the views offered are %q (hidden %v)", h.Mode.Options, h.Mode.Hidden)
	}
	for _, tc := range []struct {
		ctx, c int
		miss   bool
	}{{8 * engine.K, 1, false}, {8 * engine.K, 8, false}, {8 * engine.K, 32, true}, {32 * engine.K, 1, true}} {
		hc := h.Cell(tc.ctx, tc.c)
		if marked := hc.Bg.StrokeColor == appwidget.SloMissColor && hc.Detail.Text == "misses SLO"; marked != tc.miss {
			t.Errorf("tok/s view: %d × %d marked %v (%q), want %v", tc.ctx, tc.c, marked, hc.Label(), tc.miss)
		}
	}
	h.Mode.SetSelected(appwidget.HeatModeSLO)
	for _, tc := range []struct {
		ctx, c int
		want   string
	}{
		{8 * engine.K, 1, "Meets ITL 60 % to spare"},
		{8 * engine.K, 8, "Meets ITL 20 % to spare"},
		{8 * engine.K, 32, "Misses ITL 30 % over"},
		{32 * engine.K, 1, "Misses TTFT 25 % over"},
	} {
		if got := h.Cell(tc.ctx, tc.c).Label(); got != tc.want {
			t.Errorf("SLO view %d × %d = %q, want %q", tc.ctx, tc.c, got, tc.want)
		}
	}
	if h.SloKey.Hidden || !strings.Contains(h.SloKey.Text, "TTFT p99 within 2 s and ITL p99 within 50 ms") || h.Legend.Box.Visible() {
		t.Errorf("SLO view key %q (hidden %v), colour key shown %v", h.SloKey.Text, h.SloKey.Hidden, h.Legend.Box.Visible())
	}
}

func TestCellDetails(t *testing.T) {
	r := sloCell(8*engine.K, 32, 1500, 65, 9000)
	r.PerRequestPct = engine.Percentiles{P50: 41.2, P90: 45, P99: 47.1, P10: 38, P1: 35.2, N: 42}
	got := appwidget.CellDetails(r, testSLO)
	for _, want := range []string{
		"TTFT: p50 750 ms · p90 1,200 ms · p99 1,500 ms (400 samples)",
		"ITL: p50 32.5 ms · p90 52.0 ms · p99 65.0 ms (9,000 samples)",
		// A speed's slow requests are its low end: p10 and p1, not p90 and p99.
		"Per request tok/s: p50 41.2 · p10 38.0 · p1 35.2 ‡ (42 samples) · p10 and p1 are the slowest requests\n",
		"⚠ Per request tok/s p1 from 42 samples: read it as the slowest few",
		"SLO TTFT p99 within 2 s and ITL p99 within 50 ms: Misses, ITL 30 % over",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("details lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "⚠ TTFT") || strings.Contains(got, "⚠ ITL") || strings.Contains(got, "47.1") {
		t.Errorf("a p99 from 400 or more samples is marked, or a speed's p99 (its fastest requests) shown as its tail:\n%s", got)
	}
	older := r // a report from before the low tail was kept: its p90 and p99 are the fastest requests
	older.PerRequestPct.P10, older.PerRequestPct.P1 = 0, 0
	got = appwidget.CellDetails(older, engine.SLO{})
	for _, want := range []string{
		"Per request tok/s: p50 41.2 · p90 45.0 · p99 47.1 ‡ (42 samples) · p90 and p99 are the fastest requests (this report kept no p10 or p1)",
		"⚠ Per request tok/s p99 from 42 samples: read it as the fastest few",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("an older report's details lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Per request tok/s p99 from 42 samples: read it as the slowest") {
		t.Errorf("a speed's p99 is called its slowest requests:\n%s", got)
	}
	imported := r
	imported.TTFTPct.N, imported.ITLPct.N, imported.PerRequestPct.N = 0, 0, 0
	got = appwidget.CellDetails(imported, engine.SLO{})
	if !strings.Contains(got, "TTFT: p50 750 ms · p90 1,200 ms · p99 1,500 ms\n") || strings.Contains(got, "sample") || strings.Contains(got, "SLO") {
		t.Errorf("a report without sample counts (or SLO) shows:\n%s", got)
	}
	imported.TTFTPct = engine.Percentiles{P50: 750}
	if got := appwidget.CellDetails(imported, engine.SLO{}); !strings.Contains(got, "TTFT: p50 750 ms · p90 — · p99 —\n") {
		t.Errorf("a report with only the median TTFT shows:\n%s", got)
	}
}

// TestHeatmapTapShowsDetails: tapping a finished cell shows its figures
// under the grid; tapping it again hides them.
func TestHeatmapTapShowsDetails(t *testing.T) {
	test.NewTempApp(t)
	h := appwidget.NewHeatmap("")
	h.SetAxes([]int{8 * engine.K}, []int{1, 8})
	h.SetResult(sloCell(8*engine.K, 8, 900, 40, 3842))
	h.Redraw()
	var areas []*appwidget.TapArea
	apptest.Walk(h.Object(), func(o fyne.CanvasObject) bool {
		if a, ok := o.(*appwidget.TapArea); ok {
			areas = append(areas, a)
		}
		return false
	})
	if len(areas) != 2 {
		t.Fatalf("%d tappable cells, want 2", len(areas))
	}
	test.Tap(areas[0]) // 8K × 1: still waiting, nothing to show
	if h.Details.Visible() {
		t.Errorf("a waiting cell shows details %q", h.Details.Text)
	}
	test.Tap(areas[1])
	if !h.Details.Visible() || !strings.Contains(h.Details.Text, "TTFT: p50 450 ms · p90 720 ms · p99 900 ms (400 samples)") {
		t.Errorf("details after a tap: %q (shown %v)", h.Details.Text, h.Details.Visible())
	}
	test.Tap(areas[1])
	if h.Details.Visible() {
		t.Error("a second tap leaves the details shown")
	}
}
