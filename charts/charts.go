package charts

import (
	"fmt"
	"math"

	"speedmatrix/engine"
)

// Kind names one picture of a report; it is also the file's base name.
type Kind string

// The pictures of a report.
const (
	KindReport     Kind = "report"         // the full report sheet
	KindPrefill    Kind = "prefill"        // prefill curve
	KindHeatmap    Kind = "decode-heatmap" // sustained decode heatmap
	KindPerRequest Kind = "per-request"    // per-request tok/s by concurrency
	KindSLO        Kind = "decode-slo"     // each decode cell's pass or miss of the plan's SLO, with its margin
	// A load test's pictures (Report.Load).
	KindLoadLatency Kind = "load-latency" // latency (p50, p99) against throughput, a point per rate
	KindLoadGoodput Kind = "load-goodput" // goodput against request rate
)

// Kinds lists every picture WriteAll writes, in order.
var Kinds = []Kind{KindReport, KindPrefill, KindHeatmap, KindPerRequest, KindPareto, KindEnergy}

// Options choose how a picture is rendered.
type Options struct {
	Theme Theme // Light (default) or Dark
	Scale int   // 1 (default) or 2 for high-density screens; at most 4
	// Width, when set, lays the picture out for a pane on screen this many
	// logical pixels wide (at least the picture's minimum width) instead of
	// the export's fixed width; Height is then the pane's height, which a
	// figure's plot or cells grow or shrink to fill (0: their export size).
	// Exports leave both 0: what people post keeps the reference layout.
	Width, Height float64
}

// DefaultOptions are the options WriteAll uses: light theme at 1×.
func DefaultOptions() Options { return Options{Theme: Light, Scale: 1} }

// check fills in defaults and rejects what cannot be drawn.
func (o Options) check() (Options, error) {
	if o.Theme == "" {
		o.Theme = Light
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.Theme != Light && o.Theme != Dark {
		return o, fmt.Errorf("unknown theme %q: use %q or %q", o.Theme, Light, Dark)
	}
	if o.Scale < 1 || o.Scale > 4 {
		return o, fmt.Errorf("scale %d is out of range: use 1, 2, 3 or 4", o.Scale)
	}
	if o.Width < 0 || o.Height < 0 || math.IsNaN(o.Width) || math.IsNaN(o.Height) || math.IsInf(o.Width, 0) || math.IsInf(o.Height, 0) {
		return o, fmt.Errorf("pane %v×%v cannot be drawn: use a positive width and height, or 0 for the export's size", o.Width, o.Height)
	}
	return o, nil
}

// Draw lays out one picture of a report.
func Draw(kind Kind, r engine.Report, opts Options) (*Drawing, error) {
	return drawModel(kind, BuildModel(r), opts)
}

// drawModel lays out one picture of an already built model.
func drawModel(kind Kind, m Model, opts Options) (*Drawing, error) {
	opts, err := opts.check()
	if err != nil {
		return nil, err
	}
	p := paletteFor(opts.Theme)
	if kind == KindLoadLatency || kind == KindLoadGoodput || (kind == KindReport && m.Load != nil) {
		d, err := drawLoadModel(kind, m, p, opts)
		if err != nil {
			return nil, err
		}
		return finished(d, p), nil
	}
	var d *Drawing
	switch kind {
	case KindReport:
		d = layoutSheet(m, p, frameFor(opts, sheetWidth, sheetMinWidth))
	case KindPrefill:
		d = layoutLineFigure(m, m.Prefill, p, frameFor(opts, figureWidth, lineMinWidth))
	case KindHeatmap:
		d = layoutHeatmapFigure(m, m.Decode, p, frameFor(opts, figureWidth, heatFigureMinWidth(m.Decode)))
	case KindPerRequest:
		d = layoutLineFigure(m, m.PerRequest, p, frameFor(opts, figureWidth, lineMinWidth))
	case KindPareto:
		d = layoutLineFigure(m, m.Pareto, p, frameFor(opts, figureWidth, lineMinWidth))
	case KindEnergy:
		d = layoutHeatmapFigure(m, m.Energy, p, frameFor(opts, figureWidth, heatFigureMinWidth(m.Energy)))
	case KindCost:
		if m.Cost == nil {
			return nil, fmt.Errorf("chart %s: this report has no prices (give --price-per-hour or --price-per-kwh)", kind)
		}
		d = layoutHeatmapFigure(m, *m.Cost, p, frameFor(opts, figureWidth, heatFigureMinWidth(*m.Cost)))
	case KindRoofline:
		if m.Roofline == nil {
			return nil, fmt.Errorf("chart %s: this report has no roofline (its GPU or model facts are unknown)", kind)
		}
		d = layoutHeatmapFigure(m, *m.Roofline, p, frameFor(opts, figureWidth, heatFigureMinWidth(*m.Roofline)))
	case KindQuality:
		if m.Quality == nil {
			return nil, qualityError(kind)
		}
		d = layoutQualityFigure(m, *m.Quality, p, frameFor(opts, figureWidth, lineMinWidth))
	case KindSLO:
		if m.SLO == nil {
			return nil, fmt.Errorf("chart %s: this run's plan sets no SLO", kind)
		}
		d = layoutHeatmapFigure(m, m.SLO.Heatmap, p, frameFor(opts, figureWidth, heatFigureMinWidth(m.SLO.Heatmap)))
	default:
		return nil, fmt.Errorf("unknown chart %q: use one of %v", kind, Kinds)
	}
	return finished(d, p), nil
}

// finished rounds d's height to whole logical pixels, so that 2× is
// exactly twice 1×, and cuts a drawing too tall to render.
func finished(d *Drawing, p palette) *Drawing {
	d.height = math.Ceil(d.height)
	d.cut(p)
	return d
}

// RenderPNG draws one picture of a report as PNG.
func RenderPNG(kind Kind, r engine.Report, opts Options) ([]byte, error) {
	d, err := Draw(kind, r, opts)
	if err != nil {
		return nil, err
	}
	o, _ := opts.check()
	return d.png(o.Scale)
}

// RenderSVG draws one picture of a report as SVG.
func RenderSVG(kind Kind, r engine.Report, opts Options) ([]byte, error) {
	d, err := Draw(kind, r, opts)
	if err != nil {
		return nil, err
	}
	o, _ := opts.check()
	return d.svg(o.Scale)
}
