package charts

import (
	"bytes"
	"flag"
	"image"
	"image/png"
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
	sim.Server.Simulated, sim.Server.SimProfile = true, "rtx3090"
	sim.Run.Complete, sim.Results = false, sim.Results[:24]
	runs := map[string]engine.Report{"seed000": loadSeed(t, "seed000"), "seed003": loadSeed(t, "seed003"),
		"simulated-partial": sim, "empty": {}, "flagged": flaggedReport(t)}
	for name, r := range runs {
		for _, th := range []Theme{Light, Dark} {
			dir := filepath.Join(*preview, name+"-"+string(th))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := WriteAllWith(t.Context(), dir, r, Options{Theme: th, Scale: 1}); err != nil {
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
		d, err := drawDelta(a, b, Options{Theme: th})
		if err != nil {
			t.Fatal(err)
		}
		png, err := d.png(1)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*preview, "delta-"+string(th)+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPreviewPanes writes the pictures as the app draws them on screen, for
// panes of a 1024, 1280 and 1920 px wide window at 1× and 1.5×, with -preview DIR.
func TestPreviewPanes(t *testing.T) {
	if *preview == "" {
		t.Skip("use -preview DIR to write the pictures")
	}
	m := BuildModel(loadSeed(t, "seed000"))
	panes := map[string]Pane{"1024": {Width: 850, Height: 470, Scale: 1}, "1280": {Width: 1100, Height: 520, Scale: 1},
		"1920": {Width: 1730, Height: 760, Scale: 1}, "1280@1.5": {Width: 1100, Height: 520, Scale: 1.5}, "history-1024": {Width: 540, Height: 520, Scale: 1}}
	for name, p := range panes {
		for _, kind := range Kinds {
			img, err := Picture(kind, m, Light, p)
			if err != nil {
				t.Fatal(err)
			}
			writePNG(t, filepath.Join(*preview, "pane-"+name+"-"+string(kind)+".png"), img)
		}
		img, err := DeltaPicture(loadSeed(t, "seed003"), loadSeed(t, "seed000"), Dark, p)
		if err != nil {
			t.Fatal(err)
		}
		writePNG(t, filepath.Join(*preview, "pane-"+name+"-delta.png"), img)
	}
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
