package charts

import (
	"math"
	"slices"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

func TestFormats(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{formatPrefillLabel(9534), "9,534"},
		{formatPrefillLabel(40400), "40.4K"},
		{formatPrefillLabel(16000), "16K"},
		{report.PerRequest(2009), "2009.0"},
		{report.PerRequest(169.74), "169.7"},
		{formatCompact(2500), "2.5K"},
		{formatCompact(500), "500"},
		{formatCompact(1.5e6), "1.5M"},
		{report.Percent(0.125), "+12.5%"},
		{report.Percent(-0.03), "−3.0%"},
		{report.Percent(0.0001), "0.0%"},
		{formatMsTick(20000)(15000), "15 s"},
		{formatMsTick(5000)(2500), "2,500 ms"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestViridisIsPerceptual checks the colour map's defining property: its
// lightness rises steadily, so a higher tok/s always reads as brighter.
func TestViridisIsPerceptual(t *testing.T) {
	prev := -1.0
	for i := 0; i <= 100; i++ {
		l := luminance(colorAt(viridisStops, float64(i)/100))
		if l <= prev {
			t.Fatalf("luminance falls at %d%%: %.4f after %.4f", i, l, prev)
		}
		prev = l
	}
	if colorAt(viridisStops, 0) != viridisStops[0] || colorAt(viridisStops, 1) != viridisStops[10] || colorAt(viridisStops, 2) != viridisStops[10] {
		t.Error("the ends of the map are not its first and last stops")
	}
	if mid := colorAt(divergingStops, 0.5); luminance(mid) < 0.85 {
		t.Errorf("the diverging map's centre %v is not near white", mid)
	}
}

func TestOptions(t *testing.T) {
	if o, err := (Options{}).check(); err != nil || o.Theme != Light || o.Scale != 1 {
		t.Errorf("zero options: %+v, %v", o, err)
	}
	for _, o := range []Options{{Theme: "sepia"}, {Scale: 5}, {Scale: -1}} {
		if _, err := Draw(KindHeatmap, engine.Report{}, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := Draw("pie", engine.Report{}, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "decode-heatmap") {
		t.Errorf("unknown kind: %v", err)
	}
}

// TestEmptyAndPartialReports draws a report with nothing in it and one cut
// short: every picture renders and says what is missing.
func TestEmptyAndPartialReports(t *testing.T) {
	partial := loadSeed(t, "seed000")
	partial.Run.Complete = false
	partial.Results = partial.Results[:8]
	for name, r := range map[string]engine.Report{"empty": {}, "partial": partial} {
		m := BuildModel(r)
		for _, kind := range Kinds {
			d, err := drawModel(kind, m, DefaultOptions())
			if err != nil {
				t.Fatalf("%s %s: %v", name, kind, err)
			}
			if _, h := d.Size(); h <= 0 {
				t.Errorf("%s %s: height %d", name, kind, h)
			}
		}
	}
	if m := BuildModel(engine.Report{Run: engine.RunInfo{Complete: true}}); m.Prefill.Empty == "" || m.PerRequest.Empty == "" {
		t.Error("an empty report's charts do not say they are empty")
	}
	m := BuildModel(partial)
	if m.Header.Notice != "Partial run: 8 of 46 cells finished" {
		t.Errorf("notice %q", m.Header.Notice)
	}
	// The plan's decode grid stays whole: cells not run yet are Pending.
	if got := m.Decode.Cells[1][0]; got.Status != engine.StatusPending || got.Text != "Pending" {
		t.Errorf("cell not measured yet: %+v", got)
	}
	if len(m.Decode.Rows) != 5 || len(m.Decode.Cols) != 8 {
		t.Errorf("grid %d×%d, want the plan's 5×8", len(m.Decode.Rows), len(m.Decode.Cols))
	}
}

// TestSimulatedIsLabelled: a run against the simulator says so in the
// badge, a banner and the Engine section of every picture.
func TestSimulatedIsLabelled(t *testing.T) {
	r := loadSeed(t, "seed003")
	r.Server.Simulated, r.Server.SimProfile = true, "rtx3090"
	m := BuildModel(r)
	if m.Header.Badge != "simulated (profile rtx3090)" || !m.Header.Simulated {
		t.Errorf("header %+v", m.Header)
	}
	for _, kind := range Kinds {
		d, _ := drawModel(kind, m, DefaultOptions())
		if !strings.Contains(strings.Join(d.Texts(), "\n"), "simulated (profile rtx3090)") {
			t.Errorf("%s does not say simulated", kind)
		}
	}
	want := kv{Key: "Simulated", Value: "simulated (profile rtx3090)"}
	if engineSec := m.Sections[1]; !slices.Contains(engineSec.Rows, want) {
		t.Errorf("Engine section %+v has no %+v", engineSec.Rows, want)
	}
}

func TestDelta(t *testing.T) {
	a := loadSeed(t, "seed000")
	b := loadSeed(t, "seed000")
	b.Results = append([]engine.Result{}, b.Results...)
	for i := range b.Results {
		b.Results[i].TotalTokPerSec *= 1.1
	}
	h := buildDelta(a, b)
	if !h.Scale.Diverging || h.Scale.Min != -h.Scale.Max { // within ±100 %: symmetric
		t.Errorf("scale %+v is not diverging around 0", h.Scale)
	}
	c := h.Cells[0][3] // 8K × 8
	if c.Text != "+10.0%" || c.Detail != "1,237.5 → 1,361.3" || c.Pos <= 0.5 {
		t.Errorf("8K×8: %+v", c)
	}
	if over := h.Cells[4][7]; over.Status != engine.StatusOverCapacity {
		t.Errorf("123K×128: %+v", over)
	}
	same := buildDelta(a, a)
	if c := same.Cells[2][2]; c.Text != "≈ 0.0%" || math.Abs(c.Pos-0.5) > 1e-9 {
		t.Errorf("no change: %+v", c)
	}
	if !strings.HasPrefix(h.Notes[0], "B is faster in ") || !strings.HasPrefix(same.Notes[0], "B is faster in 0 cells, slower in 0, no different in ") {
		t.Errorf("headlines %q and %q", h.Notes[0], same.Notes[0])
	}
	// A change within both cells' noise is drawn neutral, one beyond it is not.
	n := loadSeed(t, "seed000")
	n.Results = append([]engine.Result{}, n.Results...)
	for i := range n.Results {
		n.Results[i].TotalTokPerSec *= 1.005
	}
	if c := buildDelta(a, n).Cells[0][3]; c.Value != 0 || c.Text != "≈ +0.5%" {
		t.Errorf("+0.5 %% within noise: %+v", c)
	}
	other := buildDelta(loadSeed(t, "seed003"), a)
	if got := other.Cells[0][0].Text; got != "Not in B" {
		t.Errorf("context 0 is only in A, cell says %q", got)
	}
	// B runs 2.5× as fast in one cell and half as fast in another: the key
	// runs from −100 % (the floor: all throughput lost) to +200 %, zero at
	// its middle, and each side keeps its own scale.
	c2 := loadSeed(t, "seed000")
	c2.Results = append([]engine.Result{}, c2.Results...)
	for i := range c2.Results {
		switch r := &c2.Results[i]; {
		case r.Phase == engine.PhaseDecode && r.ContextTokens == 8*engine.K && r.Concurrency == 8:
			r.TotalTokPerSec *= 2.5
		case r.Phase == engine.PhaseDecode && r.ContextTokens == 8*engine.K && r.Concurrency == 1:
			r.TotalTokPerSec *= 0.5
		}
	}
	far := buildDelta(a, c2)
	var ticks []string
	for _, tk := range far.Scale.Ticks {
		ticks = append(ticks, tk.Label)
	}
	if want := []string{"−100.0%", "−50.0%", "0.0%", "+100.0%", "+200.0%"}; !slices.Equal(ticks, want) {
		t.Errorf("key %q, want %q", ticks, want)
	}
	for _, tk := range far.Scale.Ticks {
		if want := map[string]float64{"−100.0%": 0, "−50.0%": 0.25, "0.0%": 0.5, "+100.0%": 0.75, "+200.0%": 1}[tk.Label]; math.Abs(far.Scale.Pos(tk.Value)-want) > 1e-9 {
			t.Errorf("tick %s at %.3f, want %.2f", tk.Label, far.Scale.Pos(tk.Value), want)
		}
	}
	if slower := far.Cells[0][0]; slower.Text != "−50.0%" || math.Abs(slower.Pos-0.25) > 1e-9 {
		t.Errorf("8K×1 at half the speed: %+v", slower)
	}
}

// TestFailedCellsShowTheirError: a Failed cell is hatched in the heatmap,
// explained in the legend, and the server's message is listed under the
// table and drawn.
func TestFailedCellsShowTheirError(t *testing.T) {
	r := loadSeed(t, "seed000")
	for i := range r.Results {
		res := &r.Results[i]
		if res.Phase == engine.PhaseDecode && res.ContextTokens == 16*engine.K && res.Concurrency == 32 {
			res.Status, res.Error = engine.StatusFailed, "HTTP 500: CUDA out of memory"
		}
	}
	m := BuildModel(r)
	if c := m.Decode.Cells[1][5]; c.Status != engine.StatusFailed || c.Text != "Failed" || c.Detail != "" {
		t.Errorf("failed cell %+v", c)
	}
	if want := "Sustained decode 16K × 32: HTTP 500: CUDA out of memory"; len(m.Table.Errors) != 1 || m.Table.Errors[0] != want {
		t.Errorf("errors %q", m.Table.Errors)
	}
	var notes []string
	for _, l := range m.Decode.Legend {
		notes = append(notes, l.Note)
	}
	if strings.Join(notes, "|") != engine.NoteOverCapacity+"|"+engine.NoteFailed {
		t.Errorf("legend %q", notes)
	}
	d, _ := drawModel(KindReport, m, DefaultOptions())
	if !strings.Contains(strings.Join(d.Texts(), "\n"), "CUDA out of memory") {
		t.Error("the error is not drawn")
	}
}

// TestDecodeScaleRoundsOut: the decode heatmaps' one scale spans the Valid
// cells' values rounded out to 1-2-5 × 10ⁿ, logarithmic from a factor of
// 8, whatever order the values come in; nothing to span gives no ticks.
func TestDecodeScaleRoundsOut(t *testing.T) {
	for _, tc := range []struct {
		values   []float64
		min, max float64
		log      bool
	}{
		{[]float64{195.7}, 100, 200, false},
		{[]float64{200}, 100, 200, false},
		{[]float64{195.7, 316.5}, 100, 500, false},
		{[]float64{9005.7, 86.7, 375.5}, 50, 10000, true},
		{[]float64{0, 120, 950}, 100, 1000, true},
	} {
		s := DecodeScale(tc.values)
		if s.Min != tc.min || s.Max != tc.max || s.Log != tc.log || len(s.Ticks) < 2 || s.Label != "total tok/s" {
			t.Errorf("DecodeScale(%v) = %v–%v log %v, %d ticks; want %v–%v log %v", tc.values, s.Min, s.Max, s.Log, len(s.Ticks), tc.min, tc.max, tc.log)
		}
	}
	if s := DecodeScale(nil); len(s.Ticks) != 0 || s.Max != 0 {
		t.Errorf("DecodeScale(nil) = %+v, want an empty scale", s)
	}
}

// TestDeltaOfFittedContexts: two runs that planned 4K and measured it
// fitted to their server (its length less the output) compare in one row.
func TestDeltaOfFittedContexts(t *testing.T) {
	run := func(v float64) engine.Report {
		r := engine.Report{Plan: engine.Plan{DecodeContexts: []int{4096}, Concurrency: []int{1}, MaxOutputTokens: 256}}
		r.Server.MaxModelLen = 4096
		fitted := engine.FitContexts([]int{4096}, 4096, 256)[0]
		r.Results = []engine.Result{{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: fitted, Concurrency: 1},
			ContextLabel: engine.ContextLabel(fitted), Status: engine.StatusValid, TotalTokPerSec: v}}
		return r
	}
	h := buildDelta(run(100), run(110))
	if len(h.Rows) != 1 || h.Cells[0][0].Text != "+10.0%" {
		t.Errorf("rows %v, cells %+v", h.Rows, h.Cells)
	}
}
