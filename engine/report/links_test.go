package report

import (
	"reflect"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// pcieBox is a report of two GPUs in PCIe 4.0 x16 slots without NVLink,
// peer-to-peer refused by the chipset, whose GPU 1 ran at x8 under load in
// its one decode cell.
func pcieBox() engine.Report {
	gpu := func(i int) engine.GPUInfo {
		return engine.GPUInfo{Index: i, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30, PCIeGen: 4, PCIeWidth: 16,
			PCIeCurGen: 4, PCIeCurWidth: 16, NVLinkKnown: true}
	}
	load := func(width int) *engine.PCIeLoad {
		return &engine.PCIeLoad{Link: engine.PCIeLink{Gen: 4, Width: width}, Max: engine.PCIeLink{Gen: 4, Width: 16}, Samples: 30}
	}
	return engine.Report{
		Hardware: engine.HardwareInfo{Type: "Discrete GPU", GPUs: []engine.GPUInfo{gpu(0), gpu(1)}},
		Diagnostics: &engine.Diagnostics{Topology: &engine.Topology{
			GPUs:  []engine.TopologyGPU{{Index: 0}, {Index: 1}},
			Links: []engine.GPULink{{GPUs: [2]int{0, 1}, Path: "PHB", P2P: "not supported by the chipset"}}}},
		Results: []engine.Result{
			{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 8}, Status: engine.StatusValid, Telemetry: &engine.Telemetry{Samples: 30, GPUs: []engine.GPUTelemetry{
				{Index: 0, PCIe: load(16)}, {Index: 1, PCIe: load(8)}}}},
			{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 16}, Status: engine.StatusValid}, // not sampled
		},
	}
}

func TestLinkRows(t *testing.T) {
	got := Sections(pcieBox())[0].Rows
	want := []Row{
		{"GPU 0 links", "PCIe 4.0 x16 · no NVLink · P2P not supported by the chipset"},
		{"GPU 1 links", "PCIe 4.0 x16, 4.0 x8 under load · no NVLink · P2P not supported by the chipset"},
	}
	if tail := got[len(got)-2:]; !reflect.DeepEqual(tail, want) {
		t.Errorf("Hardware ends with %+v, want %+v", tail, want)
	}
}

func TestPCIeWarnings(t *testing.T) {
	got := PCIeWarnings(pcieBox().Results)
	if len(got) != 1 || !strings.HasPrefix(got[0], "GPU 1 runs at PCIe 4.0 x8 (max x16) under load, in 1 of 1 sampled cells") {
		t.Errorf("warnings %q", got)
	}
	md := Markdown(pcieBox())
	if !strings.Contains(md, "| GPU 1 links | PCIe 4.0 x16, 4.0 x8 under load") || !strings.Contains(md, "\nGPU 1 runs at PCIe 4.0 x8 (max x16) under load") {
		t.Errorf("report.md lacks GPU 1's links:\n%s", md)
	}
}

func TestGPULinksNVLink(t *testing.T) {
	top := &engine.Topology{Links: []engine.GPULink{
		{GPUs: [2]int{0, 1}, Path: "NV", P2P: "ok"}, {GPUs: [2]int{0, 2}, Path: "NV", P2P: "ok"},
		{GPUs: [2]int{0, 3}, Path: "SYS", P2P: "disabled by a driver registry key"}}}
	g := engine.GPUInfo{Index: 0, PCIeGen: 5, PCIeWidth: 16, NVLinks: 18, NVLinksActive: 17, NVLinkKnown: true}
	want := "PCIe 5.0 x16 · 17 of 18 NVLinks up · P2P ok with 1, 2; disabled by a driver registry key with 3"
	if got := gpuLinks(g, nil, top); got != want {
		t.Errorf("GPULinks = %q,\nwant        %q", got, want)
	}
	// A report written before the NVLink query: nothing said of NVLink.
	if got := gpuLinks(engine.GPUInfo{PCIeGen: 4, PCIeWidth: 16}, nil, nil); got != "PCIe 4.0 x16" {
		t.Errorf("old report: %q", got)
	}
}
