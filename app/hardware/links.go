package hardware

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
)

// linkRows are a GPU card's lines on clocks and connections: the PCIe
// link's maximum and how it ran at detection, NVLinks and peer-to-peer with
// every other GPU of top (which may be nil).
func linkRows(g engine.GPUInfo, top *engine.Topology) [][2]string {
	clocks := ""
	switch {
	case g.MaxSMClockMHz > 0 && g.MaxMemClockMHz > 0:
		clocks = fmt.Sprintf("SM up to %d MHz · memory %d MHz", g.MaxSMClockMHz, g.MaxMemClockMHz)
	case g.MaxSMClockMHz > 0:
		clocks = fmt.Sprintf("SM up to %d MHz", g.MaxSMClockMHz)
	}
	pcie := ""
	if max := g.PCIeMax(); max.Known() {
		pcie = max.String() + " at most"
		if cur := g.PCIeCur(); cur.Known() && cur != max {
			pcie += fmt.Sprintf(" · %s at idle (idle GPUs slow their link to save power)", strings.TrimPrefix(cur.String(), "PCIe "))
		}
	}
	nvlink := ""
	switch {
	case g.NVLinks > 0 && g.NVLinksActive == g.NVLinks:
		nvlink = engine.Count(g.NVLinks, "link", "links") + ", all up"
	case g.NVLinks > 0:
		nvlink = fmt.Sprintf("%d of %d links up", g.NVLinksActive, g.NVLinks)
	case g.NVLinkKnown:
		nvlink = "none"
	}
	return [][2]string{{"Clocks", clocks}, {"PCIe", pcie}, {"NVLink", nvlink}, {"Peer-to-peer", peerLines(g.Index, top)}}
}

// peerLines is one line per other GPU: "GPU 1 over NVLink: ok",
// "GPU 1 through a PCIe host bridge: not supported by the chipset".
func peerLines(index int, top *engine.Topology) string {
	if top == nil {
		return ""
	}
	var lines []string
	for _, l := range top.Links {
		other := l.GPUs[1]
		if l.GPUs[1] == index {
			other = l.GPUs[0]
		} else if l.GPUs[0] != index {
			continue
		}
		line := fmt.Sprintf("GPU %d", other)
		switch path := engine.TopologyPaths[l.Path]; {
		case l.Path == "NV":
			line += " over NVLink"
		case path != "":
			line += " through " + path
		}
		lines = append(lines, line+": "+cmp.Or(l.P2P, "unknown"))
	}
	return strings.Join(lines, "\n")
}

// loadWatch keeps, per GPU, the slowest PCIe link seen under load in the
// live samples and shows it on the GPU's card; a link below its maximum
// is flagged there and in the screen's warning line.
type loadWatch struct {
	worst  map[engine.GPUKey]engine.PCIeLoad
	Labels map[engine.GPUKey]*widget.Label
	Warn   *widget.Label
	// relayout lays the screen out again once warn shows or hides.
	relayout func()
}

func newLoadWatch() *loadWatch {
	w := &loadWatch{worst: map[engine.GPUKey]engine.PCIeLoad{}, Labels: map[engine.GPUKey]*widget.Label{},
		Warn: widget.NewLabel("")}
	w.Warn.Wrapping = fyne.TextWrapWord
	w.Warn.Importance = widget.WarningImportance
	w.Warn.TextStyle = fyne.TextStyle{Bold: true}
	w.Warn.Hide()
	return w
}

// Label is GPU index's "Under load" value, made once.
func (w *loadWatch) Label(index int) *widget.Label {
	l := widget.NewLabel("not seen under load yet: the link is checked while the GPU works, during a run")
	l.Wrapping = fyne.TextWrapWord
	w.Labels[engine.GPUKey{Index: index}] = l
	return l
}

// Add takes one sample's GPUs; UI goroutine only.
func (w *loadWatch) Add(gpus []engine.GPUSample) {
	changed := false
	for _, g := range gpus {
		if !(g.UtilizationPct >= engine.LoadUtilPct) || !g.PCIe.Known() {
			continue
		}
		old, seen := w.worst[g.Key()]
		if seen && g.PCIe.RateGTs() >= old.Link.RateGTs() {
			continue
		}
		w.worst[g.Key()] = engine.PCIeLoad{Link: g.PCIe, Max: g.PCIeMax, Samples: 1}
		changed = true
	}
	if changed {
		w.refresh()
	}
}

func (w *loadWatch) refresh() {
	var warnings []string
	for k, load := range w.worst {
		l := w.Labels[k]
		warning := engine.GPUTelemetry{Index: k.Index, Host: k.Host, PCIe: &load}.PCIeWarning()
		if warning != "" {
			warnings = append(warnings, warning+" under load.")
		}
		if l == nil {
			continue
		}
		if warning != "" {
			l.SetText(fmt.Sprintf("%s, below its maximum %s: check the slot, riser and BIOS lane settings", load.Link, load.Max))
			l.Importance = widget.WarningImportance
		} else {
			l.SetText(load.Link.String() + ", the link's full speed")
			l.Importance = widget.SuccessImportance
		}
		l.TextStyle = fyne.TextStyle{Bold: true}
		l.Refresh()
	}
	if len(warnings) == 0 {
		w.Warn.Hide()
	} else {
		slices.Sort(warnings)
		w.Warn.SetText(strings.Join(warnings, " "))
		w.Warn.Show()
	}
	if w.relayout != nil {
		w.relayout()
	}
}
