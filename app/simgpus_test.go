package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// tp2Profile is the simulator's two-GPU tensor-parallel profile.
const tp2Profile = "llama-3.3-70b-awq-2x3090-tp2"

// TestSimulatedTwoGPUPanels: with the real simulator serving the two-GPU
// profile, the Run screen's GPU card says simulated and shows a panel per
// GPU with its figures, and the Hardware screen lists both simulated GPUs.
func TestSimulatedTwoGPUPanels(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.sim = simulator{}
	u := newTestUI(t, d, Options{})
	u.server.selectKind(targetSim)
	u.server.profile.SetSelected(tp2Profile)
	waitUntil(t, func() bool {
		u.run.pollTelemetry()
		return u.state.sampled
	}, "the simulator's first GPU sample")

	g := u.run.gauges
	if g.card.Title != "GPU (simulated)" || !strings.HasPrefix(g.note.Text, "Simulated:") {
		t.Errorf("card %q, note %q; want both to say simulated", g.card.Title, g.note.Text)
	}
	if len(g.panels) != 2 || len(g.perGPU.Objects) != 2 {
		t.Fatalf("%d GPU panels (%d shown), want 2", len(g.panels), len(g.perGPU.Objects))
	}
	for i, want := range []string{"GPU 0 (simulated)", "GPU 1 (simulated)"} {
		p := g.panels[i]
		if p.title.Text != want || !strings.Contains(p.figures.Text, " W · ") || !strings.Contains(p.figures.Text, " GB · ") {
			t.Errorf("panel %d: %q, %q; want %q with power and VRAM", i, p.title.Text, p.figures.Text, want)
		}
	}
	if g.power.Text == "—" || g.power.Text == "0 W" {
		t.Errorf("total power %q, want both GPUs' idle power summed", g.power.Text)
	}

	sim := u.hardware.sim.Objects
	if len(sim) == 0 {
		t.Fatal("the Hardware screen lists no simulated GPUs")
	}
	cards := sim[2].(*fyne.Container).Objects
	if len(cards) != 2 {
		t.Fatalf("Hardware screen: %d simulated GPU cards, want 2", len(cards))
	}
	for i, c := range cards {
		if title := c.(*widget.Card).Title; !strings.HasSuffix(title, "RTX 3090 (simulated)") {
			t.Errorf("Hardware card %d: %q, want an RTX 3090 labelled simulated", i, title)
		}
	}
}
