package shell

import (
	"strings"
	"testing"

	"speedmatrix/app"
	"speedmatrix/app/apptest"

	"fyne.io/fyne/v2/widget"
)

// tp2Profile is the simulator's two-GPU tensor-parallel profile.
const tp2Profile = "llama-3.3-70b-awq-2x3090-tp2"

// TestSimulatedTwoGPUPanels: with the real simulator serving the two-GPU
// profile, the Run screen's GPU card says simulated and shows a panel per
// GPU with its figures, and the Hardware screen lists both simulated GPUs.
func TestSimulatedTwoGPUPanels(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.Sim = simulator{}
	u := newTestUI(t, d, app.Options{})
	u.server.SelectKind(app.TargetSim)
	u.server.Profile.SetSelected(tp2Profile)
	waitUntil(t, func() bool {
		u.server.PollTelemetry()
		return u.State.Sampled
	}, "the simulator's first GPU sample")

	g := u.run.Gauges
	if g.Card.Title != "GPU (simulated)" || !strings.HasPrefix(g.Note.Text, "Simulated") {
		t.Errorf("card %q, note %q; want both to say simulated", g.Card.Title, g.Note.Text)
	}
	if len(g.Panels) != 2 || len(g.PerGPU.Objects) != 2 {
		t.Fatalf("%d GPU panels (%d shown), want 2", len(g.Panels), len(g.PerGPU.Objects))
	}
	for i, want := range []string{"GPU 0 (simulated)", "GPU 1 (simulated)"} {
		p := g.Panels[i]
		if p.Title.Text != want || !strings.Contains(p.Figures.Text, " W · ") || !strings.Contains(p.Figures.Text, " GB · ") {
			t.Errorf("panel %d: %q, %q; want %q with power and VRAM", i, p.Title.Text, p.Figures.Text, want)
		}
	}
	if g.Power.Text == "—" || g.Power.Text == "0 W" {
		t.Errorf("total power %q, want both GPUs' idle power summed", g.Power.Text)
	}

	if len(u.hardware.Sim.Objects) == 0 {
		t.Fatal("the Hardware screen does not say the simulator is the target")
	}
	// Before any run it says what is, not what was.
	if !apptest.HasText(u.hardware.Sim, "2 simulated GPUs, modelled by it; no GPU is used") || !apptest.HasText(u.hardware.Sim, "not from a GPU") || apptest.HasText(u.hardware.Sim, "was used") {
		t.Errorf("the Hardware screen says %q", visibleTexts(u.hardware.Sim))
	}
	var sims []string
	for _, c := range u.hardware.Cards.Objects {
		if title := c.(*widget.Card).Title; strings.HasSuffix(title, "RTX 3090 (simulated)") {
			sims = append(sims, title)
		}
	}
	if len(sims) != 2 {
		t.Errorf("Hardware screen: simulated GPU cards %q, want 2 RTX 3090s", sims)
	}
	// Another target: the simulated GPUs leave the Hardware screen.
	u.server.SelectKind(app.TargetEndpoint)
	if len(u.hardware.Sim.Objects) != 0 || len(u.hardware.Cards.Objects) != len(u.hardware.MachineCards) {
		t.Errorf("with an endpoint: %d sim lines, %d cards; want none simulated", len(u.hardware.Sim.Objects), len(u.hardware.Cards.Objects))
	}
}

// TestSimulatedReadingsLeaveWithTheSimulator: on a machine without a GPU,
// the simulator's GPU readings are shown only while it is the target, and
// always labelled simulated; once an endpoint or a launched server is the
// target, the GPU card shows no figure at all and says there is none,
// rather than the simulator's last readings without their label.
func TestSimulatedReadingsLeaveWithTheSimulator(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.Sim = simulator{}
	u := newTestUI(t, d, app.Options{Target: "sim:tiny"})
	waitUntil(t, func() bool {
		u.server.PollTelemetry()
		return u.State.Sampled
	}, "the simulator's first GPU sample")
	g := u.run.Gauges
	if g.Card.Title != "GPU (simulated)" || g.Power.Text == "—" {
		t.Fatalf("with the simulator: card %q, power %q; want simulated readings", g.Card.Title, g.Power.Text)
	}
	for _, kind := range []string{app.TargetEndpoint, app.TargetVLLM} {
		u.server.SelectKind(kind)
		tiles := []string{g.Util.Text, g.Power.Text, g.Vram.Text, g.Temp.Text}
		if g.Card.Title != "GPU" || len(g.Panels) != 0 || strings.Join(tiles, " ") != "— — — —" {
			t.Errorf("%s: card %q, %d GPU panels, tiles %q; want no reading", kind, g.Card.Title, len(g.Panels), tiles)
		}
		if !strings.HasPrefix(g.Note.Text, "No GPU telemetry: no NVIDIA GPU on this machine") {
			t.Errorf("%s: note %q, want it to say there is no GPU telemetry", kind, g.Note.Text)
		}
		if u.State.Sampled || u.State.SampleFrom != app.FromNone {
			t.Errorf("%s: the state keeps a sample from source %d", kind, u.State.SampleFrom)
		}
	}
}
