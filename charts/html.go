package charts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/secret"
)

// HTMLFile is the whole report as one self-contained web page, written
// beside the pictures by every export: what people open, share and print.
const HTMLFile = "report.html"

// htmlCSP is report.html's Content-Security-Policy: nothing may be
// fetched from anywhere, styles are the page's own, images only data:
// URLs, and the one script runs because its hash is listed.
var htmlCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src '" + scriptHash(htmlScript) +
	"'; base-uri 'none'; form-action 'none'"

// scriptHash is the CSP source of an inline script: 'sha256-…' less its quotes.
func scriptHash(script string) string {
	sum := sha256.Sum256([]byte(script))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

var htmlPage = template.Must(template.New("report").Parse(htmlPageTemplate))

// page is what htmlPageTemplate shows, each part nil or empty when the
// report has none.
type page struct {
	CSP                    string
	Style                  template.CSS
	Script                 template.JS
	Title, Model, Subtitle string
	Banners                []banner
	Warnings               []string // throttle and PCIe verdicts, under the title
	Sections               []report.Section
	Launch                 string
	Prefill                *figure
	Decode                 *heat
	Pareto                 *figure // throughput against interactivity
	SLO                    *SLOModel
	Checks                 *checks
	Roofline               *roofline
	Energy                 *energySection
	Quality                *qualityPage
	Measurements           *table
	Notes                  []string
	Load                   *loadPage
}

// banner is a coloured bar at the top: simulated, imported, partial.
type banner struct {
	Kind string // "simulated", "imported", "partial", "measured"
	Text string
}

// HTML renders the report as report.html: one page that needs nothing
// but a browser, with every string escaped and every secret redacted.
// Like the pictures it stays of bounded size (charts/bounds.go), saying
// what it leaves to report.md.
func HTML(r engine.Report) ([]byte, error) { return htmlOf(context.Background(), r, BuildModel(r)) }

// htmlOf is HTML of r, whose model is m; once ctx is done it stops and
// returns ctx's error.
func htmlOf(ctx context.Context, r engine.Report, m Model) ([]byte, error) {
	p := page{
		CSP: htmlCSP, Style: template.CSS(htmlThemeCSS() + htmlStyle), Script: template.JS(htmlScript),
		Title: m.Header.Title, Model: m.Header.Model, Subtitle: report.Subtitle(r),
		Banners: banners(r, m.Header), Sections: htmlSections(m.Sections),
		Launch: launchText(r.LaunchCommand), Notes: listed(r.Run.Notes, "notes"),
	}
	for _, w := range []string{m.Header.Throttle, m.Header.PCIe} {
		if w != "" {
			p.Warnings = append(p.Warnings, w)
		}
	}
	var err error
	if m.Load != nil {
		if p.Load, err = loadFigures(ctx, m); err != nil {
			return nil, err
		}
	} else {
		if p.Prefill, err = prefillFigure(ctx, r, m); err != nil {
			return nil, err
		}
		p.Decode = decodeHeat(r, m.Decode)
		if m.Pareto.Empty == "" {
			if p.Pareto, err = chartFigure(ctx, KindPareto, m, m.Pareto); err != nil {
				return nil, err
			}
			p.Pareto.Notes = nil // drawn in the picture itself
		}
		p.SLO = m.SLO
		p.Checks = htmlChecks(r)
		p.Roofline = htmlRoofline(r, m)
		p.Energy = htmlEnergy(r, m)
		p.Measurements = htmlTable(m.Table, true)
	}
	if p.Quality, err = htmlQuality(ctx, r, m); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("write %s: %w", HTMLFile, err)
	}
	return b.Bytes(), nil
}

// launchText is the launch command as the page shows it: already
// redacted in the report, and redacted again (secret flags' values, URL
// passwords) in case the report came from elsewhere. A line is rewritten
// only where something was hidden.
func launchText(cmd string) string {
	lines := strings.Split(strings.TrimRight(cmd, "\n"), "\n")
	for i, line := range lines {
		fields := strings.Fields(line)
		if red := secret.Args(fields); !slices.Equal(red, fields) {
			line = strings.Join(red, " ")
		}
		lines[i] = secret.Text(line)
	}
	return strings.Join(lines, "\n")
}

// banners are the page's top bars, as prominent as the sheet's badge:
// the simulated or imported badge (else Measured), then a partial run's
// notice.
func banners(r engine.Report, h Header) []banner {
	var out []banner
	switch {
	case r.Run.Imported != nil:
		out = append(out, banner{"imported", h.Badge + ": figures measured by another tool, read from its file"})
		if h.Simulated {
			out = append(out, banner{"simulated", simulatedText(r.Server.SimulatedLabel())})
		}
	case h.Simulated:
		out = append(out, banner{"simulated", simulatedText(h.Badge)})
	default:
		out = append(out, banner{"measured", h.Badge})
	}
	if h.Notice != "" {
		out = append(out, banner{"partial", h.Notice})
	}
	return out
}

// simulatedText is the simulated banner: the badge ("simulated (profile
// tiny)") capitalised, and what it means.
func simulatedText(badge string) string {
	if badge == "" {
		badge = "simulated"
	}
	return strings.ToUpper(badge[:1]) + badge[1:] + " — not a measurement of real hardware"
}

// htmlSections are the Hardware, Engine and Run sections less the run's
// notes, which the page lists last under Notes, any URL password hidden.
func htmlSections(secs []report.Section) []report.Section {
	out := make([]report.Section, 0, len(secs))
	for _, s := range secs {
		rows := make([]report.Row, 0, len(s.Rows))
		for _, row := range s.Rows {
			if row.Key != "Note" {
				row.Value = secret.Text(row.Value)
				rows = append(rows, row)
			}
		}
		s.Rows = rows
		out = append(out, pageSection(s))
	}
	return out
}

// inlineSVG draws one picture in theme as SVG that embeds in HTML: our
// renderer's document without its XML prolog.
func inlineSVG(ctx context.Context, kind Kind, m Model, theme Theme) (template.HTML, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	d, err := drawModel(kind, m, Options{Theme: theme, Scale: 1})
	if err != nil {
		return "", err
	}
	var svg bytes.Buffer
	if err := d.writeSVG(ctx, &svg, 1); err != nil {
		return "", err
	}
	s := svg.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	// Our renderer writes its text XML-escaped and nothing else from the
	// report: safe to embed as it is.
	return template.HTML(s), nil
}
