package charts

import (
	"strings"
	"testing"

	"speedmatrix/engine"
)

// TestSheetShowsGPULinks: the report sheet lists each GPU's links in its
// Hardware section and warns of a GPU whose PCIe link ran below its
// maximum under load.
func TestSheetShowsGPULinks(t *testing.T) {
	r := flaggedReport(t)
	r.Hardware.GPUs = []engine.GPUInfo{
		{Index: 0, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30, PCIeGen: 4, PCIeWidth: 16, NVLinkKnown: true},
		{Index: 1, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30, PCIeGen: 4, PCIeWidth: 16, NVLinkKnown: true},
	}
	r.Diagnostics = &engine.Diagnostics{Topology: &engine.Topology{
		GPUs:  []engine.TopologyGPU{{Index: 0}, {Index: 1}},
		Links: []engine.GPULink{{GPUs: [2]int{0, 1}, Path: "PHB", P2P: "not supported by the chipset"}}}}
	for i := range r.Results {
		if r.Results[i].Phase == engine.PhaseDecode && r.Results[i].Measured() {
			r.Results[i].Telemetry = &engine.Telemetry{Samples: 30, GPUs: []engine.GPUTelemetry{{Index: 1,
				PCIe: &engine.PCIeLoad{Link: engine.PCIeLink{Gen: 4, Width: 8}, Max: engine.PCIeLink{Gen: 4, Width: 16}, Samples: 30}}}}
			break
		}
	}
	m := BuildModel(r)
	if !strings.HasPrefix(m.Header.PCIe, "GPU 1 runs at PCIe 4.0 x8 (max x16) under load") {
		t.Errorf("header PCIe warning %q", m.Header.PCIe)
	}
	d, _ := drawModel(KindReport, m, DefaultOptions())
	drawn := strings.Join(d.Texts(), " ")
	for _, want := range []string{"GPU 0 links", "4.0 x8 under load", "P2P not supported by the chipset", "GPU 1 runs at PCIe 4.0 x8"} {
		if !strings.Contains(drawn, want) {
			t.Errorf("the sheet does not draw %q", want)
		}
	}
}
