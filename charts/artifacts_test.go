package charts

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// TestArtifactsListEveryFile: the one list of a run's files is the saved
// files, then every picture of KindsFor in each format, then the page;
// WriteAll writes exactly its drawn files.
func TestArtifactsListEveryFile(t *testing.T) {
	r := loadSeed(t, "seed003")
	r.Plan.SLO = engine.SLO{TTFT: 2 * time.Second}
	files := Artifacts(r, nil)
	var want, drawn []string
	for _, a := range report.Artifacts(r) {
		want = append(want, a.Name)
	}
	for _, k := range KindsFor(r) {
		want = append(want, string(k)+".png", string(k)+".svg")
		drawn = append(drawn, string(k)+".png", string(k)+".svg")
	}
	want, drawn = append(want, HTMLFile), append(drawn, HTMLFile)
	var names []string
	for i, a := range files {
		names = append(names, a.Name)
		saved := i < len(report.Artifacts(r))
		if (a.Stage == report.Saved) != saved || (!saved && a.Again != report.Redrawn) {
			t.Errorf("%s: stage %v, again %v", a.Name, a.Stage, a.Again)
		}
		if isPicture := !saved && a.Name != HTMLFile; isPicture != (a.Picture != "") || !strings.HasPrefix(a.Name, a.Picture) {
			t.Errorf("%s: picture %q", a.Name, a.Picture)
		}
	}
	if !slices.Equal(names, want) || !slices.Contains(names, string(KindSLO)+".svg") {
		t.Fatalf("Artifacts = %v, want %v", names, want)
	}
	dir := t.TempDir()
	if err := WriteAll(t.Context(), dir, r); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, slices.Sorted(slices.Values(drawn))) {
		t.Errorf("WriteAll wrote %v, want %v", got, drawn)
	}
}

// TestPicturesPaintAsRender: every picture the list draws has the bytes
// RenderPNG and RenderSVG make, in the options given; a format no picture
// has is an error.
func TestPicturesPaintAsRender(t *testing.T) {
	pixelTest(t)
	r := loadSeed(t, "seed000")
	opts := Options{Theme: Dark, Scale: 2}
	paint := Pictures(r, opts)
	for _, k := range KindsFor(r) {
		for format, render := range map[string]func(Kind, engine.Report, Options) ([]byte, error){"png": RenderPNG, "svg": RenderSVG} {
			got, err := paint.Paint(t.Context(), k, format)
			want, werr := render(k, r, opts)
			if err != nil || werr != nil || !bytes.Equal(got, want) {
				t.Errorf("%s.%s: %d bytes (%v), want Render's %d (%v)", k, format, len(got), err, len(want), werr)
			}
		}
	}
	if _, err := paint.Paint(t.Context(), KindReport, "gif"); err == nil {
		t.Error("a GIF was painted")
	}
	if _, err := Pictures(r, Options{Theme: "sepia"}).Paint(t.Context(), KindReport, "png"); err == nil || !strings.Contains(err.Error(), "unknown theme") {
		t.Errorf("a sepia picture: %v, want the theme refused", err)
	}
}
