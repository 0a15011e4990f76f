package charts

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// hostile is what a server, a config or an imported file might put in a
// field: a script, quotes that end an attribute, the end of the style
// sheet, and a newline; tag names the field, so a test can find it.
func hostile(tag string) string {
	return `<script>alert("` + tag + `")</script>"' onmouseover="alert(1)</style><b>x` + "\nline2 " + tag
}

// hostileReport is a Standard-size simulated run (5 contexts × 9 levels,
// 45 decode cells) with a hostile string in every field the page shows.
func hostileReport(t testing.TB) (engine.Report, []string) {
	r := manyCells(t, 5, 9)
	tags := []string{"model", "served", "gpu", "launch", "error", "note", "tool", "version", "flag", "cpu", "incomplete"}
	r.Run.Model, r.Run.ServedModel = hostile("model"), hostile("served")
	r.Hardware.GPUs = []engine.GPUInfo{{Name: hostile("gpu"), VRAMBytes: 24 << 30}}
	r.Hardware.CPU = hostile("cpu")
	r.LaunchCommand = "vllm serve m " + hostile("launch")
	r.Run.Notes = []string{hostile("note")}
	r.Run.Imported = &engine.Import{Tool: hostile("tool"), File: "x.json"}
	r.Server.Version = hostile("version")
	r.Run.Complete, r.Run.Incomplete = false, hostile("incomplete")
	for i := range r.Results {
		res := &r.Results[i]
		res.Error = hostile("error")
		res.ContextLabel = hostile("label") // not shown: labels come from the tokens
		for j := range res.Flags {
			res.Flags[j].Message = hostile("flag")
		}
		if res.Phase == engine.PhaseDecode {
			res.TTFTPct = engine.Percentiles{P50: 20, P90: 30, P99: 45, N: 400}
			res.ITLPct = engine.Percentiles{P50: 6, P90: 7, P99: 9, N: 9000}
			known := engine.Precision{RelCI95: 0.004, Buckets: 12, Batches: 6, Method: "batch means"}
			res.Precision = &engine.CellPrecision{TotalTokPerSec: known, PerRequestTokPerSec: known, ITLMs: known, Target: 0.01}
			res.PerRequestTokPerSec, res.ITLMs, res.AvgActive, res.Completed, res.MeasuredS = 12.5, 6, 3.9, 40, 12
		}
	}
	r.Server.Simulated, r.Server.SimProfile = true, "rtx3090"
	return r, tags
}

// parsePage parses b as HTML5, as a browser does.
func parsePage(t *testing.T, b []byte) *html.Node {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the page does not parse: %v", err)
	}
	return doc
}

// hostileAsText checks that page holds no hostile string (hostile) as
// markup and every one tagged tags as text; it returns the parsed page
// and its text (pageText).
func hostileAsText(t *testing.T, page []byte, tags []string) (*html.Node, string) {
	t.Helper()
	for _, raw := range []string{"<script>alert", "</style><b>", `" onmouseover="`, "<b>x"} {
		if bytes.Contains(page, []byte(raw)) {
			t.Errorf("the page holds %q unescaped", raw)
		}
	}
	doc := parsePage(t, page)
	text := pageText(doc)
	for _, tag := range tags {
		if want := `<script>alert("` + tag + `")</script>`; !strings.Contains(text, want) {
			t.Errorf("field %s: %q is not on the page as text", tag, want)
		}
	}
	return doc, text
}

// walk calls f on every node under n.
func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

// pageText is every text node and attribute value of the parsed page.
func pageText(doc *html.Node) string {
	var b strings.Builder
	walk(doc, func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data + "\n")
		}
		for _, a := range n.Attr {
			b.WriteString(a.Val + "\n")
		}
	})
	return b.String()
}

// TestHTMLEscapesEveryField: every hostile string reaches the page as
// text (the browser reads it back whole) and never as markup: the only
// script is ours, no element has an event handler, no <b> was injected.
func TestHTMLEscapesEveryField(t *testing.T) {
	r, tags := hostileReport(t)
	page, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	doc, text := hostileAsText(t, page, tags)
	var scripts []string
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch n.Data {
		case "script":
			scripts = append(scripts, n.FirstChild.Data)
		case "b":
			if n.FirstChild != nil && n.FirstChild.Data == "x" {
				t.Error("an injected <b> element")
			}
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s=%q>: an event handler", n.Data, a.Key, a.Val)
			}
		}
	})
	if len(scripts) != 1 || scripts[0] != htmlScript {
		t.Errorf("%d scripts, want ours alone", len(scripts))
	}
	if strings.Contains(text, `alert("label")`) {
		t.Error("the page shows a result's stored context label: labels come from its tokens")
	}
}

// TestHTMLHidesSecrets: an API key in the launch command (both spellings)
// and a password in the endpoint's URL never reach the page.
func TestHTMLHidesSecrets(t *testing.T) {
	r := loadSeed(t, "seed000")
	r.LaunchCommand = "vllm serve m --api-key sk-first-secret --port 8000\n  --hf-token=hf_second_secret \\\n  --x http://bob:third-secret@host:9/v1"
	r.Run.Endpoint = "http://alice:fourth-secret@gpu-box:8000/v1"
	page, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"sk-first-secret", "hf_second_secret", "third-secret", "fourth-secret"} {
		if bytes.Contains(page, []byte(s)) {
			t.Errorf("the page shows the secret %q", s)
		}
	}
	if !bytes.Contains(page, []byte("--api-key &lt;redacted&gt;")) {
		t.Error("the launch command does not say the key was redacted")
	}
}

// TestHTMLPolicyAllowsOnlyOurScript: the CSP forbids every fetch and
// lists the hash of the page's script, computed from its exact text.
func TestHTMLPolicyAllowsOnlyOurScript(t *testing.T) {
	page, err := HTML(loadSeed(t, "seed000"))
	if err != nil {
		t.Fatal(err)
	}
	var csp, script string
	walk(parsePage(t, page), func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "meta" && attr(n, "http-equiv") == "Content-Security-Policy" {
			csp = attr(n, "content")
		}
		if n.Type == html.ElementNode && n.Data == "script" {
			script = n.FirstChild.Data
		}
	})
	sum := sha256.Sum256([]byte(script))
	hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	for _, want := range []string{"default-src 'none'", "script-src " + hash, "img-src data:", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if len(htmlScript) > 4096 {
		t.Errorf("the script is %d bytes, more than a few kB", len(htmlScript))
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//`).Find(page); m != nil {
		t.Errorf("the page fetches %q", m)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// TestHTMLStandardReportSize: a Standard-size run's page, every cell
// with percentiles, ± and flags, stays under 1 MB.
func TestHTMLStandardReportSize(t *testing.T) {
	r, _ := hostileReport(t)
	page, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) >= 1<<20 {
		t.Errorf("the page is %d bytes, want under 1 MB", len(page))
	}
	if got := strings.Count(string(page), `class="hc hc-`); got != 45 {
		t.Errorf("%d heatmap cells, want 45", got)
	}
}

// TestHTMLBanners: simulated, imported and partial runs say so in a bar
// at the top, before the title; a measured run says Measured.
func TestHTMLBanners(t *testing.T) {
	imported, _, err := report.Read("../engine/report/testdata/llm-inference-bench-0.4.18.json")
	if err != nil {
		t.Fatal(err)
	}
	simulated := loadSeed(t, "seed000")
	simulated.Server.Simulated, simulated.Server.SimProfile = true, "rtx3090"
	partial := loadSeed(t, "seed000")
	partial.Run.Complete, partial.Results = false, partial.Results[:10]
	for _, tc := range []struct {
		name string
		r    engine.Report
		want []string
	}{
		{"measured", loadSeed(t, "seed000"), []string{`banner-measured" role="note">Measured<`}},
		{"simulated", simulated, []string{`banner-simulated" role="note">Simulated (profile rtx3090) — not a measurement`}},
		{"imported", imported, []string{`banner-imported" role="note">Imported · llm-inference-bench 0.4.18`}},
		{"partial", partial, []string{`banner-partial" role="note">Partial run: `}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := HTML(tc.r)
			if err != nil {
				t.Fatal(err)
			}
			title := bytes.Index(page, []byte("<h1>"))
			for _, w := range tc.want {
				if i := bytes.Index(page, []byte(w)); i < 0 || i > title {
					t.Errorf("no %q before the title", w)
				}
			}
		})
	}
}
