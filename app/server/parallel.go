package shell

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
	executorRay     = "Ray cluster (ray)"
)

// parallelFields are the Launch form's fields for several GPUs and nodes:
// data and expert parallelism, which of this machine's GPUs vLLM may use,
// and the Ray cluster to run on.
type parallelFields struct {
	dp         *widget.Entry
	ep         *widget.Check
	gpus       *widget.CheckGroup
	noGPU      *widget.Label  // in the GPUs' place when none was detected
	index      map[string]int // GPU option → index
	executor   *appwidget.DropDown
	rayAddress *widget.Entry
	// gpuMetrics are the DCGM exporters of the cluster's nodes
	// (server.toml's gpu_metrics), read while a run measures the server.
	gpuMetrics *exporters
}

func newParallelFields(entry func(string) *widget.Entry, changed func()) *parallelFields {
	p := &parallelFields{index: map[string]int{}}
	p.dp = entry("1")
	p.ep = widget.NewCheck("expert parallel (mixture-of-experts models)", func(bool) { changed() })
	p.gpus = widget.NewCheckGroup(nil, func([]string) { changed() })
	p.gpus.Horizontal = false // eight GPUs side by side would widen the form past the window
	p.noGPU = widget.NewLabel("none detected here")
	p.executor = appwidget.NewDropDown([]string{executorDefault, executorMP, executorRay}, func(string) { changed() })
	p.rayAddress = entry("RAY_ADDRESS (e.g. 10.0.0.1:6379)")
	p.gpuMetrics = newExporters()
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
	p.gpus.Options = options
	p.gpus.Refresh()
	p.showGPUs()
}

// gpuField is the GPUs row's field: the check boxes, or why there are none.
func (p *parallelFields) gpuField() fyne.CanvasObject {
	p.showGPUs()
	return container.NewStack(p.gpus, p.noGPU)
}

func (p *parallelFields) showGPUs() {
	if len(p.gpus.Options) == 0 {
		p.gpus.Hide()
		p.noGPU.Show()
		return
	}
	p.noGPU.Hide()
	p.gpus.Show()
}

// gpuOption is "0: RTX 3090 24 GB", or "5 (not detected)".
func gpuOption(i int, g engine.GPUInfo) string {
	if g.Name == "" {
		return fmt.Sprintf("%d (not detected)", i)
	}
	return fmt.Sprintf("%d: %s %s", i, report.GPUName(g.Name), report.GB(g.VRAMBytes))
}

func (p *parallelFields) fill(cfg launch.ServerConfig) {
	p.dp.SetText("")
	if cfg.DataParallelSize > 0 {
		p.dp.SetText(strconv.Itoa(cfg.DataParallelSize))
	}
	p.ep.SetChecked(cfg.EnableExpertParallel)
	var picked []string
	for _, i := range cfg.GPUs {
		o := p.optionOf(i)
		if o == "" { // saved on a machine with more GPUs: keep it visible
			o = gpuOption(i, engine.GPUInfo{})
			p.index[o] = i
			p.gpus.Options = append(p.gpus.Options, o)
			p.showGPUs()
		}
		picked = append(picked, o)
	}
	p.gpus.SetSelected(picked)
	switch cfg.DistributedExecutorBackend {
	case "mp":
		p.executor.SetSelected(executorMP)
	case "ray":
		p.executor.SetSelected(executorRay)
	default:
		p.executor.SetSelected(executorDefault)
	}
	p.rayAddress.SetText(cfg.RayAddress)
	p.gpuMetrics.field.SetText(strings.Join(cfg.GPUMetrics, ", "))
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
	cfg.EnableExpertParallel = p.ep.Checked
	cfg.GPUs = nil
	for _, o := range p.gpus.Options { // in the list's order, not the clicks'
		if slices.Contains(p.gpus.Selected, o) {
			cfg.GPUs = append(cfg.GPUs, p.index[o])
		}
	}
	switch p.executor.Selected {
	case executorMP:
		cfg.DistributedExecutorBackend = "mp"
	case executorRay:
		cfg.DistributedExecutorBackend = "ray"
	}
	cfg.RayAddress = strings.TrimSpace(p.rayAddress.Text)
	cfg.GPUMetrics = p.gpuMetrics.urls()
}

// picked are the GPUs of gpus that the form picks: all when none is.
func (p *parallelFields) picked(gpus []engine.GPUInfo) []engine.GPUInfo {
	if len(p.gpus.Selected) == 0 {
		return gpus
	}
	var out []engine.GPUInfo
	for _, g := range gpus {
		if slices.Contains(p.gpus.Selected, p.optionOf(g.Index)) {
			out = append(out, g)
		}
	}
	return out
}
