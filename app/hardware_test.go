package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

func TestHardwareWithoutGPUOffersWaysForward(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), Options{})
	h := u.hardware
	if got := h.status.Text; !strings.Contains(got, "No NVIDIA GPU") || !strings.Contains(got, "NVIDIA driver not found") {
		t.Errorf("status = %q, want the missing GPU and its reason", got)
	}
	if h.simBtn == nil || h.urlBtn == nil {
		t.Fatal("no ways-forward buttons without a GPU")
	}
	test.Tap(h.urlBtn)
	if u.server.kind.Selected != targetEndpoint || u.tabs.Selected().Text != tabServer {
		t.Errorf("endpoint button: kind %q on tab %q, want %q on %q", u.server.kind.Selected, u.tabs.Selected().Text, targetEndpoint, tabServer)
	}
	test.Tap(h.simBtn)
	if u.server.kind.Selected != targetSim {
		t.Errorf("simulator button: kind %q, want %q", u.server.kind.Selected, targetSim)
	}
}

func TestHardwareWithGPU(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.hardware = oneGPU
	u := newTestUI(t, d, Options{})
	if got := u.hardware.status.Text; got != "1 NVIDIA GPU ready for vLLM." {
		t.Errorf("status = %q", got)
	}
	if u.hardware.simBtn != nil {
		t.Error("ways forward shown although a GPU was found")
	}
	if !hasText(u.tabs.Items[0].Content, "GPU 0 · RTX 3090") || !hasText(u.tabs.Items[0].Content, "936 GB/s") {
		t.Error("the GPU card does not show the GPU's name and bandwidth")
	}
}
