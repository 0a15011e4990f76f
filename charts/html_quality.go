package charts

import (
	"context"
	"fmt"
	"strings"

	"speedmatrix/engine"
)

// qualityPage is report.html's Quality section: what was compared with
// what, the drift chart in both themes with its notes, the drift table
// (intervals, floor, verdicts), the needle and task tables with their
// McNemar lines, and the task items that flipped.
type qualityPage struct {
	Title     string
	Simulated string // the simulated banner's words; "" when measured
	Compared  string
	Figure    *figure
	Drift     *table
	Needle    *table
	Tasks     *table
	Flipped   []string
}

// htmlQuality is the Quality section of r, whose model is m; nil when r
// has no quality section.
func htmlQuality(ctx context.Context, r engine.Report, m Model) (*qualityPage, error) {
	if r.Quality == nil || m.Quality == nil {
		return nil, nil
	}
	q := m.Quality
	p := &qualityPage{Title: q.Title, Compared: comparedLine(*r.Quality), Drift: htmlTable(q.Drift, false),
		Needle: htmlTable(q.Needle, false), Tasks: htmlTable(q.Tasks, false), Flipped: q.Flipped}
	if q.Simulated {
		p.Simulated = simulatedText(r.Quality.Server.Server.SimulatedLabel())
	}
	f, err := chartFigure(ctx, KindQuality, m, LineChart{Title: q.Title, Notes: q.Notes})
	if err != nil {
		return nil, err
	}
	p.Figure = f
	return p, nil
}

// comparedLine says what a quality section compared: "Qwen3-8B (vllm
// 0.32.0) against the reference of Qwen3-8B recorded 2026-12-06 10:20
// UTC · top-20 logprobs, 128 tokens a probe", each name bounded.
func comparedLine(q engine.QualityReport) string {
	name := func(model string, e engine.ServerInfo) string {
		var parts []string
		for _, s := range []string{e.Name, e.Version, e.Quantization} {
			if s != "" {
				parts = append(parts, s)
			}
		}
		s := engine.BoundName(model)
		if len(parts) > 0 {
			s += " (" + engine.BoundText(strings.Join(parts, " "), maxListedRunes) + ")"
		}
		return s
	}
	line := name(q.Server.Model, q.Server.Server) + " against the reference of " + name(q.Reference.Model, q.Reference.Server)
	if !q.Reference.RecordedAt.IsZero() {
		line += " recorded " + q.Reference.RecordedAt.UTC().Format("2006-01-02 15:04 UTC")
	}
	if q.Reference.K > 0 {
		line += fmt.Sprintf(" · top-%d logprobs, %d tokens a probe", q.Reference.K, q.Reference.ContinuationTokens)
	}
	return line
}
