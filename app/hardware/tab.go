package app

import (
	"fmt"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/simtarget"
)

// kindChooser is what the Hardware screen asks of the Server screen.
type kindChooser interface{ chooseKind(kind string) }

// hardwareTab shows the detected GPUs and host.
type hardwareTab struct {
	u *base
	// targets is the Server screen, which offers the kind of target a
	// button here chooses (connected by newUI).
	targets kindChooser
	// status is the one line that sums up the machine (tests read it).
	status         *widget.Label
	simBtn, urlBtn *widget.Button // the ways forward without a GPU
	cpuBtn         *widget.Button // and with vLLM's CPU build: launch on the CPU
	// load shows each GPU's PCIe link under load from the live samples.
	load *loadWatch
	// sim says, while the simulator is the target, that its GPUs are
	// simulated; their cards come first in cards, before this machine's.
	sim          *fyne.Container
	cards        *fyne.Container
	machineCards []fyne.CanvasObject
}

// newHardwareTab builds the Hardware screen.
func newHardwareTab(u *base) (*hardwareTab, *container.TabItem) {
	h := &hardwareTab{u: u, status: widget.NewLabel(""), load: newLoadWatch(), sim: container.NewVBox()}
	h.status.Wrapping = fyne.TextWrapWord
	h.status.TextStyle = fyne.TextStyle{Bold: true}
	// Cards side by side in a wide window, one above the other in a narrow one.
	cards := newColumns(560, 3)
	if u.hasGPU() {
		h.status.SetText(engine.Count(len(u.hwInfo.GPUs), "NVIDIA GPU", "NVIDIA GPUs") + " ready for vLLM.")
		h.status.Importance = widget.SuccessImportance
		for _, g := range u.hwInfo.GPUs {
			cards.Add(gpuCard(g, u.diag.Topology, h.load.label(g.Index)))
		}
		u.state.watch(changeTelemetry, func() {
			if u.state.sampleFrom == fromMachine { // the simulator's or exporters' GPUs are not this machine's
				h.load.add(u.state.sample.GPUs)
			}
		})
	} else {
		cards.Add(h.noGPUCard())
	}
	host := u.hwInfo
	if b, ok := u.savedCPUBuild(); ok {
		host.CPUEngine = b.String()
	}
	cards.Add(hostCard(host))
	h.cards, h.machineCards = cards, cards.Objects
	body := container.NewVBox(h.status, h.load.warn, h.sim, cards)
	h.load.relayout = body.Refresh
	u.state.watch(changeSimulator, h.showSim)
	header := screenHeader("Hardware", "What this machine brings to the benchmark. Decode speed is bound by GPU memory bandwidth; the KV cache by VRAM.")
	return h, container.NewTabItemWithIcon(tabHardware, theme.ComputerIcon(), screen(header, container.NewVScroll(body), nil))
}

// noGPUCard says why no GPU was found and offers the two ways forward.
func (h *hardwareTab) noGPUCard() fyne.CanvasObject {
	reason := h.u.hwInfo.Note
	if reason == "" && h.u.hwErr != nil {
		reason = h.u.hwErr.Error()
	}
	if reason == "" {
		reason = "no NVIDIA GPU found"
	}
	h.status.SetText("No NVIDIA GPU: " + reason + ".")
	h.status.Importance = widget.WarningImportance
	explain := widget.NewLabel("vLLM cannot be launched on this machine. You can still benchmark a server that runs elsewhere, or try the whole app against the built-in simulator (its numbers are labelled simulated).")
	explain.Wrapping = fyne.TextWrapWord
	build, cpu := h.u.savedCPUBuild()
	if cpu {
		h.status.SetText("No NVIDIA GPU, and " + build.String() + " serves on this CPU: " + report.CPULine(engine.HardwareInfo{CPU: h.u.hwInfo.CPU, CPUCores: h.u.hwInfo.CPUCores, Type: engine.TypeCPU}) + ".")
		h.status.Importance = widget.SuccessImportance
		explain.SetText("Launch a server runs " + build.Executable + " on this CPU: no GPU is needed (" + reason + ").")
		h.cpuBtn = widget.NewButtonWithIcon("Launch on the CPU", theme.MediaPlayIcon(), func() {
			h.targets.chooseKind(targetVLLM)
			h.u.show(tabServer)
		})
		h.cpuBtn.Importance = widget.HighImportance
	}
	h.urlBtn = widget.NewButtonWithIcon("Benchmark an existing endpoint", theme.ComputerIcon(), func() {
		h.targets.chooseKind(targetEndpoint)
		h.u.show(tabServer)
	})
	h.simBtn = widget.NewButtonWithIcon("Use the simulator", theme.MediaPlayIcon(), func() {
		h.targets.chooseKind(targetSim)
		h.u.show(tabServer)
	})
	h.simBtn.Importance = widget.HighImportance
	buttons := container.NewHBox(h.simBtn, h.urlBtn)
	if h.cpuBtn != nil {
		h.simBtn.Importance = widget.MediumImportance
		buttons.Objects = append([]fyne.CanvasObject{h.cpuBtn}, buttons.Objects...)
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
	form := keyValues(append(rows, linkRows(g, top)...)...)
	if g.PCIeMax().Known() {
		form.Append("Under load", underLoad)
	}
	return widget.NewCard(fmt.Sprintf("GPU %d · %s", g.Index, report.GPUName(g.Name)), g.UUID, form)
}

// showSim lists, while the simulator is the target, the GPUs its profile
// models, each labelled simulated, with how they are joined.
func (h *hardwareTab) showSim() {
	info, ok := h.u.state.simHardware, h.u.state.simulating
	h.sim.Objects = nil
	var cards []fyne.CanvasObject
	if ok && len(info.GPUs) > 0 {
		n := len(info.GPUs)
		title := widget.NewLabelWithStyle("The simulator is the target: "+engine.Count(n, "simulated GPU", "simulated GPUs")+", modelled by it; no GPU is used.",
			fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		title.Wrapping = fyne.TextWrapWord
		note := widget.NewLabel(sentence(info.Note))
		note.Wrapping = fyne.TextWrapWord
		h.sim.Objects = []fyne.CanvasObject{title, note}
		top := simtarget.Topology(info)
		for _, g := range info.GPUs {
			if !strings.Contains(strings.ToLower(g.Name), "simulated") {
				g.Name += " (simulated)"
			}
			link := widget.NewLabel(g.PCIeMax().String() + ", the link's full speed (simulated)")
			cards = append(cards, gpuCard(g, top, link))
		}
	}
	h.cards.Objects = append(cards, h.machineCards...)
	h.sim.Refresh()
	h.cards.Refresh()
	if h.simBtn != nil {
		// Once the simulator is the target, its button only leads to its
		// settings; the other way forward is then the one to offer.
		h.simBtn.SetText("Use the simulator")
		h.simBtn.Importance = widget.HighImportance
		if h.cpuBtn != nil {
			h.simBtn.Importance = widget.MediumImportance // launching on the CPU is the way forward
		}
		if ok {
			h.simBtn.SetText("Simulator settings")
			h.simBtn.Importance = widget.MediumImportance
		}
		h.simBtn.Refresh()
	}
}

// hostCard lists the CPU (with the CPU build of vLLM that serves on it,
// when there is one), RAM and OS.
func hostCard(info engine.HardwareInfo) fyne.CanvasObject {
	cpu := info.CPU
	if info.CPUEngine != "" {
		cpu = report.CPULine(info)
	} else if info.CPUCores > 0 {
		cpu = fmt.Sprintf("%s (%d cores)", cpu, info.CPUCores)
	}
	ram := ""
	if info.RAMBytes > 0 {
		ram = report.GB(info.RAMBytes)
	}
	return widget.NewCard("Host", "", keyValues(
		[2]string{"CPU", cpu},
		[2]string{"RAM", ram},
		[2]string{"OS", info.OS},
		[2]string{"Kernel", info.Kernel},
	))
}
