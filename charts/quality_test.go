package charts

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// drawnQuality lays out the drift chart of q for export, failing the test
// where it cannot, and checks that every shape has finite coordinates.
func drawnQuality(t *testing.T, q engine.QualityReport) *Drawing {
	t.Helper()
	d, err := drawQuality(q, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range d.items {
		vs := []float64{it.x, it.y, it.w, it.h}
		for _, p := range it.points {
			vs = append(vs, p.X, p.Y)
		}
		if slices.ContainsFunc(vs, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }) {
			t.Fatalf("a shape at a coordinate that is not a number: %+v", it)
		}
	}
	return d
}

// TestQualityChart: the fp8 fixture's chart has both panels on the
// contexts compared, named as every surface names them, each figure with
// its interval, the noise floor as a band and the budget's two lines.
func TestQualityChart(t *testing.T) {
	m := BuildQuality(qualityFixture(false))
	if got := tickLabels(m.KLD.XTicks); !slices.Equal(got, []string{"512", "2K", "8K"}) {
		t.Errorf("context ticks %v, want the contexts compared", got)
	}
	names := func(c LineChart) (out []string) {
		for _, s := range c.Series {
			out = append(out, s.Name)
		}
		return out
	}
	if got := names(m.KLD); !slices.Equal(got, []string{"noise floor (KLD mean)", "KLD mean", "KLD p99", "budget 0.01"}) {
		t.Errorf("KLD series %v", got)
	}
	if got := names(m.Top1); !slices.Equal(got, []string{"noise floor", "top-1 agreement", "budget 98 %"}) {
		t.Errorf("top-1 series %v", got)
	}
	if !m.KLD.Axes[0].Log || m.Top1.Axes[0].Log || m.Top1.Axes[0].Min > 95.1 || m.Top1.Axes[0].Ticks[len(m.Top1.Axes[0].Ticks)-1].Label != "100 %" {
		t.Errorf("axes %+v / %+v: want KLD on a log scale and top-1 up to 100 %% below 95.1 %%", m.KLD.Axes[0], m.Top1.Axes[0])
	}
	if p, ci := m.KLD.Series[1].Points[2], qualityFixture(false).Contexts[2].CI.KLDMean; p.Y != 0.014 || p.Lo != ci.Lo || p.Hi != ci.Hi || !m.KLD.Series[0].Band {
		t.Errorf("8K's KLD mean %+v: want its interval, and the floor a band", p)
	}
	texts := strings.Join(drawnQuality(t, qualityFixture(false)).Texts(), "\n")
	for _, want := range []string{"Quality drift against the reference", "Measured", "KL divergence from the reference", "Top-1 agreement with the reference", "0.014", "95.1 %", "8K", "one bucket for the rest"} {
		if !strings.Contains(texts, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
	if strings.Contains(texts, "simulated") {
		t.Error("a measured comparison's chart says simulated")
	}
	texts = strings.Join(drawnQuality(t, qualityFixture(true)).Texts(), "\n")
	if !strings.Contains(texts, "Quality drift against the reference (simulated)") || !strings.Contains(texts, "simulated (profile tiny)") {
		t.Errorf("a simulated server's chart does not say so:\n%s", texts)
	}
}

func tickLabels(ts []Tick) (out []string) {
	for _, t := range ts {
		out = append(out, t.Label)
	}
	return out
}

// TestQualityZeroKLD: the same server twice drifts by exactly 0, which a
// log axis cannot place: the axis stays positive, 0 is drawn at its foot
// labelled 0, and a note says so.
func TestQualityZeroKLD(t *testing.T) {
	q := qualityFixture(false)
	for i := range q.Contexts {
		c := &q.Contexts[i]
		c.KLDMean, c.KLDP99, c.KLDMax, c.Top1Pct = 0, 0, 0, 100
		c.CI.KLDMean, c.CI.KLDP99, c.CI.Top1Pct = engine.QualityInterval{}, engine.QualityInterval{}, engine.QualityInterval{Lo: 100, Hi: 100}
	}
	q.NoiseFloor, q.Budget = engine.NoiseFloor{}, ""
	m := BuildQuality(q)
	ax := m.KLD.Axes[0]
	if ax.Min <= 0 || ax.Max <= ax.Min || len(ax.Ticks) == 0 || ax.Ticks[0].Value <= 0 {
		t.Fatalf("KLD axis %+v: want a positive log range", ax)
	}
	a := plotArea{box: box{0, 0, 100, 100}, m: m.KLD}
	if y := a.y(0, m.KLD.Series[0].Points[0].Y); y != 100 {
		t.Errorf("a KLD of 0 is drawn at y %v, want the axis's foot (100)", y)
	}
	if m.KLD.Series[0].Points[0].Label != "0" || !slices.Contains(m.Notes, qualityZeroNote) {
		t.Errorf("label %q, notes %q: want 0 and the note", m.KLD.Series[0].Points[0].Label, m.Notes)
	}
	for _, svg := range []bool{false, true} {
		if _, err := RenderQuality(q, DefaultOptions(), svg); err != nil {
			t.Fatal(err)
		}
	}
	drawnQuality(t, q)
}

// TestQualityChartEdges: what a file may hold still draws, bounded: no
// contexts, one, a floor missing at some, 256 contexts, figures that are
// not numbers, a huge model name.
func TestQualityChartEdges(t *testing.T) {
	pixelTest(t)
	huge := strings.Repeat("very-long-model-name/", 5000) + "\x00\u202e"
	for _, tc := range []struct {
		name string
		edit func(*engine.QualityReport)
		want string // a text the chart shows
	}{
		{"none", func(q *engine.QualityReport) { q.Contexts, q.NoiseFloor, q.Verdicts = nil, engine.NoiseFloor{}, nil }, "No context was compared"},
		{"one", func(q *engine.QualityReport) { q.Contexts = q.Contexts[2:] }, "8K"},
		{"floor missing at 2K", func(q *engine.QualityReport) {
			q.NoiseFloor.Contexts = slices.Delete(slices.Clone(q.NoiseFloor.Contexts), 1, 2)
		}, "noise floor (KLD mean)"},
		{"no floor", func(q *engine.QualityReport) { q.NoiseFloor = engine.NoiseFloor{} }, "KLD p99"},
		{"256 contexts", func(q *engine.QualityReport) {
			q.Contexts = nil
			for i := range 300 {
				q.Contexts = append(q.Contexts, qualityDrift(512+i*512, 0.001*float64(i+1), 0.01*float64(i+1), 99-float64(i)/10))
			}
		}, "The charts show the first 256 of 300 contexts."},
		{"not numbers", func(q *engine.QualityReport) {
			q.Contexts[0].KLDMean, q.Contexts[1].KLDP99, q.Contexts[2].Top1Pct = math.NaN(), math.Inf(1), -3
			q.Contexts[1].CI.KLDMean = engine.QualityInterval{Lo: math.Inf(-1), Hi: math.NaN()}
		}, "0.004"},
		{"huge model name", func(q *engine.QualityReport) { q.Server.Model, q.Reference.Model = huge, huge }, "very-long-model-name/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := qualityFixture(true)
			tc.edit(&q)
			d := drawnQuality(t, q)
			if texts := strings.Join(d.Texts(), "\n"); !strings.Contains(texts, tc.want) {
				t.Errorf("the chart lacks %q", tc.want)
			}
			if w, h := d.Size(); w != int(figureWidth) || h > 2000 {
				t.Errorf("chart %d×%d px: want %v wide and not much taller than its panels", w, h, figureWidth)
			}
			for _, c := range []LineChart{BuildQuality(q).KLD, BuildQuality(q).Top1} {
				if len(c.XTicks) > 20 || (len(c.Axes) > 0 && len(c.Axes[0].Ticks) > 12) {
					t.Errorf("%s: %d context ticks, %d value ticks: too many to read", c.Title, len(c.XTicks), len(c.Axes[0].Ticks))
				}
			}
			if _, err := RenderQuality(q, Options{Theme: Dark, Scale: 2}, false); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReportWithQuality: a report with a quality section lists the drift
// chart among its pictures and writes quality.png and quality.svg; the
// sheet gains the chart and the drift table; one without has none of it.
func TestReportWithQuality(t *testing.T) {
	r := loadSeed(t, "seed000")
	if slices.Contains(KindsFor(r), KindQuality) {
		t.Fatal("a report without quality lists the drift chart")
	}
	if _, err := Draw(KindQuality, r, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "no quality section") {
		t.Errorf("the drift chart of a report without quality: %v", err)
	}
	q := qualityFixture(false)
	r.Quality = &q
	if !slices.Contains(KindsFor(r), KindQuality) {
		t.Fatal("a report with quality does not list the drift chart")
	}
	dir := t.TempDir()
	if err := WriteAll(context.Background(), dir, r); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"quality.png", "quality.svg"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || len(b) == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	sim := qualityFixture(true)
	r.Quality = &sim
	if d, err := Draw(KindQuality, r, DefaultOptions()); err != nil || !slices.Contains(d.Texts(), "simulated (profile tiny)") {
		t.Errorf("a measured run's chart of a simulated comparison has no simulated badge: %v", err)
	}
	r.Quality = &q
	sheet, err := Draw(KindReport, r, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	texts := strings.Join(sheet.Texts(), "\n")
	for _, want := range []string{"Quality drift against the reference", "KL divergence from the reference", "Drift by context", "real drift, above the noise floor, over the budget kld=0.01,top1=98%"} {
		if !strings.Contains(texts, want) {
			t.Errorf("the sheet lacks %q", want)
		}
	}
}

// TestQualityTables: the drift table has every figure with its interval,
// the floor and the verdict; the needle table the McNemar line; the task
// table its pairing, and the flipped items are listed.
func TestQualityTables(t *testing.T) {
	m := BuildQuality(qualityFixture(false))
	last := m.Drift.Rows[2].Cells
	for i, want := range map[int]string{0: "8K", 2: "95.1 % (94.5–95.6 %)", 3: "0.014 (0.0112–0.0175)", 8: "99.6 % (99–100 %)",
		10: "real drift, above the noise floor, over the budget kld=0.01,top1=98%"} {
		if last[i] != want {
			t.Errorf("8K's %s: %q, want %q", m.Drift.Columns[i].Title, last[i], want)
		}
	}
	if got := m.Needle.Rows[1].Cells[4]; got != "19/20 → 12/20, p = 0.0156" {
		t.Errorf("8K's needle against the reference: %q", got)
	}
	if got := m.Tasks.Rows[0].Cells; got[0] != "gsm8k-50.jsonl" || got[4] != "44/50 → 41/50, p = 0.375" || got[5] != "2" {
		t.Errorf("task row %q", got)
	}
	if len(m.Flipped) != 2 || m.Flipped[0] != `line 3, now wrong: "Natalia sold clips to 48 of her friends"` {
		t.Errorf("flipped %q", m.Flipped)
	}
	q := qualityFixture(false)
	q.Tasks.Flipped = make([]engine.TaskFlip, 5000)
	if m := BuildQuality(q); len(m.Flipped) != maxListed || !strings.Contains(m.Flipped[maxListed-1], "4,961 more flipped items: quality.json lists every one") {
		t.Errorf("5,000 flipped items are listed as %d lines, the last %q", len(m.Flipped), m.Flipped[len(m.Flipped)-1])
	}
}

// TestQualityHTML: report.html's Quality section holds the chart inline in
// both themes, the tables and the flipped items, says simulated where it
// is, and shows a hostile model name, task file and prompt as text only.
func TestQualityHTML(t *testing.T) {
	r := loadSeed(t, "seed000")
	q := qualityFixture(true)
	q.Server.Model, q.Reference.Model = hostile("server"), hostile("reference")
	q.Tasks.File, q.Tasks.Flipped[0].Prompt = hostile("file"), hostile("prompt")
	q.Server.Server.Version = hostile("version")
	r.Quality = &q
	page, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	hostileAsText(t, page, []string{"server", "reference", "file", "version"})
	section := string(page[bytes.Index(page, []byte(`<section id="quality">`)):])
	section = section[:strings.Index(section, "</section>")]
	for _, want := range []string{"Quality drift against the reference (simulated)", "banner-simulated", "Simulated (profile tiny) — not a measurement",
		`<span class="svg-light"><svg`, `<span class="svg-dark"><svg`, "Drift by context", "19/20 → 12/20, p = 0.0156",
		"real drift, above the noise floor, over the budget", "Items that flipped against the reference", "one bucket for the rest"} {
		if !strings.Contains(section, want) {
			t.Errorf("the Quality section lacks %q", want)
		}
	}
	long := qualityFixture(false)
	long.Budget, long.Tasks.File = "kld=0.01,"+strings.Repeat("x", 1<<20), strings.Repeat("f", 1<<20)
	r.Quality = &long
	if page, err := HTML(r); err != nil || len(page) > 1<<20 {
		t.Errorf("a megabyte budget and task file name make a page of %d bytes: want them bounded", len(page))
	}
	r.Quality = nil
	if page, _ := HTML(r); bytes.Contains(page, []byte(`id="quality"`)) {
		t.Error("a report without quality has a Quality section")
	}
}

// TestQualityPicture: the app's Quality tab gets the chart laid out for
// its pane, at the screen's density, its panels filling the height.
func TestQualityPicture(t *testing.T) {
	small, err := QualityPicture(qualityFixture(true), Dark, Pane{Width: 700, Height: 900, Scale: 2})
	if err != nil {
		t.Fatal(err)
	}
	tall, err := QualityPicture(qualityFixture(true), Dark, Pane{Width: 700, Height: 1400, Scale: 2})
	if err != nil {
		t.Fatal(err)
	}
	if w := small.Bounds().Dx(); w != 1400 {
		t.Errorf("a 700 px pane at 2× gets a picture %d px wide, want 1400", w)
	}
	if hs, ht := small.Bounds().Dy(), tall.Bounds().Dy(); ht <= hs || ht > 2*1400 {
		t.Errorf("pictures %d and %d px tall for panes of 900 and 1400: want the taller pane's taller, within it", hs, ht)
	}
}
