package server

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/report"
)

// Choices of the executor select: vLLM's own choice, this machine, a Ray cluster.
const (
	executorDefault = "vLLM's choice"
	executorMP      = "this machine (mp)"
	ExecutorRay     = "Ray cluster (ray)"
)

// parallelFields are the Launch form's fields for several GPUs and nodes:
// data and expert parallelism, which of this machine's GPUs vLLM may use,
// and the Ray cluster to run on.
type parallelFields struct {
	Dp         *widget.Entry
	Ep         *widget.Check
	Gpus       *widget.CheckGroup
	NoGPU      *widget.Label  // in the GPUs' place when none was detected
	index      map[string]int // GPU option → index
	Executor   *appwidget.DropDown
	RayAddress *widget.Entry
	// GpuMetrics are the DCGM exporters of the cluster's nodes
	// (server.toml's gpu_metrics), read while a run measures the server.
	GpuMetrics *exporters
}

func newParallelFields(entry func(string) *widget.Entry, changed func()) *parallelFields {
	p := &parallelFields{index: map[string]int{}}
	p.Dp = entry("1")
	p.Ep = widget.NewCheck("expert parallel (mixture-of-experts models)", func(bool) { changed() })
	p.Gpus = widget.NewCheckGroup(nil, func([]string) { changed() })
	p.Gpus.Horizontal = false // eight GPUs side by side would widen the form past the window
	p.NoGPU = widget.NewLabel("none detected here")
	p.Executor = appwidget.NewDropDown([]string{executorDefault, executorMP, ExecutorRay}, func(string) { changed() })
	p.RayAddress = entry("RAY_ADDRESS (e.g. 10.0.0.1:6379)")
	p.GpuMetrics = newExporters()
	return p
}

// setGPUs lists the detected GPUs to pick from; none picked means all.
func (p *parallelFields) setGPUs(gpus []engine.GPUInfo) {
	var options []string
	for _, g := range gpus {
		o := gpuOption(g.Index, g)
		p.index[o] = g.Index
		options = append(options, o)
	}
	p.Gpus.Options = options
	p.Gpus.Refresh()
	p.showGPUs()
}

// gpuField is the GPUs row's field: the check boxes, or why there are none.
func (p *parallelFields) gpuField() fyne.CanvasObject {
	p.showGPUs()
	return container.NewStack(p.Gpus, p.NoGPU)
}

func (p *parallelFields) showGPUs() {
	if len(p.Gpus.Options) == 0 {
		p.Gpus.Hide()
		p.NoGPU.Show()
		return
	}
	p.NoGPU.Hide()
	p.Gpus.Show()
}

// gpuOption is "0: RTX 3090 24 GB", or "5 (not detected)".
func gpuOption(i int, g engine.GPUInfo) string {
	if g.Name == "" {
		return fmt.Sprintf("%d (not detected)", i)
	}
	return fmt.Sprintf("%d: %s %s", i, report.GPUName(g.Name), report.GB(g.VRAMBytes))
}

// Fill shows cfg's parallelism settings in the fields.
func (p *parallelFields) Fill(cfg launch.ServerConfig) {
	p.Dp.SetText("")
	if cfg.DataParallelSize > 0 {
		p.Dp.SetText(strconv.Itoa(cfg.DataParallelSize))
	}
	p.Ep.SetChecked(cfg.EnableExpertParallel)
	var picked []string
	for _, i := range cfg.GPUs {
		o := p.optionOf(i)
		if o == "" { // saved on a machine with more GPUs: keep it visible
			o = gpuOption(i, engine.GPUInfo{})
			p.index[o] = i
			p.Gpus.Options = append(p.Gpus.Options, o)
			p.showGPUs()
		}
		picked = append(picked, o)
	}
	p.Gpus.SetSelected(picked)
	switch cfg.DistributedExecutorBackend {
	case "mp":
		p.Executor.SetSelected(executorMP)
	case "ray":
		p.Executor.SetSelected(ExecutorRay)
	default:
		p.Executor.SetSelected(executorDefault)
	}
	p.RayAddress.SetText(cfg.RayAddress)
	p.GpuMetrics.Field.SetText(strings.Join(cfg.GPUMetrics, ", "))
}

func (p *parallelFields) optionOf(i int) string {
	for o, j := range p.index {
		if j == i {
			return o
		}
	}
	return ""
}

// Read sets cfg's parallel fields; dp is read by the form's atoi.
func (p *parallelFields) Read(cfg *launch.ServerConfig, dp int) {
	cfg.DataParallelSize = dp
	cfg.EnableExpertParallel = p.Ep.Checked
	cfg.GPUs = nil
	for _, o := range p.Gpus.Options { // in the list's order, not the clicks'
		if slices.Contains(p.Gpus.Selected, o) {
			cfg.GPUs = append(cfg.GPUs, p.index[o])
		}
	}
	switch p.Executor.Selected {
	case executorMP:
		cfg.DistributedExecutorBackend = "mp"
	case ExecutorRay:
		cfg.DistributedExecutorBackend = "ray"
	}
	cfg.RayAddress = strings.TrimSpace(p.RayAddress.Text)
	cfg.GPUMetrics = p.GpuMetrics.urls()
}

// picked are the GPUs of gpus that the form picks: all when none is.
func (p *parallelFields) picked(gpus []engine.GPUInfo) []engine.GPUInfo {
	if len(p.Gpus.Selected) == 0 {
		return gpus
	}
	var out []engine.GPUInfo
	for _, g := range gpus {
		if slices.Contains(p.Gpus.Selected, p.optionOf(g.Index)) {
			out = append(out, g)
		}
	}
	return out
}
