package charts

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/sweep"
)

// TestSweepTextFitsItsCells: with 2, 4 and 16 configurations, names of
// four keys included, every text drawn in a cell is no wider than its tile
// and every text stays inside the picture, in the export and in panes of
// the app down to the History pane of a 1024 px window; the full names
// are in the key, and the title is clear of the badge.
func TestSweepTextFitsItsCells(t *testing.T) {
	for _, n := range []int{2, 4, 16} {
		s := makeSweep(manyConfigs(n), true)
		for name, opts := range map[string]Options{
			"export": DefaultOptions(), "1280 pane": {Theme: Dark, Width: 1100, Height: 520}, "history pane": {Width: 500, Height: 370},
		} {
			d, err := drawSweepBest(s, opts)
			if err != nil {
				t.Fatal(err)
			}
			where := strconv.Itoa(n) + " configurations, " + name
			if checked := checkCellTexts(t, d, where); checked < 5*8 {
				t.Errorf("%s: %d texts found in cells, want at least one per cell", where, checked)
			}
			joined := strings.Join(d.Texts(), " ")
			for _, c := range s.Configs {
				if !strings.Contains(joined, c.Name) {
					t.Errorf("%s: the key lacks %q", where, c.Name)
				}
			}
			checkTitleClear(t, d, sweepBestTitle, opts.Width)
		}
	}
}

// checkCellTexts fails for each text of d that runs out of the tile it is
// drawn in, or out of the picture; it returns how many texts lay in tiles.
func checkCellTexts(t *testing.T, d *Drawing, where string) int {
	t.Helper()
	checked := 0
	var tiles []item
	for _, it := range d.items {
		if it.kind == itemRect && it.r == 5 && it.w >= heatMinCellW-8 {
			tiles = append(tiles, it)
		}
		if it.kind != itemText {
			continue
		}
		w := textWidth(it.text, it.font, it.size)
		x0 := it.x - map[anchor]float64{anchorStart: 0, anchorMiddle: w / 2, anchorEnd: w}[it.anchor]
		if x0 < 0 || x0+w > d.width+0.5 {
			t.Errorf("%s: %q runs from %.0f to %.0f, out of the %.0f px picture", where, it.text, x0, x0+w, d.width)
		}
		for _, tile := range slices.Backward(tiles) {
			if it.x >= tile.x && it.x <= tile.x+tile.w && it.y >= tile.y && it.y <= tile.y+tile.h {
				checked++
				if x0 < tile.x-0.5 || x0+w > tile.x+tile.w+0.5 {
					t.Errorf("%s: %q is %.0f px wide at %.1f px, its tile %.0f", where, it.text, w, it.size, tile.w)
				}
				break
			}
		}
	}
	return checked
}

// TestSweepSVGParses: the best-configuration SVG, names with XML's special
// characters included, parses, has the drawing's size at 1× and 2× and
// every text of the drawing.
func TestSweepSVGParses(t *testing.T) {
	cs := exampleConfigs()
	cs[1].cfg.Name = `served_model_name="a<b>&c"`
	s := makeSweep(cs, true)
	for _, th := range []Theme{Light, Dark} {
		d, err := drawSweepBest(s, Options{Theme: th})
		if err != nil {
			t.Fatal(err)
		}
		for _, scale := range []int{1, 2} {
			b, err := d.svg(scale)
			if err != nil {
				t.Fatal(err)
			}
			texts, width, height := parseSVG(t, b)
			w, h := d.Size()
			if width != strconv.Itoa(w*scale) || height != strconv.Itoa(h*scale) {
				t.Errorf("%s %d×: svg is %s×%s, want %d×%d", th, scale, width, height, w*scale, h*scale)
			}
			if !slices.Equal(texts, d.Texts()) {
				t.Errorf("%s %d×: the SVG's texts differ from the drawing's", th, scale)
			}
		}
	}
}

// TestWriteSweep: the best picture, and a delta per configuration other
// than the baseline that has a run, each as PNG and SVG, and nothing else;
// no delta without the baseline's run; nothing once ctx is done; an error
// and no file for a folder that leaves the sweep's.
func TestWriteSweep(t *testing.T) {
	run := loadSeed(t, "seed000")
	faster := loadSeed(t, "seed000")
	for i := range faster.Results {
		faster.Results[i].TotalTokPerSec *= 1.2
	}
	all := map[string]engine.Report{"baseline": run, "max_num_seqs=64": faster, "max_num_seqs=64 enforce_eager=true kv_cache_dtype=fp8": run}
	best := []string{"sweep-best.png", "sweep-best.svg", "sweep-pareto.png", "sweep-pareto.svg"}
	deltas := []string{"sweep-delta-max_num_seqs=64.png", "sweep-delta-max_num_seqs=64.svg",
		"sweep-delta-max_num_seqs=64_enforce_eager=true_kv_cache_dtype=fp8.png", "sweep-delta-max_num_seqs=64_enforce_eager=true_kv_cache_dtype=fp8.svg"}
	done, cancel := context.WithCancel(t.Context())
	cancel()
	for _, c := range []struct {
		name    string
		ctx     context.Context
		folder  string // the second configuration's
		runs    map[string]engine.Report
		want    []string
		wantErr string
	}{
		{"every run", t.Context(), "", all, append(slices.Clone(best), deltas...), ""},
		{"no baseline run", t.Context(), "", map[string]engine.Report{"max_num_seqs=64": faster}, best, ""},
		{"no runs", t.Context(), "", nil, best, ""},
		{"cancelled", done, "", all, nil, context.Canceled.Error()},
		{"a folder outside", t.Context(), "../outside", all, nil, `gives configuration "max_num_seqs=64" the folder "../outside"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := makeSweep(exampleConfigs(), false)
			if c.folder != "" {
				s.Configs[1].Folder = c.folder
			}
			dir := filepath.Join(t.TempDir(), "sweep")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			err := WriteSweep(c.ctx, dir, s, c.runs, DefaultOptions())
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("err %v, want %q", err, c.wantErr)
			}
			if c.name == "cancelled" && !errors.Is(err, context.Canceled) {
				t.Errorf("err %v is not context.Canceled", err)
			}
			var got []string
			entries, _ := os.ReadDir(filepath.Dir(dir))
			for _, e := range entries {
				if e.Name() != "sweep" {
					got = append(got, "../"+e.Name())
				}
			}
			entries, _ = os.ReadDir(dir)
			for _, e := range entries {
				got = append(got, e.Name())
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(c.want))
			if !slices.Equal(got, want) {
				t.Errorf("wrote %q, want %q", got, want)
			}
		})
	}
}

// TestSweepBestPicture: the app's preview is laid out for the pane's width
// at its device pixels, and its text stays readable in the History pane.
func TestSweepBestPicture(t *testing.T) {
	s := makeSweep(manyConfigs(16), false)
	for _, p := range []Pane{{Width: 1100, Height: 520, Scale: 1.5}, {Width: 500, Height: 370, Scale: 1}} {
		img, err := SweepBestPicture(s, Dark, p)
		if err != nil {
			t.Fatal(err)
		}
		if w, want := img.Bounds().Dx(), int(math.Round(p.Width*p.Scale)); w != want {
			t.Errorf("%v: %d px wide, want %d", p, w, want)
		}
		d, _ := drawSweepBest(s, p.options(Dark))
		for _, it := range d.items {
			if it.kind == itemText && it.size < heatDetailMinSize {
				t.Errorf("%v: %q drawn at %.1f px: too small to read", p, it.text, it.size)
			}
		}
	}
	if _, err := SweepBestPicture(sweep.Sweep{}, Light, Pane{Width: 600, Height: 400}); err != nil {
		t.Errorf("an empty sweep: %v", err)
	}
}

// TestPreviewSweep writes the best-configuration picture of the example
// (4 configurations) and of 16, and one delta, with -preview DIR.
func TestPreviewSweep(t *testing.T) {
	if *preview == "" {
		t.Skip("use -preview DIR to write the pictures")
	}
	for name, s := range map[string]sweep.Sweep{"sweep4": makeSweep(exampleConfigs(), true), "sweep16": makeSweep(manyConfigs(16), false)} {
		for _, th := range []Theme{Light, Dark} {
			d, err := drawSweepBest(s, Options{Theme: th})
			if err != nil {
				t.Fatal(err)
			}
			if err := writePicture(t.Context(), *preview, name+"-"+string(th), d, 1); err != nil {
				t.Fatal(err)
			}
		}
		img, err := SweepBestPicture(s, Light, Pane{Width: 540, Height: 520, Scale: 1})
		if err != nil {
			t.Fatal(err)
		}
		writePNG(t, filepath.Join(*preview, name+"-pane-history.png"), img)
	}
	run, faster := loadSeed(t, "seed000"), loadSeed(t, "seed000")
	for i := range faster.Results {
		faster.Results[i].TotalTokPerSec *= 1.2
	}
	d, err := drawDeltaOf(run, faster, deltaSides{a: "A (baseline)", b: "B (max_num_seqs=64)", simulated: true}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := writePicture(t.Context(), *preview, "sweep-delta", d, 1); err != nil {
		t.Fatal(err)
	}
}

// TestSweepParetoManyConfigs: thirty configurations with 200-character
// names share the legend's one row by their numbers ("#7"), spelled out
// under the chart, never by their names.
func TestSweepParetoManyConfigs(t *testing.T) {
	seed := loadSeed(t, "seed000")
	s := sweep.Sweep{Plan: seed.Plan}
	runs := map[string]engine.Report{}
	for i := range 30 {
		name := strings.Repeat("x", 200) + strconv.Itoa(i)
		s.Configs = append(s.Configs, sweep.Config{Name: name, Folder: "c" + strconv.Itoa(i), Status: sweep.StatusDone})
		runs[name] = seed
	}
	c := buildSweepPareto(s, runs)
	named := 0
	for _, se := range c.Series {
		if se.Name == "" {
			continue
		}
		named++
		if !strings.HasPrefix(se.Name, "#") {
			t.Errorf("legend entry %.40q…, want a configuration's number", se.Name)
		}
	}
	if named != 30 {
		t.Errorf("%d named series, want one per configuration", named)
	}
}
