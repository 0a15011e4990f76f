package shell

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/engine"
	"speedmatrix/engine/telemetry"
	"speedmatrix/hw"
	"speedmatrix/hw/nvmlmock"
)

func TestHardwareWithoutGPUOffersWaysForward(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	h := u.hardware
	if got := h.Status.Text; !strings.Contains(got, "No NVIDIA GPU") || !strings.Contains(got, "NVIDIA driver not found") {
		t.Errorf("status = %q, want the missing GPU and its reason", got)
	}
	if h.SimBtn == nil || h.UrlBtn == nil {
		t.Fatal("no ways-forward buttons without a GPU")
	}
	test.Tap(h.UrlBtn)
	if u.server.Kind.Selected != app.TargetEndpoint || u.Tabs.Selected().Text != app.TabServer {
		t.Errorf("endpoint button: kind %q on tab %q, want %q on %q", u.server.Kind.Selected, u.Tabs.Selected().Text, app.TargetEndpoint, app.TabServer)
	}
	if h.SimBtn.Text != "Use the simulator" || h.SimBtn.Importance != widget.HighImportance {
		t.Errorf("with an endpoint chosen the simulator button reads %q", h.SimBtn.Text)
	}
	test.Tap(h.SimBtn)
	if u.server.Kind.Selected != app.TargetSim {
		t.Errorf("simulator button: kind %q, want %q", u.server.Kind.Selected, app.TargetSim)
	}
	// The simulator is now the target: its button leads to its settings.
	if h.SimBtn.Text != "Simulator settings" || h.SimBtn.Importance == widget.HighImportance {
		t.Errorf("with the simulator chosen its button reads %q", h.SimBtn.Text)
	}
}

func TestHardwareWithGPU(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.Hardware = oneGPU
	u := newTestUI(t, d, app.Options{})
	if got := u.hardware.Status.Text; got != "1 NVIDIA GPU ready for vLLM." {
		t.Errorf("status = %q", got)
	}
	if u.hardware.SimBtn != nil {
		t.Error("ways forward shown although a GPU was found")
	}
	if !apptest.HasText(u.Tabs.Items[0].Content, "GPU 0 · RTX 3090") || !apptest.HasText(u.Tabs.Items[0].Content, "936 GB/s") {
		t.Error("the GPU card does not show the GPU's name and bandwidth")
	}
}

// pcieBox is a workstation with two RTX 3090s in PCIe 4.0 x16 slots, no
// NVLink, peer-to-peer refused by the chipset.
var pcieBox = func() fakeHardware {
	gpu := func(i int) engine.GPUInfo {
		return engine.GPUInfo{Index: i, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30, PeakBandwidthGBs: 936,
			PCIeGen: 4, PCIeWidth: 16, PCIeCurGen: 1, PCIeCurWidth: 16, NVLinkKnown: true, MaxSMClockMHz: 2100, MaxMemClockMHz: 9751}
	}
	return fakeHardware{
		info: engine.HardwareInfo{Type: hw.TypeDiscreteGPU, CPU: "Test CPU", GPUs: []engine.GPUInfo{gpu(0), gpu(1)}},
		top: &engine.Topology{GPUs: []engine.TopologyGPU{{Index: 0}, {Index: 1}},
			Links: []engine.GPULink{{GPUs: [2]int{0, 1}, Path: "PHB", P2P: "not supported by the chipset"}}},
	}
}()

// loaded is a sample of pcieBox's GPUs at util %, GPU 1's link at width lanes.
func loaded(util float64, width int) telemetry.Sample {
	gpu := func(i, w int) engine.GPUSample {
		return engine.GPUSample{Index: i, UtilizationPct: util, PowerW: 300 + float64(i), MemoryUsedMiB: 20 * 1024,
			TemperatureC: 60, SMClockMHz: 1695, MemClockMHz: 9751, PCIe: engine.PCIeLink{Gen: 4, Width: w},
			PCIeMax: engine.PCIeLink{Gen: 4, Width: 16}, ClockEventsRead: true}
	}
	s := telemetry.Sample{GPUs: []engine.GPUSample{gpu(0, 16), gpu(1, width)}}
	s.GPUs[1].ClockEventReasons = nvml.ClocksEventReasonSwPowerCap
	return s
}

func TestHardwareShowsLinks(t *testing.T) {
	uiOnly(t)
	d := testDeps(t, &fakeEngine{})
	d.Hardware = pcieBox
	u := newTestUI(t, d, app.Options{})
	screen := u.Tabs.Items[0].Content
	for _, want := range []string{"PCIe 4.0 x16 at most · 1.0 x16 at idle", "none", "GPU 1 through a PCIe host bridge: not supported by the chipset",
		"GPU 0 through a PCIe host bridge: not supported by the chipset", "SM up to 2100 MHz · memory 9751 MHz", "not seen under load yet"} {
		if !apptest.HasText(screen, want) {
			t.Errorf("the Hardware screen lacks %q", want)
		}
	}
	if u.hardware.Load.Warn.Visible() {
		t.Error("a link warning before any load")
	}
}

// TestHardwareFlagsDegradedLink: idle at x8 is not judged; under load it is.
func TestHardwareFlagsDegradedLink(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.Hardware = pcieBox
	u := newTestUI(t, d, app.Options{})
	u.State.SetSample(loaded(5, 8), true, app.FromMachine)
	if u.hardware.Load.Warn.Visible() {
		t.Error("an idle GPU's narrow link was flagged")
	}
	u.State.SetSample(loaded(95, 8), true, app.FromMachine)
	u.State.SetSample(loaded(95, 16), true, app.FromMachine) // the worst link seen stays
	w := u.hardware.Load.Warn
	if !w.Visible() || w.Text != "GPU 1 runs at PCIe 4.0 x8 (max x16) under load." {
		t.Errorf("warning %q (visible %v)", w.Text, w.Visible())
	}
	if l := u.hardware.Load.Labels[engine.GPUKey{Index: 1}]; !strings.HasPrefix(l.Text, "PCIe 4.0 x8, below its maximum PCIe 4.0 x16") || l.Importance != widget.WarningImportance {
		t.Errorf("GPU 1 under load: %q", l.Text)
	}
	if l := u.hardware.Load.Labels[engine.GPUKey{Index: 0}]; l.Text != "PCIe 4.0 x16, the link's full speed" {
		t.Errorf("GPU 0 under load: %q", l.Text)
	}
}

// TestRunShowsEveryGPU: the Run screen's gauges sum the GPUs and list each.
func TestRunShowsEveryGPU(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.Hardware = pcieBox
	u := newTestUI(t, d, app.Options{})
	u.State.SetSample(loaded(95, 8), true, app.FromMachine)
	g := u.run.Gauges
	if g.Power.Text != "601 W" || g.Vram.Text != "40.0 GB" {
		t.Errorf("totals %s, %s; want 601 W, 40.0 GB", g.Power.Text, g.Vram.Text)
	}
	want := [][2]string{
		{"GPU 0", "95 % · 300 W · 20.0 GB · 60 °C · SM 1695 / memory 9751 MHz"},
		{"GPU 1", "95 % · 301 W · 20.0 GB · 60 °C · SM 1695 / memory 9751 MHz · power cap · PCIe 4.0 x8 (max x16)"},
	}
	if len(g.Panels) != len(want) || len(g.PerGPU.Objects) != len(want) {
		t.Fatalf("%d GPU panels (%d shown), want %d", len(g.Panels), len(g.PerGPU.Objects), len(want))
	}
	for i, w := range want {
		if p := g.Panels[i]; p.Title.Text != w[0] || p.Figures.Text != " · "+w[1] {
			t.Errorf("panel %d: %q, %q; want %q, %q", i, p.Title.Text, p.Figures.Text, w[0], w[1])
		}
	}
	if g.Card.Title != "GPU" {
		t.Errorf("card title %q, want GPU", g.Card.Title)
	}
}

// TestHardwareOnTheNVMLMock: the PCIe box of hw/nvmlmock through the real
// detector and sampler source: the Hardware screen shows both GPUs without
// NVLink, P2P refused, and flags GPU 1's link once a sample under load
// shows it at x8.
func TestHardwareOnTheNVMLMock(t *testing.T) {
	lib := nvmlmock.PCIeBox()
	d := testDeps(t, &fakeEngine{})
	d.Hardware = &hwDetector{detect: func() (hw.Hardware, error) { return hw.DetectWith(lib) }}
	u := newTestUI(t, d, app.Options{})
	if got := u.hardware.Status.Text; got != "2 NVIDIA GPUs ready for vLLM." {
		t.Fatalf("status %q", got)
	}
	screen := u.Tabs.Items[0].Content
	for _, want := range []string{"PCIe 4.0 x16 at most", "GPU 1 through a PCIe host bridge: not supported by the chipset", "none"} {
		if !apptest.HasText(screen, want) {
			t.Errorf("the Hardware screen lacks %q", want)
		}
	}
	src := hw.NewSource(lib)
	defer src.Close()
	u.State.SetSample(src.Read(), true, app.FromMachine)
	w, status := u.hardware.Load.Warn, u.hardware.Status
	if !w.Visible() || w.Text != "GPU 1 runs at PCIe 4.0 x8 (max x16) under load." {
		t.Errorf("warning %q (visible %v)", w.Text, w.Visible())
	}
	if w.Position().Y < status.Position().Y+status.Size().Height {
		t.Errorf("the warning (y %v) overlaps the status line (y %v, height %v): the screen was not laid out again",
			w.Position().Y, status.Position().Y, status.Size().Height)
	}
}
