package app

import (
	"fmt"
	"math"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/hw"
)

// telemetryGauges shows the latest GPU sample: utilization, power, VRAM
// and temperature (the hottest or busiest GPU's figures, summed power).
type telemetryGauges struct {
	util, power, vram, temp *canvas.Text
	note                    *widget.Label
	box                     fyne.CanvasObject
}

func newTelemetryGauges() *telemetryGauges {
	g := &telemetryGauges{note: widget.NewLabel("")}
	g.note.Wrapping = fyne.TextWrapWord
	tile := func(caption string) (*canvas.Text, fyne.CanvasObject) {
		v := newThemedText("—", theme.ColorNameForeground)
		v.Text.TextSize = theme.TextHeadingSize()
		v.Text.TextStyle = fyne.TextStyle{Bold: true}
		c := newThemedText(caption, theme.ColorNamePlaceHolder)
		c.Text.TextSize = theme.CaptionTextSize()
		return v.Text, container.NewVBox(v, c)
	}
	var a, b, c, d fyne.CanvasObject
	g.util, a = tile("utilization")
	g.power, b = tile("power")
	g.vram, c = tile("VRAM used")
	g.temp, d = tile("temperature")
	// Two by two: the Run screen stays usable in a window 1,000 px wide.
	g.box = container.NewVBox(container.NewGridWithColumns(2, a, b, c, d), g.note)
	return g
}

func (g *telemetryGauges) object() fyne.CanvasObject { return g.box }

// show displays s; UI goroutine only.
func (g *telemetryGauges) show(s hw.Sample, ok bool) {
	if !ok || len(s.GPUs) == 0 {
		g.note.SetText("No GPU telemetry: no NVIDIA GPU on this machine.")
		return
	}
	var util, power, mem, temp float64
	for _, gpu := range s.GPUs {
		util = maxKnown(util, gpu.UtilizationPct)
		temp = maxKnown(temp, gpu.TemperatureC)
		if !math.IsNaN(gpu.PowerW) {
			power += gpu.PowerW
		}
		if !math.IsNaN(gpu.MemoryUsedMiB) {
			mem += gpu.MemoryUsedMiB
		}
	}
	set := func(t *canvas.Text, text string) {
		t.Text = text
		t.Refresh()
	}
	set(g.util, fmt.Sprintf("%.0f %%", util))
	set(g.power, fmt.Sprintf("%.0f W", power))
	set(g.vram, fmt.Sprintf("%.1f GB", mem/1024))
	set(g.temp, fmt.Sprintf("%.0f °C", temp))
	note := fmt.Sprintf("%d GPU(s), sampled %s", len(s.GPUs), s.Time.Format("15:04:05"))
	if len(s.GPUs) > 1 {
		note += " · busiest and hottest GPU, power and VRAM summed"
	}
	g.note.SetText(note)
}

func maxKnown(a, b float64) float64 {
	if math.IsNaN(b) {
		return a
	}
	return math.Max(a, b)
}

// startTelemetry polls the sampler every second for the gauges.
func (r *runTab) startTelemetry() {
	t := r.u.deps.telemetry
	if t == nil || !r.u.hasGPU() {
		return
	}
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-r.u.bg.Done():
				return
			case <-tick.C:
				// The Settings screen may have replaced the sampler.
				r.u.do(func() { r.gauges.show(r.u.deps.telemetry.Latest()) })
			}
		}
	}()
}
