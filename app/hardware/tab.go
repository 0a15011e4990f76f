package hardware

import (
	"fmt"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/simtarget"
)

// kindChooser is what the Hardware screen asks of the Server screen.
type kindChooser interface{ ChooseKind(kind string) }

// Tab shows the detected GPUs and host.
type Tab struct {
	u *app.UI
	// Targets is the Server screen, which offers the kind of target a
	// button here chooses (connected by newUI).
	Targets kindChooser
	// Status is the one line that sums up the machine (tests read it).
	Status         *widget.Label
	SimBtn, UrlBtn *widget.Button // the ways forward without a GPU
	CpuBtn         *widget.Button // and with vLLM's CPU build: launch on the CPU
	// Load shows each GPU's PCIe link under load from the live samples.
	Load *loadWatch
	// Sim says, while the simulator is the target, that its GPUs are
	// simulated; their cards come first in cards, before this machine's.
	Sim          *fyne.Container
	Cards        *fyne.Container
	MachineCards []fyne.CanvasObject
}

// New builds the Hardware screen.
func New(u *app.UI) (*Tab, *container.TabItem) {
	h := &Tab{u: u, Status: widget.NewLabel(""), Load: newLoadWatch(), Sim: container.NewVBox()}
	h.Status.Wrapping = fyne.TextWrapWord
	h.Status.TextStyle = fyne.TextStyle{Bold: true}
	// Cards side by side in a wide window, one above the other in a narrow one.
	cards := appwidget.NewColumns(560, 3)
	if u.HasGPU() {
		h.Status.SetText(engine.Count(len(u.HwInfo.GPUs), "NVIDIA GPU", "NVIDIA GPUs") + " ready for vLLM.")
		h.Status.Importance = widget.SuccessImportance
		for _, g := range u.HwInfo.GPUs {
			cards.Add(gpuCard(g, u.Diag.Topology, h.Load.Label(g.Index)))
		}
		u.State.Watch(app.ChangeTelemetry, func() {
			if u.State.SampleFrom == app.FromMachine { // the simulator's or exporters' GPUs are not this machine's
				h.Load.Add(u.State.Sample.GPUs)
			}
		})
	} else {
		cards.Add(h.noGPUCard())
	}
	host := u.HwInfo
	if b, ok := u.SavedCPUBuild(); ok {
		host.CPUServer = b.String()
	}
	cards.Add(hostCard(host))
	h.Cards, h.MachineCards = cards, cards.Objects
	body := container.NewVBox(h.Status, h.Load.Warn, h.Sim, cards)
	h.Load.relayout = body.Refresh
	u.State.Watch(app.ChangeSimulator, h.showSim)
	header := appwidget.ScreenHeader("Hardware", "What this machine brings to the benchmark. Decode speed is bound by GPU memory bandwidth; the KV cache by VRAM.")
	return h, container.NewTabItemWithIcon(app.TabHardware, theme.ComputerIcon(), appwidget.Screen(header, container.NewVScroll(body), nil))
}

// noGPUCard says why no GPU was found and offers the two ways forward.
func (h *Tab) noGPUCard() fyne.CanvasObject {
	reason := h.u.HwInfo.Note
	if reason == "" && h.u.HwErr != nil {
		reason = h.u.HwErr.Error()
	}
	if reason == "" {
		reason = "no NVIDIA GPU found"
	}
	h.Status.SetText("No NVIDIA GPU: " + reason + ".")
	h.Status.Importance = widget.WarningImportance
	explain := widget.NewLabel("vLLM cannot be launched on this machine. You can still benchmark a server that runs elsewhere, or try the whole app against the built-in simulator (its numbers are labelled simulated).")
	explain.Wrapping = fyne.TextWrapWord
	build, cpu := h.u.SavedCPUBuild()
	if cpu {
		h.Status.SetText("No NVIDIA GPU, and " + build.String() + " serves on this CPU: " + report.CPULine(engine.HardwareInfo{CPU: h.u.HwInfo.CPU, CPUCores: h.u.HwInfo.CPUCores, Type: engine.TypeCPU}) + ".")
		h.Status.Importance = widget.SuccessImportance
		explain.SetText("Launch a server runs " + build.Executable + " on this CPU: no GPU is needed (" + reason + ").")
		h.CpuBtn = widget.NewButtonWithIcon("Launch on the CPU", theme.MediaPlayIcon(), func() {
			h.Targets.ChooseKind(app.TargetVLLM)
			h.u.Show(app.TabServer)
		})
		h.CpuBtn.Importance = widget.HighImportance
	}
	h.UrlBtn = widget.NewButtonWithIcon("Benchmark an existing endpoint", theme.ComputerIcon(), func() {
		h.Targets.ChooseKind(app.TargetEndpoint)
		h.u.Show(app.TabServer)
	})
	h.SimBtn = widget.NewButtonWithIcon("Use the simulator", theme.MediaPlayIcon(), func() {
		h.Targets.ChooseKind(app.TargetSim)
		h.u.Show(app.TabServer)
	})
	h.SimBtn.Importance = widget.HighImportance
	buttons := container.NewHBox(h.SimBtn, h.UrlBtn)
	if h.CpuBtn != nil {
		h.SimBtn.Importance = widget.MediumImportance
		buttons.Objects = append([]fyne.CanvasObject{h.CpuBtn}, buttons.Objects...)
	}
	return widget.NewCard("Ways forward", "", container.NewVBox(explain, buttons))
}

// gpuCard lists one GPU's details, how it is connected to the others of
// top (which may be nil), and underLoad: its PCIe link as sampled under load.
func gpuCard(g engine.GPUInfo, top *engine.Topology, underLoad *widget.Label) fyne.CanvasObject {
	bw := ""
	if g.PeakBandwidthGBs > 0 {
		bw = report.Int(int(math.Round(g.PeakBandwidthGBs))) + " GB/s"
	}
	power := ""
	if g.PowerLimitW > 0 {
		power = fmt.Sprintf("%.0f W", g.PowerLimitW)
	}
	used := ""
	if g.VRAMUsedBytes > 0 {
		used = fmt.Sprintf("%s in use by other processes", report.GB(g.VRAMUsedBytes))
	}
	mig := ""
	if g.MIGEnabled {
		mig = "enabled"
	}
	rows := [][2]string{
		{"VRAM", report.GB(g.VRAMBytes)},
		{"In use", used},
		{"Memory bandwidth", bw},
		{"Compute capability", g.ComputeCapability},
		{"Driver / CUDA", strings.Trim(g.DriverVersion+" / "+g.CUDAVersion, " /")},
		{"Power limit", power},
		{"MIG", mig},
	}
	form := appwidget.KeyValues(append(rows, linkRows(g, top)...)...)
	if g.PCIeMax().Known() {
		form.Append("Under load", underLoad)
	}
	return widget.NewCard(fmt.Sprintf("GPU %d · %s", g.Index, report.GPUName(g.Name)), g.UUID, form)
}

// showSim lists, while the simulator is the target, the GPUs its profile
// models, each labelled simulated, with how they are joined.
func (h *Tab) showSim() {
	info, ok := h.u.State.SimHardware, h.u.State.Simulating
	h.Sim.Objects = nil
	var cards []fyne.CanvasObject
	if ok && len(info.GPUs) > 0 {
		n := len(info.GPUs)
		title := widget.NewLabelWithStyle("The simulator is the target: "+engine.Count(n, "simulated GPU", "simulated GPUs")+", modelled by it; no GPU is used.",
			fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		title.Wrapping = fyne.TextWrapWord
		note := widget.NewLabel(appwidget.Sentence(info.Note))
		note.Wrapping = fyne.TextWrapWord
		h.Sim.Objects = []fyne.CanvasObject{title, note}
		top := simtarget.Topology(info)
		for _, g := range info.GPUs {
			if !strings.Contains(strings.ToLower(g.Name), "simulated") {
				g.Name += " (simulated)"
			}
			link := widget.NewLabel(g.PCIeMax().String() + ", the link's full speed (simulated)")
			cards = append(cards, gpuCard(g, top, link))
		}
	}
	h.Cards.Objects = append(cards, h.MachineCards...)
	h.Sim.Refresh()
	h.Cards.Refresh()
	if h.SimBtn != nil {
		// Once the simulator is the target, its button only leads to its
		// settings; the other way forward is then the one to offer.
		h.SimBtn.SetText("Use the simulator")
		h.SimBtn.Importance = widget.HighImportance
		if h.CpuBtn != nil {
			h.SimBtn.Importance = widget.MediumImportance // launching on the CPU is the way forward
		}
		if ok {
			h.SimBtn.SetText("Simulator settings")
			h.SimBtn.Importance = widget.MediumImportance
		}
		h.SimBtn.Refresh()
	}
}

// hostCard lists the CPU (with the CPU build of vLLM that serves on it,
// when there is one), RAM and OS.
func hostCard(info engine.HardwareInfo) fyne.CanvasObject {
	cpu := info.CPU
	if info.CPUServer != "" {
		cpu = report.CPULine(info)
	} else if info.CPUCores > 0 {
		cpu = fmt.Sprintf("%s (%d cores)", cpu, info.CPUCores)
	}
	ram := ""
	if info.RAMBytes > 0 {
		ram = report.GB(info.RAMBytes)
	}
	return widget.NewCard("Host", "", appwidget.KeyValues(
		[2]string{"CPU", cpu},
		[2]string{"RAM", ram},
		[2]string{"OS", info.OS},
		[2]string{"Kernel", info.Kernel},
	))
}
