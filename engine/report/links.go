package report

import (
	"fmt"
	"slices"
	"strings"

	"speedmatrix/engine"
)

// linkRows are the Hardware section's lines on how each GPU is connected,
// keyed "GPU 0 links" or "GPU 0-7 links", one per run of consecutive GPUs
// that read the same: "PCIe 4.0 x16, x8
// under load · no NVLink · P2P not supported by the chipset". It is empty
// when no GPU's link is known.
func linkRows(r engine.Report) []Row {
	gpus := r.Hardware.GPUs
	var top *engine.Topology
	if r.Diagnostics != nil {
		top = r.Diagnostics.Topology
	}
	loads := pcieUnderLoad(r.Results)
	texts := make([]string, len(gpus))
	known := false
	for i, g := range gpus {
		texts[i] = gpuLinks(g, loads[engine.GPUKey{Index: g.Index}], top)
		known = known || texts[i] != ""
	}
	if !known {
		return nil
	}
	var out []Row
	for i := 0; i < len(gpus); {
		j := i + 1
		for j < len(gpus) && texts[j] == texts[i] {
			j++
		}
		key := fmt.Sprintf("GPU %d links", gpus[i].Index)
		if j-i > 1 {
			key = fmt.Sprintf("GPU %d-%d links", gpus[i].Index, gpus[j-1].Index)
		}
		if texts[i] != "" {
			out = append(out, Row{Key: key, Value: texts[i]})
		}
		i = j
	}
	return out
}

// gpuLinks is how one GPU is connected: its PCIe link's maximum, the link
// under load when it was below that (load may be nil), its NVLinks and
// peer-to-peer with the other GPUs of top (which may be nil).
func gpuLinks(g engine.GPUInfo, load *engine.PCIeLoad, top *engine.Topology) string {
	var parts []string
	if max := g.PCIeMax(); max.Known() {
		pcie := max.String()
		if load != nil && load.Link.Below(max) {
			pcie += ", " + strings.TrimPrefix(load.Link.String(), "PCIe ") + " under load"
		}
		parts = append(parts, pcie)
	}
	switch {
	case g.NVLinks > 0 && g.NVLinksActive == g.NVLinks:
		parts = append(parts, fmt.Sprintf("%d NVLinks", g.NVLinks))
	case g.NVLinks > 0:
		parts = append(parts, fmt.Sprintf("%d of %d NVLinks up", g.NVLinksActive, g.NVLinks))
	case g.NVLinkKnown:
		parts = append(parts, "no NVLink")
	}
	if p := peerToPeer(g.Index, top); p != "" {
		parts = append(parts, p)
	}
	return strings.Join(parts, " · ")
}

// peerToPeer sums up GPU index's peer-to-peer status with every other GPU:
// "P2P ok", "P2P not supported by the chipset", or, when they differ,
// "P2P ok with 1, 2; disabled by a driver registry key with 3".
func peerToPeer(index int, top *engine.Topology) string {
	if top == nil {
		return ""
	}
	var order []string
	with := map[string][]string{}
	for _, l := range top.Links {
		other := -1
		switch index {
		case l.GPUs[0]:
			other = l.GPUs[1]
		case l.GPUs[1]:
			other = l.GPUs[0]
		}
		if other < 0 || l.P2P == "" {
			continue
		}
		if _, seen := with[l.P2P]; !seen {
			order = append(order, l.P2P)
		}
		with[l.P2P] = append(with[l.P2P], fmt.Sprint(other))
	}
	switch len(order) {
	case 0:
		return ""
	case 1:
		return "P2P " + order[0]
	}
	parts := make([]string, len(order))
	for i, s := range order {
		parts[i] = s + " with " + strings.Join(with[s], ", ")
	}
	return "P2P " + strings.Join(parts, "; ")
}

// pcieUnderLoad is each GPU's slowest PCIe link under load over the
// cells, with the number of cells that sampled it as Samples.
func pcieUnderLoad(rs []engine.Result) map[engine.GPUKey]*engine.PCIeLoad {
	out := map[engine.GPUKey]*engine.PCIeLoad{}
	for _, r := range rs {
		if r.Telemetry == nil {
			continue
		}
		for _, g := range r.Telemetry.GPUs {
			if g.PCIe == nil || !g.PCIe.Link.Known() {
				continue
			}
			worst := out[g.Key()]
			if worst == nil {
				worst = &engine.PCIeLoad{Link: g.PCIe.Link, Max: g.PCIe.Max}
				out[g.Key()] = worst
			} else if g.PCIe.Link.RateGTs() < worst.Link.RateGTs() {
				worst.Link = g.PCIe.Link
			}
			worst.Samples++
		}
	}
	return out
}

// PCIeWarnings are the run's GPUs whose PCIe link ran below its maximum
// under load, one line each: "GPU 1 runs at PCIe 4.0 x8 (max x16) under
// load, in 3 of 3 sampled cells: transfers between GPUs and the host are
// slower than the slot allows." Empty when none did.
func PCIeWarnings(rs []engine.Result) []string {
	loads := pcieUnderLoad(rs)
	keys := make([]engine.GPUKey, 0, len(loads))
	for k := range loads {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, engine.CompareGPUKeys)
	var out []string
	for _, k := range keys {
		load := loads[k]
		g := engine.GPUTelemetry{Index: k.Index, Host: k.Host, PCIe: load}
		warn := g.PCIeWarning()
		if warn == "" {
			continue
		}
		below := 0
		for _, r := range rs {
			if r.Telemetry == nil {
				continue
			}
			for _, t := range r.Telemetry.GPUs {
				if t.Key() == k && t.PCIeWarning() != "" {
					below++
				}
			}
		}
		out = append(out, fmt.Sprintf("%s under load, in %d of %d sampled cells: transfers to this GPU are slower than its slot allows (check the slot, riser and BIOS lane settings).",
			warn, below, load.Samples))
	}
	return out
}
