package charts

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"speedmatrix/engine"
)

var preview = flag.String("preview", "", "write every picture of the reference fixtures to this directory, to look at")

// TestPreview writes the pictures people will see, in both themes, when
// run with -preview DIR. It is how the layouts were checked by eye.
func TestPreview(t *testing.T) {
	if *preview == "" {
		t.Skip("use -preview DIR to write the pictures")
	}
	sim := loadSeed(t, "seed003")
	sim.Engine.Simulated, sim.Engine.SimProfile = true, "rtx3090"
	sim.Run.Complete, sim.Results = false, sim.Results[:24]
	runs := map[string]engine.Report{"seed000": loadSeed(t, "seed000"), "seed003": loadSeed(t, "seed003"),
		"simulated-partial": sim, "empty": {}, "flagged": flaggedReport(t)}
	for name, r := range runs {
		for _, th := range []Theme{Light, Dark} {
			dir := filepath.Join(*preview, name+"-"+string(th))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := WriteAllWith(dir, r, Options{Theme: th, Scale: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestPreviewDelta writes the comparison heatmap of the two reference reports.
func TestPreviewDelta(t *testing.T) {
	if *preview == "" {
		t.Skip("use -preview DIR to write the pictures")
	}
	a, b := loadSeed(t, "seed003"), loadSeed(t, "seed000")
	for _, th := range []Theme{Light, Dark} {
		d, err := DrawDelta(a, b, Options{Theme: th})
		if err != nil {
			t.Fatal(err)
		}
		png, err := d.PNG(1)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*preview, "delta-"+string(th)+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
