package charts

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// loadFixture is one of engine/report's load test fixtures: "load" (a
// simulated test at 1–16 req/s, past saturation from 8) or "load-failed"
// (a real sweep of three rates, the last Failed).
func loadFixture(t testing.TB, name string) engine.Report {
	t.Helper()
	r, err := report.Load(filepath.Join("..", "engine", "report", "testdata", name+".report.json"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// circles counts the circles of a drawing: point markers and legend swatches.
func circles(d *Drawing) int {
	n := 0
	for _, it := range d.items {
		if it.kind == itemCircle {
			n++
		}
	}
	return n
}

// TestLoadKinds: a load test draws its sheet and its two charts, not the
// matrix's; a matrix keeps its own.
func TestLoadKinds(t *testing.T) {
	if got := KindsFor(loadFixture(t, "load")); !slices.Equal(got, []Kind{KindReport, KindLoadLatency, KindLoadGoodput, KindPareto}) {
		t.Errorf("KindsFor(load test) = %v", got)
	}
	if got := KindsFor(loadSeed(t, "seed000")); slices.Contains(got, KindLoadLatency) {
		t.Errorf("KindsFor(matrix) = %v", got)
	}
	if _, err := Draw(KindLoadLatency, loadSeed(t, "seed000"), DefaultOptions()); err == nil || !strings.Contains(err.Error(), "not a load test") {
		t.Errorf("load-latency of a matrix: err = %v", err)
	}
}

// TestLoadModelPoints: one point per Valid rate in each series, at the
// throughput reached (latency) or the offered rate (goodput); the SLO's
// bounds and the y = x line are guides.
func TestLoadModelPoints(t *testing.T) {
	for _, c := range []struct {
		name   string
		points int
		guides []string
	}{
		{"load", 5, []string{"SLO: TTFT p99 ≤ 2 s", "SLO: ITL p99 ≤ 50 ms", "offered rate (y = x)"}},
		{"load-failed", 2, []string{"SLO: TTFT p90 ≤ 2 s", "offered rate (y = x)"}}, // no ITL bound; the Failed rate is not drawn
	} {
		r := loadFixture(t, c.name)
		m := BuildModel(r).Load
		var guides []string
		for _, ch := range []LineChart{m.TTFT, m.ITL, m.Goodput} {
			for _, s := range ch.Series {
				if s.Guide {
					guides = append(guides, s.Name)
				} else if len(s.Points) != c.points {
					t.Errorf("%s %s %s: %d points, want %d", c.name, ch.Title, s.Name, len(s.Points), c.points)
				}
			}
		}
		if !slices.Equal(guides, c.guides) {
			t.Errorf("%s guides %q, want %q", c.name, guides, c.guides)
		}
		first := r.Load.Results[0]
		if p := m.TTFT.Series[1].Points[0]; p.X != first.RequestThroughputRPS || p.Y != first.TTFTMs.P99 {
			t.Errorf("%s: first TTFT p99 point %+v, want (%v, %v)", c.name, p, first.RequestThroughputRPS, first.TTFTMs.P99)
		}
		if p := m.Goodput.Series[2].Points[0]; p.X != first.RateRPS || p.Y != first.GoodputRPS {
			t.Errorf("%s: first goodput point %+v, want (%v, %v)", c.name, p, first.RateRPS, first.GoodputRPS)
		}
		if len(m.Table.Rows) != len(r.Load.Results) {
			t.Errorf("%s: %d table rows, want one per rate", c.name, len(m.Table.Rows))
		}
	}
}

// TestLoadPicturesDraw: every load picture draws its markers (one per
// point, and the legend's), says simulated, and is not blank, in both
// themes; the SVG carries the label too.
func TestLoadPicturesDraw(t *testing.T) {
	pixelTest(t)
	r := loadFixture(t, "load")
	markers := map[Kind]int{KindLoadLatency: 2 * (2*5 + 2), KindLoadGoodput: 2*5 + 2, KindReport: 3 * (2*5 + 2), KindPareto: 5 + 1}
	for _, kind := range LoadKinds {
		for _, th := range []Theme{Light, Dark} {
			d, err := Draw(kind, r, Options{Theme: th})
			if err != nil {
				t.Fatal(err)
			}
			if got := circles(d); got != markers[kind] {
				t.Errorf("%s %s: %d circles, want %d", kind, th, got, markers[kind])
			}
			if !slices.ContainsFunc(d.Texts(), func(s string) bool { return strings.Contains(s, "simulated (profile tiny)") }) {
				t.Errorf("%s %s does not say simulated", kind, th)
			}
			b, err := d.png(1)
			if err != nil {
				t.Fatal(err)
			}
			if n := colours(t, b); n < 20 {
				t.Errorf("%s %s: %d colours: blank?", kind, th, n)
			}
			svg, err := d.svg(1)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(svg, []byte("simulated (profile tiny)")) {
				t.Errorf("%s %s: the SVG does not say simulated", kind, th)
			}
		}
	}
}

// colours counts the distinct colours of a PNG (at most 1,000).
func colours(t *testing.T, b []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[4]uint32]bool{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y && len(seen) < 1000; y += 3 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}

// TestLoadPicture: the app's pane draws the load pictures of a built
// model at the pane's size, in both themes, a narrow pane included.
func TestLoadPicture(t *testing.T) {
	m := BuildModel(loadFixture(t, "load-failed"))
	for _, kind := range LoadKinds {
		for _, th := range []Theme{Light, Dark} {
			for _, pane := range []Pane{{Width: 700, Height: 600}, {Width: 1400, Height: 900, Scale: 2}} {
				img, err := Picture(kind, m, th, pane)
				if err != nil {
					t.Fatalf("%s %s: %v", kind, th, err)
				}
				if w := img.Bounds().Dx(); float64(w) > pane.Width*max(pane.Scale, 1)+1 {
					t.Errorf("%s %s: %d px wide in a pane of %v", kind, th, w, pane.Width)
				}
			}
		}
	}
}

// TestLoadEmpty: a load test with no Valid rate, and a burst, say so
// instead of drawing an empty plot.
func TestLoadEmpty(t *testing.T) {
	r := loadFixture(t, "load-failed")
	r.Load.Results = r.Load.Results[2:] // the Failed rate alone
	if m := BuildModel(r).Load; m.TTFT.Empty == "" || m.Goodput.Empty == "" {
		t.Errorf("no Valid rate: TTFT empty %q, goodput empty %q", m.TTFT.Empty, m.Goodput.Empty)
	}
	burst := loadFixture(t, "load")
	burst.Load.Plan.RatesRPS, burst.Load.Plan.Burst = nil, 200
	burst.Load.Results = burst.Load.Results[:1]
	burst.Load.Results[0].RateRPS, burst.Load.Results[0].Arrivals = 0, engine.ArrivalsBurst
	m := BuildModel(burst).Load
	if !strings.Contains(m.Goodput.Empty, "burst") || len(m.TTFT.Series) < 2 || m.TTFT.Series[1].Points[0].Label != "burst" {
		t.Errorf("burst: goodput empty %q, TTFT series %+v", m.Goodput.Empty, m.TTFT.Series)
	}
	for _, kind := range LoadKinds {
		if _, err := Draw(kind, burst, DefaultOptions()); err != nil {
			t.Errorf("burst %s: %v", kind, err)
		}
	}
}

// TestLoadModelGolden pins what the load pictures show for the fixtures.
func TestLoadModelGolden(t *testing.T) {
	for _, name := range []string{"load", "load-failed"} {
		b, err := json.MarshalIndent(BuildModel(loadFixture(t, name)).Load, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, name+".model.json", append(b, '\n'))
	}
}

// TestPreviewLoad writes the load pictures in both themes with -preview DIR.
func TestPreviewLoad(t *testing.T) {
	if *preview == "" {
		t.Skip("use -preview DIR to write the pictures")
	}
	for _, name := range []string{"load", "load-failed"} {
		for _, th := range []Theme{Light, Dark} {
			dir := filepath.Join(*preview, name+"-"+string(th))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := WriteAllWith(t.Context(), dir, loadFixture(t, name), Options{Theme: th, Scale: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestLoadNotDrawn: a Failed rate is named under the pictures that leave
// it out, and the goodput figure lists the flagged rates.
func TestLoadNotDrawn(t *testing.T) {
	r := loadFixture(t, "load-failed")
	for _, kind := range []Kind{KindLoadLatency, KindLoadGoodput} {
		d, err := Draw(kind, r, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(d.Texts(), "\n")
		for _, want := range []string{"6.42 req/s (Failed)", "4.28 req/s: GPU 0 throttled"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s does not say %q", kind, want)
			}
		}
	}
}
