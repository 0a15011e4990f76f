package charts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// maxPageBytes is the most a page may weigh in TestHTMLOfAHugeRunIsBounded:
// a few MB, which a browser opens in a second or two.
const maxPageBytes = 4 << 20

// TestHTMLOfAHugeRunIsBounded: a run of 256 × 256 decode cells and 256
// prefill cells (65,792, the most a file may claim), every cell flagged
// with a 2 KB message and carrying check data, with 5,000 notes, gives a
// page of a few MB (it was 46 MB with short texts, 428 MB with these)
// that says what it leaves to report.md.
func TestHTMLOfAHugeRunIsBounded(t *testing.T) {
	pixelTest(t)
	r := manyCells(t, 256, 256)
	long := strings.Repeat("preempted by a long message ", 75)
	for i := range r.Results {
		res := &r.Results[i]
		res.Flags = []engine.Flag{{Kind: engine.FlagPreempted, Message: long}}
		if res.Phase == engine.PhaseDecode {
			res.Server = &engine.ServerCheck{Samples: 30, Active: float64(res.Concurrency), TokPerSec: res.TotalTokPerSec}
		}
	}
	for i := range 5000 {
		r.Run.Notes = append(r.Run.Notes, fmt.Sprintf("note %d", i))
	}
	page, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("page of %d bytes", len(page))
	if len(page) > maxPageBytes {
		t.Errorf("page of %d bytes, more than %d", len(page), maxPageBytes)
	}
	text := string(page)
	for _, want := range []string{
		"The page shows the first 8 of 256 contexts (2,048 of 65,536 cells): report.md and results.csv list every cell.",
		"… and 65,753 more flagged cells: report.md lists every one.",
		"The table shows the first 300 of 65,536 checked cells: report.md lists every one.",
		"… and 4,961 more notes: report.md lists every one.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if n := strings.Count(text, `class="hc `); n != 2048 {
		t.Errorf("%d heatmap cells on the page, want 2,048", n)
	}
}

// TestHTMLStopsWhenCancelled: the page is not built once ctx is done.
func TestHTMLStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r := loadSeed(t, "seed000")
	if page, err := htmlOf(ctx, r, BuildModel(r)); page != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("htmlOf with a cancelled context = %d bytes, %v; want nothing, context.Canceled", len(page), err)
	}
}

// BenchmarkHTML20000Cells builds report.html of 200 × 100 decode cells,
// each flagged, as BenchmarkWriteAll20000Cells draws them.
func BenchmarkHTML20000Cells(b *testing.B) {
	r := manyCells(b, 200, 100)
	var size int
	for b.Loop() {
		page, err := HTML(r)
		if err != nil {
			b.Fatal(err)
		}
		size = len(page)
	}
	b.ReportMetric(float64(size), "page-bytes")
}
