package widget

import (
	"fmt"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/engine"
	"speedmatrix/engine/telemetry"
)

// TelemetryGauges shows the latest GPU sample: utilization, power, VRAM
// and temperature (the hottest or busiest GPU's figures, summed power),
// then a panel per GPU. Its card says when the figures are simulated.
type TelemetryGauges struct {
	Util, Power, Vram, Temp *canvas.Text
	// PerGPU holds one panel per GPU under the totals.
	PerGPU *fyne.Container
	Panels []gpuPanel
	Note   *widget.Label
	Card   *widget.Card
}

// gpuPanel is one GPU's latest figures on a panel: its name in bold, then
// the figures, wrapped.
type gpuPanel struct {
	Title, Figures *widget.TextSegment
	text           *widget.RichText
	box            fyne.CanvasObject
}

func newGPUPanel() gpuPanel {
	p := gpuPanel{Title: &widget.TextSegment{Style: widget.RichTextStyleStrong}, Figures: &widget.TextSegment{Style: widget.RichTextStyleInline}}
	p.text = widget.NewRichText(p.Title, p.Figures)
	p.text.Wrapping = fyne.TextWrapWord
	p.box = Panel(p.text)
	return p
}

// Set shows one GPU's name and figures.
func (p gpuPanel) Set(title, figures string) {
	p.Title.Text, p.Figures.Text = title, " · "+figures
	p.text.Refresh()
}

// NewTelemetryGauges is the GPU panels, empty until Show.
func NewTelemetryGauges() *TelemetryGauges {
	g := &TelemetryGauges{Note: widget.NewLabel(""), PerGPU: container.NewVBox()}
	g.Note.Wrapping = fyne.TextWrapWord
	tile := func(caption string) (*canvas.Text, fyne.CanvasObject) {
		v := NewThemedText("—", theme.ColorNameForeground)
		v.Text.TextSize = theme.TextHeadingSize()
		v.Text.TextStyle = fyne.TextStyle{Bold: true}
		c := NewThemedText(caption, theme.ColorNamePlaceHolder)
		c.Text.TextSize = theme.CaptionTextSize()
		return v.Text, container.NewVBox(v, c)
	}
	var a, b, c, d fyne.CanvasObject
	g.Util, a = tile("utilization")
	g.Power, b = tile("power")
	g.Vram, c = tile("VRAM used")
	g.Temp, d = tile("temperature")
	// Two by two: the Run screen stays usable in a window 1,000 px wide.
	g.Card = widget.NewCard("GPU", "", container.NewVBox(container.NewGridWithColumns(2, a, b, c, d), g.PerGPU, g.Note))
	return g
}

// Object is the card to place on the screen.
func (g *TelemetryGauges) Object() fyne.CanvasObject { return g.Card }

// Show displays the state's latest sample, labelled by whose GPUs it
// reads (simulated only when the simulator's model made it); without one
// it says why there is none and shows no figure; UI goroutine only.
func (g *TelemetryGauges) Show(st *app.State) {
	simulated := st.SampleFrom == app.FromSimulator
	title := "GPU"
	if simulated {
		title = "GPU (simulated)"
	}
	if g.Card.Title != title {
		g.Card.SetTitle(title)
	}
	s := st.Sample
	switch {
	case st.Target.OnCPU:
		g.Clear("No GPU telemetry: the server runs on the CPU (vLLM's CPU build); each cell records the CPU's load.")
		return
	case !st.Sampled || len(s.GPUs) == 0:
		g.Clear(noTelemetryNote(st.Target))
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
	g.setTiles(fmt.Sprintf("%.0f %%", util), fmt.Sprintf("%.0f W", power), fmt.Sprintf("%.1f GB", mem/1024), fmt.Sprintf("%.0f °C", temp))
	g.showPanels(s.GPUs, simulated)
	g.Note.SetText(sampleNote(s, st.SampleFrom))
}

// Clear shows no figure and no panel, and note for why.
func (g *TelemetryGauges) Clear(note string) {
	g.Note.SetText(note)
	g.setTiles("—", "—", "—", "—")
	g.showPanels(nil, false)
}

// setTiles shows utilization, power, VRAM and temperature.
func (g *TelemetryGauges) setTiles(util, power, vram, temp string) {
	for i, t := range []*canvas.Text{g.Util, g.Power, g.Vram, g.Temp} {
		text := []string{util, power, vram, temp}[i]
		if t.Text != text {
			t.Text = text
			t.Refresh()
		}
	}
}

// noTelemetryNote says why a target has no GPU sample to show.
func noTelemetryNote(t app.TargetInfo) string {
	switch {
	case t.Simulated && t.Kind == app.TargetVLLM:
		return "No GPU telemetry: the stand-in for vLLM is Speed Matrix's simulator, which no GPU serves."
	case t.Simulated:
		return "Simulated GPU telemetry starts with the simulator."
	}
	return "No GPU telemetry: no NVIDIA GPU on this machine, and no DCGM exporter given under GPU metrics on the Server screen."
}

// sampleNote says whose GPUs s reads and when: "this machine's 2 GPUs,
// sampled 14:03:05 · busiest and hottest GPU, power and VRAM summed".
func sampleNote(s telemetry.Sample, from app.TelemetrySource) string {
	n := len(s.GPUs)
	gpus := engine.Count(n, "GPU", "GPUs")
	var note string
	switch from {
	case app.FromSimulator:
		note = "Simulated by the simulator's model of its GPUs, no GPU read · " + gpus
	case app.FromExporters:
		note = gpus + " from the DCGM exporters"
	default:
		note = "This machine's " + gpus
	}
	note += ", sampled " + s.Time.Format("15:04:05")
	if n > 1 {
		note += " · busiest and hottest GPU, power and VRAM summed"
	}
	return note
}

// showPanels fills one panel per GPU, adding or dropping panels as the
// number of GPUs changes.
func (g *TelemetryGauges) showPanels(gpus []engine.GPUSample, simulated bool) {
	if len(g.Panels) != len(gpus) {
		g.Panels = g.Panels[:0]
		g.PerGPU.Objects = nil
		for range gpus {
			p := newGPUPanel()
			g.Panels = append(g.Panels, p)
			g.PerGPU.Objects = append(g.PerGPU.Objects, p.box)
		}
		g.PerGPU.Refresh()
	}
	for i, gpu := range gpus {
		title := gpu.Key().String()
		if simulated {
			title += " (simulated)"
		}
		g.Panels[i].Set(title, strings.TrimPrefix(gpuLine(gpu), gpu.Key().String()+" · "))
	}
}

// gpuLine is one GPU's latest figures: "GPU 1 · 95 % · 310 W · 21.5 GB ·
// 66 °C · SM 1755 / memory 3201 MHz · power cap · PCIe 4.0 x8 (max x16)",
// leaving out what could not be read. The link is judged under load only.
func gpuLine(g engine.GPUSample) string {
	parts := []string{g.Key().String()}
	add := func(v float64, format string) {
		if !math.IsNaN(v) {
			parts = append(parts, fmt.Sprintf(format, v))
		}
	}
	add(g.UtilizationPct, "%.0f %%")
	add(g.PowerW, "%.0f W")
	add(g.MemoryUsedMiB/1024, "%.1f GB")
	add(g.TemperatureC, "%.0f °C")
	if !math.IsNaN(g.SMClockMHz) && !math.IsNaN(g.MemClockMHz) {
		parts = append(parts, fmt.Sprintf("SM %.0f / memory %.0f MHz", g.SMClockMHz, g.MemClockMHz))
	}
	if g.ClockEventsRead {
		for _, r := range telemetry.ReasonNames(g.ClockEventReasons) {
			parts = append(parts, engine.ThrottleReasonName(r))
		}
	}
	load := engine.GPUTelemetry{Index: g.Index, Host: g.Host, PCIe: &engine.PCIeLoad{Link: g.PCIe, Max: g.PCIeMax}}
	if g.UtilizationPct >= engine.LoadUtilPct && load.PCIeWarning() != "" {
		parts = append(parts, strings.TrimPrefix(load.PCIeWarning(), g.Key().String()+" runs at "))
	}
	return strings.Join(parts, " · ")
}

func maxKnown(a, b float64) float64 {
	if math.IsNaN(b) {
		return a
	}
	return math.Max(a, b)
}
