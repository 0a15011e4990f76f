package hw

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/shirou/gopsutil/v4/cpu"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/telemetry"
	"speedmatrix/engine/telemetry/telemetrytest"
	"speedmatrix/hw/nvmlmock"
)

// newPCIeBox is nvmlmock's PCIe box, counting Init and Shutdown.
func newPCIeBox(t *testing.T) *countingServer {
	t.Helper()
	return counting(nvmlmock.PCIeBox())
}

// sampleBox samples cs n times on a fake clock and summarises them.
func sampleBox(t *testing.T, cs *countingServer, n int) *engine.Telemetry {
	t.Helper()
	src := newSystemSource(cs.Server)
	src.cpuTimes = func() (cpu.TimesStat, error) { return cpu.TimesStat{}, nil }
	clock := telemetrytest.NewClock(t0)
	s := telemetry.NewSampler(time.Second, func() telemetry.Source { return src }, telemetry.WithClock(clock))
	s.Start(context.Background())
	for range n - 1 {
		clock.Advance(time.Second)
	}
	s.Stop()
	sum := s.Summary(t0, t0.Add(time.Hour))
	if sum == nil || sum.Samples != n {
		t.Fatalf("Summary = %+v, want %d samples", sum, n)
	}
	return sum
}

func TestDetectNVLinksAndClocks(t *testing.T) {
	h, err := detect(newH200(t).Server, fakeHost)
	if err != nil {
		t.Fatal(err)
	}
	g := h.GPUs[3]
	if g.NVLinks != h200NVLinks || g.NVLinksActive != h200NVLinks || g.MaxSMClockMHz != 1980 || len(g.Notes) != 0 {
		t.Errorf("GPU 3: %d of %d NVLinks up, max SM clock %d MHz, notes %v; want 18 of 18, 1980",
			g.NVLinksActive, g.NVLinks, g.MaxSMClockMHz, g.Notes)
	}
	if cur, max := g.PCIeCur(), g.PCIeMax(); cur.String() != "PCIe 1.0 x16" || max.String() != "PCIe 5.0 x16" {
		t.Errorf("GPU 3 link %s of %s, want PCIe 1.0 x16 of PCIe 5.0 x16 (idle)", cur, max)
	}
	if info := h.Info(); info.GPUs[3].NVLinks != h200NVLinks || info.GPUs[3].PCIeCurGen != 1 {
		t.Errorf("Info lost the links: %+v", info.GPUs[3])
	}
}

func TestDetectPCIeBox(t *testing.T) {
	h, err := detect(newPCIeBox(t).Server, fakeHost)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range h.GPUs {
		if g.NVLinks != 0 || len(g.Notes) != 0 {
			t.Errorf("GPU %d: %d NVLinks, notes %v; want none", g.Index, g.NVLinks, g.Notes)
		}
		if g.PCIeCur() != g.PCIeMax() {
			t.Errorf("GPU %d at idle: %s of %s, want the full link", g.Index, g.PCIeCur(), g.PCIeMax())
		}
	}
	if l := h.Topology.Links; len(l) != 1 || l[0].Path != "PHB" || l[0].P2P != "not supported by the chipset" {
		t.Errorf("links %+v", l)
	}
}

// TestPCIeUnderLoad: the sampler sees GPU 1's link drop to x8 under load
// and says so; GPU 0 keeps x16.
func TestPCIeUnderLoad(t *testing.T) {
	cs := newPCIeBox(t)
	if _, err := detect(cs.Server, fakeHost); err != nil {
		t.Fatal(err)
	}
	sum := sampleBox(t, cs, 5)
	g0, g1 := sum.GPUs[0], sum.GPUs[1]
	want := engine.PCIeLoad{Link: engine.PCIeLink{Gen: 4, Width: 8}, Max: engine.PCIeLink{Gen: 4, Width: 16}, Samples: 5}
	if g1.PCIe == nil || *g1.PCIe != want {
		t.Fatalf("GPU 1 under load: %+v, want %+v", g1.PCIe, want)
	}
	if got := g1.PCIeWarning(); got != "GPU 1 runs at PCIe 4.0 x8 (max x16)" {
		t.Errorf("GPU 1 warning %q", got)
	}
	if got := g0.PCIeWarning(); got != "" || g0.PCIe == nil || g0.PCIe.Link.Width != 16 {
		t.Errorf("GPU 0: warning %q, link %+v; want none at x16", got, g0.PCIe)
	}
}

// TestPCIeIdleIsNotJudged: the H200s idle at Gen 1; below LoadUtilPct
// (GPUs 0-2 at 0, 10, 20 %) their link is not judged.
func TestPCIeIdleIsNotJudged(t *testing.T) {
	sum := sampleBox(t, newH200(t), 3)
	for _, g := range sum.GPUs[:3] {
		if g.PCIe != nil || g.PCIeWarning() != "" {
			t.Errorf("GPU %d at %.0f %%: link %+v judged", g.Index, g.UtilizationPct.Avg, g.PCIe)
		}
	}
	if g := sum.GPUs[7]; g.PCIeWarning() != "GPU 7 runs at PCIe 1.0 x16 (max 5.0 x16)" {
		t.Errorf("GPU 7 at 70 %%: warning %q", g.PCIeWarning())
	}
}

// TestThrottleNamesTheGPU: GPU 1 power capped in 17 of 50 samples.
func TestThrottleNamesTheGPU(t *testing.T) {
	cs := newPCIeBox(t)
	cs.Devices[1].(*server.Device).GetCurrentClocksEventReasonsFunc = scriptReasons(10, 27, nvml.ClocksEventReasonSwPowerCap)
	sum := sampleBox(t, cs, 50)
	if got, want := sum.Throttle.Describe(), "GPU 1 throttled: power cap, 34 % of the window"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}

// TestDGXH100: go-nvml's dgxh100 mock, 8 GPUs with NVLink, through
// detection to the report's Hardware lines.
func TestDGXH100(t *testing.T) {
	h, err := detect(nvmlmock.DGXH100(), fakeHost)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.GPUs) != 8 || len(h.Topology.Links) != 28 {
		t.Fatalf("%d GPUs, %d links; want 8, 28", len(h.GPUs), len(h.Topology.Links))
	}
	for _, g := range h.GPUs {
		if g.NVLinksActive != nvmlmock.H200NVLinks || math.Round(g.PeakBandwidthGBs) != 3352 {
			t.Errorf("GPU %d: %d NVLinks up, %.0f GB/s; want 18, 3352", g.Index, g.NVLinksActive, g.PeakBandwidthGBs)
		}
	}
	rows := report.Sections(engine.Report{Hardware: h.Info(), Diagnostics: &engine.Diagnostics{Topology: h.Topology}})[0].Rows
	want := report.Row{Key: "GPU 0-7 links", Value: "PCIe 5.0 x16 · 18 NVLinks · P2P ok"}
	if last := rows[len(rows)-1]; last != want {
		t.Errorf("Hardware ends with %+v, want %+v", last, want)
	}
}
