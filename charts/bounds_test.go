package charts

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"speedmatrix/engine"
)

// manyCells is seed000 with a decode matrix of contexts × levels, every
// cell Valid and flagged, and a Failed prefill cell per context.
func manyCells(t testing.TB, contexts, levels int) engine.Report {
	r := loadSeed(t, "seed000")
	r.Results, r.Plan.DecodeContexts, r.Plan.Concurrency = nil, nil, nil
	for i := range contexts {
		ctx := (i + 1) * engine.K
		r.Plan.DecodeContexts = append(r.Plan.DecodeContexts, ctx)
		r.Results = append(r.Results, engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: ctx, Concurrency: 1},
			ContextLabel: engine.ContextLabel(ctx), Status: engine.StatusFailed, Error: "the server answered 500"})
		for c := range levels {
			r.Results = append(r.Results, engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: c + 1},
				ContextLabel: engine.ContextLabel(ctx), Status: engine.StatusValid, TotalTokPerSec: float64(100 + c), TTFTMs: 20,
				Flags: []engine.Flag{{Kind: engine.FlagPreempted, Message: "preempted 3 times"}}})
		}
	}
	for c := range levels {
		r.Plan.Concurrency = append(r.Plan.Concurrency, c+1)
	}
	return r
}

// TestSheetOfManyCellsIsBounded: 200 × 100 cells (the size of an 82 MB
// llm-inference-bench file) make a sheet that lists 300 rows, 40 lines of
// flags and errors, and says where the rest is; every cell is still in
// the heatmap.
func TestSheetOfManyCellsIsBounded(t *testing.T) {
	m := BuildModel(manyCells(t, 200, 100))
	if len(m.Table.Rows) != maxTableRows || !slices.Contains(m.Table.NotesAfter,
		"The sheet shows the first 300 of 20,200 measurements: results.csv and report.md list every one.") {
		t.Errorf("table: %d rows, notes %q", len(m.Table.Rows), m.Table.NotesAfter)
	}
	for name, lines := range map[string][]string{"errors": m.Table.Errors, "heatmap flags": m.Decode.Flags} {
		if len(lines) != maxListed || !strings.HasPrefix(lines[maxListed-1], "… and ") || !strings.HasSuffix(lines[maxListed-1], ": report.md lists every one.") {
			t.Errorf("%s: %d lines, last %q", name, len(lines), lines[len(lines)-1])
		}
	}
	if want := "… and 19,961 more flagged cells: report.md lists every one."; m.Decode.Flags[maxListed-1] != want {
		t.Errorf("last flag line %q, want %q", m.Decode.Flags[maxListed-1], want)
	}
	if len(m.Decode.Rows) != 200 || len(m.Decode.Cols) != 100 {
		t.Errorf("heatmap %d × %d, want 200 × 100", len(m.Decode.Rows), len(m.Decode.Cols))
	}
	if len(m.PrefillRows) != maxListed || m.PrefillRows[maxListed-1].Context != "… and 161 more in report.md" {
		t.Errorf("prefill list: %d rows, last %+v", len(m.PrefillRows), m.PrefillRows[len(m.PrefillRows)-1])
	}
	d, err := drawModel(KindReport, m, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, h := d.Size(); h > maxDrawingHeight {
		t.Errorf("sheet %d px tall, more than %v", h, maxDrawingHeight)
	}
}

// TestNarrowCellsAreBareTiles: an exported heatmap of 100 columns, too
// narrow for a cell's figure, draws each cell as a tile of colour in rows
// 14 px tall (at least heatTileMinH), and labels every few columns; 8
// columns keep the reference layout, figures in the cells.
func TestNarrowCellsAreBareTiles(t *testing.T) {
	heights := map[int]int{}
	for _, c := range []struct {
		cols              int
		figures           bool
		minLabels, maxLbl int
	}{{8, true, 8, 8}, {100, false, 20, 50}} {
		r := manyCells(t, 20, c.cols)
		for i := range r.Results {
			r.Results[i].Flags = nil
		}
		m := BuildModel(r)
		d, err := drawModel(KindHeatmap, m, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		texts := d.Texts()
		if slices.Contains(texts, m.Decode.Cells[0][0].Text) != c.figures || slices.Contains(texts, m.Decode.Cells[0][0].Detail) != c.figures {
			t.Errorf("%d columns: cell figures drawn: %v, want %v", c.cols, !c.figures, c.figures)
		}
		_, heights[c.cols] = d.Size()
		labels := 0
		for _, col := range m.Decode.Cols {
			if slices.Contains(texts, col) {
				labels++
			}
		}
		if labels < c.minLabels || labels > c.maxLbl {
			t.Errorf("%d columns: %d labels drawn, want %d to %d", c.cols, labels, c.minLabels, c.maxLbl)
		}
	}
	if shorter := heights[8] - heights[100]; shorter != 20*(heatCellH-heatTileMinH) {
		t.Errorf("20 rows of tiles are %d px shorter than 20 rows of figures, want %v", shorter, 20*(heatCellH-heatTileMinH))
	}
}

// TestTallPictureIsCut: a drawing a hundred thousand pixels tall (what a
// 700 KB note made before a picture drew at most maxPictureRunes of a
// text) ends at maxDrawingHeight and says so.
func TestTallPictureIsCut(t *testing.T) {
	p := paletteFor(Light)
	d := &Drawing{width: sheetWidth, bg: p.bg}
	for y := 20.0; y < 100000; y += 20 {
		d.text(16, y, "A note that goes on.", textStyle{size: 13, color: p.text})
	}
	d.height = 100000
	d = finished(d, p)
	w, h := d.Size()
	if h != maxDrawingHeight {
		t.Fatalf("sheet %d px tall, want it cut at %v", h, maxDrawingHeight)
	}
	texts := d.Texts()
	last := texts[len(texts)-1]
	if !strings.HasPrefix(last, "The picture ends here: the whole run would be ") || !strings.HasSuffix(last, "report.md and results.csv hold every cell.") {
		t.Errorf("last text %q", last)
	}
	for _, it := range d.items {
		if itemTop(it) > maxDrawingHeight {
			t.Fatalf("an item below the cut is kept: %+v", it)
		}
	}
	if img := d.Image(1); img.Bounds().Dx() != w || img.Bounds().Dy() != h {
		t.Errorf("image %v, want %d×%d", img.Bounds(), w, h)
	}
}

// TestWriteAllStopsWhenCancelled: a done context writes nothing.
func TestWriteAllStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	dir := t.TempDir()
	if err := WriteAll(ctx, dir, loadSeed(t, "seed000")); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteAll with a cancelled context = %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("wrote %d files", len(entries))
	}
}

// cancelOnWrite cancels its context at the first write, and counts them.
type cancelOnWrite struct {
	cancel func()
	writes int
}

// Write counts the write and cancels.
func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.writes++
	c.cancel()
	return len(p), nil
}

// TestRenderersStopInsideAPicture: a context cancelled while a picture is
// written stops the PNG and SVG writers before the picture ends.
func TestRenderersStopInsideAPicture(t *testing.T) {
	d, err := Draw(KindReport, manyCells(t, 20, 8), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(context.Context, *cancelOnWrite) error{
		"png": func(ctx context.Context, w *cancelOnWrite) error { return d.writePNG(ctx, w, 1) },
		"svg": func(ctx context.Context, w *cancelOnWrite) error { return d.writeSVG(ctx, w, 1) },
	} {
		ctx, cancel := context.WithCancel(t.Context())
		w := &cancelOnWrite{cancel: cancel}
		if err := write(ctx, w); !errors.Is(err, context.Canceled) || w.writes != 1 {
			t.Errorf("%s: err %v after %d writes, want context.Canceled after the first", name, err, w.writes)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if img, err := d.rasterize(ctx, 1); img != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("rasterize with a cancelled context = %v, %v", img != nil, err)
	}
}

// BenchmarkWriteAll20000Cells draws every picture of 200 × 100 cells.
func BenchmarkWriteAll20000Cells(b *testing.B) {
	r := manyCells(b, 200, 100)
	dir := b.TempDir()
	for b.Loop() {
		if err := WriteAll(context.Background(), dir, r); err != nil {
			b.Fatal(err)
		}
	}
}

// TestListedLinesAreCut: a flag's message of 2 KB (a hand-made file) is
// listed under a chart in at most maxListedRunes runes.
func TestListedLinesAreCut(t *testing.T) {
	r := manyCells(t, 2, 2)
	r.Results[1].Flags[0].Message = strings.Repeat("preempted ", 200)
	m := BuildModel(r)
	if n := utf8.RuneCountInString(m.Decode.Flags[0]); n != maxListedRunes || !strings.HasSuffix(m.Decode.Flags[0], "…") {
		t.Errorf("first flag line: %d runes, want %d ending in …", n, maxListedRunes)
	}
}
