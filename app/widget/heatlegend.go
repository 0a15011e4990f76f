package widget

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

	"speedmatrix/charts"
)

// colorLegend is the heatmap's colour key, as the exported heatmap draws it
// under a narrow grid: "total tok/s", the colour ramp, and its ticks. It is
// hidden while the scale has no ticks (no valid cell yet).
type colorLegend struct {
	Box   *fyne.Container
	Label *canvas.Text
	ramp  *canvas.Raster
	marks *fyne.Container // the tick labels, placed by legendLayout
	lay   *legendLayout
	scale charts.ColorScale
}

// legendRampW is the widest the ramp gets; legendRampH its height.
const (
	legendRampW = 360
	legendRampH = 10
)

func newColorLegend() *colorLegend {
	l := &colorLegend{Label: canvas.NewText(charts.DecodeScaleLabel, theme.Color(theme.ColorNamePlaceHolder))}
	l.Label.TextStyle = fyne.TextStyle{Bold: true}
	l.Label.TextSize = theme.CaptionTextSize()
	l.ramp = canvas.NewRasterWithPixels(func(x, _, w, _ int) color.Color {
		return charts.Viridis((float64(x) + 0.5) / float64(max(w, 1)))
	})
	l.lay = &legendLayout{legend: l}
	l.marks = container.New(l.lay)
	l.Box = container.NewBorder(nil, nil, container.NewVBox(l.Label), nil, l.marks)
	l.Box.Hide()
	return l
}

// Object is the legend's canvas object.
func (l *colorLegend) Object() fyne.CanvasObject { return l.Box }

// Set shows the ticks of s, or hides the legend when it has none.
func (l *colorLegend) Set(s charts.ColorScale) {
	if s.Min == l.scale.Min && s.Max == l.scale.Max && s.Log == l.scale.Log && len(s.Ticks) == len(l.scale.Ticks) && len(l.marks.Objects) > 0 {
		return // as shown: a run's range stays put from cell to cell
	}
	l.scale = s
	if s.Label != "" {
		l.Label.Text = s.Label
		l.Label.Refresh()
	}
	if len(s.Ticks) == 0 {
		l.Box.Hide()
		return
	}
	objs := []fyne.CanvasObject{l.ramp}
	for _, t := range s.Ticks {
		txt := canvas.NewText(t.Label, theme.Color(theme.ColorNamePlaceHolder))
		txt.TextSize = theme.CaptionTextSize()
		txt.Alignment = fyne.TextAlignCenter
		objs = append(objs, txt)
	}
	l.marks.Objects = objs
	l.Box.Show()
	l.marks.Refresh()
}

// legendLayout puts the ramp at the top of its area and each tick's label
// under the ramp, at the tick's place on the scale.
type legendLayout struct{ legend *colorLegend }

// Layout places the ramp and the tick labels.
func (g *legendLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if len(objs) == 0 {
		return
	}
	w := min(size.Width, legendRampW)
	top := (theme.CaptionTextSize() - legendRampH) / 2
	objs[0].Move(fyne.NewPos(0, top))
	objs[0].Resize(fyne.NewSize(w, legendRampH))
	for i, o := range objs[1:] {
		if i >= len(g.legend.scale.Ticks) {
			break
		}
		x := float32(g.legend.scale.Pos(g.legend.scale.Ticks[i].Value)) * w
		ms := o.MinSize()
		o.Move(fyne.NewPos(x-ms.Width/2, top+legendRampH+2))
		o.Resize(ms)
	}
}

// MinSize is the ramp's height and a line of tick labels.
func (g *legendLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := float32(legendRampH + 2)
	for _, o := range objs[min(1, len(objs)):] {
		h = max(h, legendRampH+2+o.MinSize().Height)
	}
	return fyne.NewSize(120, h+(theme.CaptionTextSize()-legendRampH)/2)
}

// Ticks are the labels shown, in order (tests read them).
func (l *colorLegend) Ticks() []string {
	var out []string
	for _, t := range l.scale.Ticks {
		out = append(out, t.Label)
	}
	return out
}
