package charts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// TestHTMLSectionsInOrder: the page's sections come in the reference
// reports' order, each once.
func TestHTMLSectionsInOrder(t *testing.T) {
	r := manyCells(t, 3, 4) // flagged cells: Checks and flags
	r.Run.Notes = []string{"a note on the whole run"}
	for i := range r.Results {
		if r.Results[i].Phase == engine.PhaseDecode {
			r.Results[i].RooflinePct, r.Results[i].RooflineTokS = 40, 300
		}
	}
	page, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	last := -1
	for _, id := range []string{`id="about"`, `id="launch"`, `id="decode"`, `id="checks"`, `id="roofline"`, `id="measurements"`, `id="notes"`} {
		i := strings.Index(s, id)
		if i < 0 || strings.Count(s, id) != 1 || i < last {
			t.Errorf("section %s at %d (count %d), after %d", id, i, strings.Count(s, id), last)
		}
		last = max(last, i)
	}
	if !strings.Contains(s, `<table class="sortable">`) {
		t.Error("All measurements is not sortable")
	}
	if !strings.Contains(s, "Roofline share: 40 % of 300.0 tok/s") {
		t.Error("a cell's popup lacks its roofline share")
	}
}

// TestHTMLPrefillAndTips: the prefill curve and the Pareto chart are
// inline SVG in both themes without an XML prolog, and a heatmap cell's title holds all its figures.
func TestHTMLPrefillAndTips(t *testing.T) {
	r, _ := hostileReport(t)
	r = withPrefill(t, r)
	page, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if strings.Contains(s, "<?xml") || strings.Count(s, "<svg ") != 4 || !strings.Contains(s, `<section id="pareto">`) {
		t.Errorf("%d inline SVGs, prolog %v; want the prefill curve and the Pareto chart, each in both themes", strings.Count(s, "<svg "), strings.Contains(s, "<?xml"))
	}
	for _, want := range []string{"Total tok/s: 100.0 ± 0.4 % in 12 s", "Per request tok/s: 12.5", "TTFT (median): 20 ms",
		"Time between tokens (median): 6.0 ms", "Average active requests: 3.9", "Completed requests: 40",
		"TTFT p90: 30 ms", "TTFT p99: 45 ms", "Time between tokens p99: 9.0 ms", "Status: Valid †"} {
		if !strings.Contains(s, want) {
			t.Errorf("no cell shows %q", want)
		}
	}
}

// withPrefill is r with seed000's prefill cells.
func withPrefill(t *testing.T, r engine.Report) engine.Report {
	for _, res := range loadSeed(t, "seed000").Results {
		if res.Phase == engine.PhasePrefill {
			r.Results = append(r.Results, res)
		}
	}
	return r
}

// TestHTMLLoadTest: a load test's page has its charts and its table, and
// no matrix sections.
func TestHTMLLoadTest(t *testing.T) {
	page, err := HTML(loadFixture(t, "load"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if !strings.Contains(s, `id="load"`) || strings.Count(s, "<svg ") != 4 || strings.Contains(s, `id="decode"`) {
		t.Errorf("load page: %d SVGs, load section %v", strings.Count(s, "<svg "), strings.Contains(s, `id="load"`))
	}
}

// TestWriteAllWritesHTML: every export writes report.html beside the pictures.
func TestWriteAllWritesHTML(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAll(context.Background(), dir, loadSeed(t, "seed003")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil || !strings.Contains(string(b), "gemma-4-26B-A4B-it") {
		t.Errorf("report.html: %v, %d bytes", err, len(b))
	}
}

// TestHTMLOfAnEmptyReport: a report without results (a run stopped before
// its first cell) still makes a page, with no empty sections.
func TestHTMLOfAnEmptyReport(t *testing.T) {
	page, err := HTML(engine.Report{})
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, absent := range []string{`id="prefill"`, `id="decode"`, `id="measurements"`, `<svg`} {
		if strings.Contains(s, absent) {
			t.Errorf("an empty report's page has %s", absent)
		}
	}
	if !strings.Contains(s, "<h1>Speed test matrix</h1>") {
		t.Error("no title")
	}
}

// TestHTMLPrefixCacheAndReasoning: the page's Checks section has report.md's
// Prefix cache and reasoning table when a cell has those figures.
func TestHTMLPrefixCacheAndReasoning(t *testing.T) {
	r := manyCells(t, 2, 2)
	for i := range r.Results {
		if r.Results[i].Phase == engine.PhaseDecode {
			r.Results[i].PrefixCache = &engine.PrefixCache{ServerHitRate: 0.9375, QueriedTokens: 65536, HitTokens: 61440}
			r.Results[i].Reasoning = engine.Reasoning{ReasoningTokens: 3468, AnswerTokens: 3413, AnswerTTFTMs: 14.6}
		}
	}
	page, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h3>Prefix cache and reasoning</h3>", "93.8 %", "50.4 %"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
