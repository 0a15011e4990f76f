package charts

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// colorGuide is the text colour, for a guide line that is no series' own.
const colorGuide = "text"

// LoadKinds are the pictures of a load test (KindsFor): the report sheet,
// latency against throughput, and goodput against the offered rate. The
// matrix's prefill and decode pictures have nothing to show for one.
var LoadKinds = []Kind{KindReport, KindLoadLatency, KindLoadGoodput, KindPareto}

// LoadModel is what a load test's pictures show: its plan, the latency
// panels and the goodput chart, and its per-rate table.
type LoadModel struct {
	Plan  string `json:"plan"`            // report.LoadPlanLine
	Limit string `json:"limit,omitempty"` // report.LoadLimitLine, for a sweep
	// TTFT and ITL are the two panels of KindLoadLatency: each latency's
	// p50 and p99 against the request throughput reached, one point per
	// rate, with the SLO's bound when it sets one.
	TTFT    LineChart `json:"ttft"`
	ITL     LineChart `json:"itl"`
	Goodput LineChart `json:"goodput"` // goodput and throughput against the offered rate
	Table   Table     `json:"table"`   // one row per rate (report.LoadRow)
	// Flags lists the flagged rates, one line each (report.LoadFlagLines).
	Flags []string `json:"flags,omitempty"`
	// NotDrawn names the rates the charts leave out, which have no valid
	// figures: "Not drawn, without valid figures: 6.42 req/s (Failed)."
	NotDrawn string `json:"not_drawn,omitempty"`
	// Replay says what a trace or conversation replay replayed
	// (report.TraceLine, report.ConversationLine); "" for rates.
	Replay string `json:"replay,omitempty"`
	// Turns are a conversation replay's TTFT by turn (report.TurnRows).
	Turns [][]string `json:"turns,omitempty"`
}

// buildLoad is a load test's model; nil for a matrix.
func buildLoad(r engine.Report) *LoadModel {
	l := r.Load
	if l == nil {
		return nil
	}
	m := &LoadModel{Plan: report.LoadPlanLine(*l), Limit: report.LoadLimitLine(*l), Flags: listed(report.LoadFlagLines(l.Results), "flagged rates")}
	slo := l.Plan.SLO
	m.TTFT = buildLoadLatency(*l, "Time to first token", "TTFT", slo.TTFT, func(res engine.LoadResult) engine.Percentiles { return res.TTFTMs })
	m.ITL = buildLoadLatency(*l, "Time between tokens", "ITL", slo.ITL, func(res engine.LoadResult) engine.Percentiles { return res.ITLMs })
	m.Goodput = buildLoadGoodput(*l)
	m.NotDrawn = notDrawn(l.Results)
	m.Goodput.Notes, m.Goodput.Flags = nonEmpty(m.NotDrawn), m.Flags // under the goodput figure
	m.Table = buildLoadTable(*l)
	m.Replay = report.TraceLine(l.Trace) + report.ConversationLine(l.Conversations) // one at most
	for _, res := range l.Results {
		m.Turns = append(m.Turns, report.TurnRows(res)...)
	}
	return m
}

// notDrawn names the rates without valid figures, which no chart draws;
// "" when every rate is drawn.
func notDrawn(rs []engine.LoadResult) string {
	var names []string
	for _, r := range rs {
		if !report.LoadMeasured(r) {
			names = append(names, report.RateLabel(r)+" ("+string(r.Status)+")")
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "Not drawn, without valid figures: " + strings.Join(names, ", ") + "."
}

// validRates are the rates whose figures may be drawn, in the run's order.
func validRates(rs []engine.LoadResult) []engine.LoadResult {
	var out []engine.LoadResult
	for _, r := range rs {
		if report.LoadMeasured(r) {
			out = append(out, r)
		}
	}
	return out
}

// buildLoadLatency is one panel of the latency chart: a latency's p50 and
// p99 at the request throughput each rate reached, in the order of the
// rates (past saturation the throughput stays put while latency climbs:
// the line turns upward). The points of p99 are labelled with their
// offered rate. A y axis spanning more than 10× is logarithmic.
func buildLoadLatency(l engine.LoadSection, title, short string, bound time.Duration, of func(engine.LoadResult) engine.Percentiles) LineChart {
	c := LineChart{
		Title:       title,
		Subtitle:    short + " p50 and p99 against the request throughput reached · one point per rate, labelled with its offered rate",
		XLabel:      "request throughput (requests/s)",
		XLinear:     true,
		LabelPoints: true,
	}
	rates := validRates(l.Results)
	if len(rates) == 0 {
		c.Empty = "No rate of this load test has valid figures."
		return c
	}
	p50 := Series{Name: short + " p50", Color: colorPrimary}
	p99 := Series{Name: short + " p99", Color: colorSecondary, Dashed: true}
	maxX, lo, hi := 0.0, math.Inf(1), 0.0
	for _, res := range rates {
		x, pct := res.RequestThroughputRPS, of(res)
		maxX = math.Max(maxX, x)
		// An imported file may lack a percentile, or the figure (GuideLLM has no ITL).
		for _, p := range []struct {
			s   *Series
			at  int
			tag string
		}{{&p50, 50, ""}, {&p99, 99, rateTick(res)}} {
			if report.HasPercentile(pct, p.at) {
				y := pct.At(p.at)
				lo, hi = math.Min(lo, y), math.Max(hi, y)
				p.s.Points = append(p.s.Points, Point{X: x, Y: y, Label: p.tag})
			}
		}
	}
	if len(p50.Points)+len(p99.Points) == 0 {
		c.Empty = "This load test's file has no " + short + " figures."
		return c
	}
	c.Series = []Series{p50, p99}
	boundMs := float64(bound) / float64(time.Millisecond)
	if boundMs > 0 {
		lo, hi = math.Min(lo, boundMs), math.Max(hi, boundMs)
	}
	x := linearAxis("", maxX, 5, formatRate)
	c.XMin, c.XMax, c.XTicks = 0, x.Max, x.Ticks
	c.Axes = []Axis{linearAxis(short+" latency", hi, 5, formatLatency)}
	if lo > 0 && hi/lo >= 10 {
		c.Axes[0] = logAxis(short+" latency (log scale)", lo, hi, formatLatency)
	}
	if boundMs > 0 {
		c.Series = append(c.Series, sloGuide(c, l.Plan.SLO, short, boundMs))
	}
	return c
}

// sloGuide is the SLO's bound across a latency panel: "SLO: p99 ≤ 2 s".
func sloGuide(c LineChart, slo engine.SLO, short string, boundMs float64) Series {
	name := fmt.Sprintf("SLO: %s p%d ≤ %s", short, slo.At(), report.DurationWords(time.Duration(boundMs*float64(time.Millisecond))))
	return Series{Name: name, Color: colorSecondary, Guide: true, Points: []Point{{X: c.XMin, Y: boundMs}, {X: c.XMax, Y: boundMs}}}
}

// formatLatency labels a latency axis, the unit on every tick: "50 ms",
// "2.5 s".
func formatLatency(ms float64) string {
	if ms < 1000 {
		return formatRate(math.Round(ms*10)/10) + " ms"
	}
	return formatRate(math.Round(ms/100)/10) + " s"
}

// rateTick labels a point with its offered rate: "8/s", "burst",
// "conversations", or "×4" for requests kept open 4 at a time.
func rateTick(r engine.LoadResult) string {
	if report.IsBurst(r) {
		return "burst"
	}
	if r.Arrivals == engine.ArrivalsConversations {
		return "conversations"
	}
	if r.Arrivals == engine.ArrivalsConcurrent {
		return "×" + strconv.Itoa(r.Concurrency) // as the Pareto chart labels a concurrency
	}
	return report.RateRPS(r.RateRPS) + "/s"
}

// formatRate writes a rate on an axis: "0", "2.5", "10".
func formatRate(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// buildLoadGoodput is the goodput chart: the request throughput reached
// and the goodput at each offered rate, beside the y = x line of a server
// that keeps up with every rate. A burst has no rate to draw against.
func buildLoadGoodput(l engine.LoadSection) LineChart {
	c := LineChart{
		Title:       "Goodput",
		Subtitle:    "requests per second completed, and meeting the SLO, at each offered rate · the dashed grey line is the offered rate",
		XLabel:      "offered rate (requests/s)",
		XLinear:     true,
		LabelPoints: true,
	}
	switch {
	case l.Imported != nil: // its goodput is the tool's, by its own SLO, or every completed request
		c.Subtitle = "requests per second completed, and " + l.Imported.Tool + "'s goodput (see the Run section's notes), at each offered rate · the dashed grey line is the offered rate"
	case !l.Plan.SLO.On():
		c.Subtitle = "requests per second completed at each offered rate (no SLO: goodput is every completed request) · the dashed grey line is the offered rate"
	}
	var rates []engine.LoadResult
	for _, res := range validRates(l.Results) {
		if !report.IsBurst(res) && res.RateRPS > 0 {
			rates = append(rates, res)
		}
	}
	if len(rates) == 0 {
		c.Empty = "No rate to draw: a burst has no offered rate (its figures are in the table)."
		if len(l.Results) > 0 && !report.IsBurst(l.Results[0]) {
			c.Empty = "No rate of this load test has valid figures."
		}
		if l.Plan.Conversations != nil {
			c.Empty = "No rate to draw: a conversation replay has no offered rate, each turn follows the reply before it (its figures are in the table)."
		}
		if len(l.Results) > 0 && l.Results[0].Arrivals == engine.ArrivalsConcurrent {
			c.Empty = "No rate to draw: requests kept open a number at a time have no offered rate (their figures are in the table)."
		}
		return c
	}
	thr := Series{Name: "request throughput", Color: colorPrimary}
	good := Series{Name: "goodput", Color: colorSecondary, Dashed: true}
	maxV := 0.0
	for _, res := range rates {
		maxV = math.Max(maxV, math.Max(res.RateRPS, res.RequestThroughputRPS))
		thr.Points = append(thr.Points, Point{X: res.RateRPS, Y: res.RequestThroughputRPS, Label: strconv.FormatFloat(res.RequestThroughputRPS, 'f', 2, 64)})
		good.Points = append(good.Points, Point{X: res.RateRPS, Y: res.GoodputRPS, Label: strconv.FormatFloat(res.GoodputRPS, 'f', 2, 64)})
	}
	x := linearAxis("", maxV, 5, formatRate)
	c.XMin, c.XMax, c.XTicks = 0, x.Max, x.Ticks
	c.Axes = []Axis{linearAxis("requests/s", maxV, 5, formatRate)}
	top := math.Min(c.XMax, c.Axes[0].Max)
	ideal := Series{Name: "offered rate (y = x)", Color: colorGuide, Guide: true, Points: []Point{{X: 0, Y: 0}, {X: top, Y: top}}}
	c.Series = []Series{ideal, thr, good}
	return c
}

// buildLoadTable is the sheet's per-rate table: report.md's Per rate rows.
func buildLoadTable(l engine.LoadSection) Table {
	rs := l.Results
	t := Table{Title: "Per rate"}
	for _, title := range report.LoadColumns {
		t.Columns = append(t.Columns, Column{Title: title, Right: title != "Rate" && title != "Status"})
	}
	flagged, few := false, false
	for _, res := range rs {
		t.Rows = append(t.Rows, TableRow{Status: res.Status, Cells: report.LoadRow(res)})
		flagged = flagged || (report.LoadMeasured(res) && len(res.Flags) > 0)
		few = few || (report.LoadHasFigures(res) && (res.TTFTMs.FewForP99() || res.ITLMs.FewForP99() || res.E2EMs.FewForP99()))
	}
	t.NotesAfter = []string{report.LoadLatencyNote(l)}
	if flagged {
		t.NotesAfter = append(t.NotesAfter, report.NoteLoadFlagged)
	}
	if slices.ContainsFunc(rs, report.LoadPartial) {
		t.NotesAfter = append(t.NotesAfter, report.NoteLoadPartial)
	}
	if few {
		t.NotesAfter = append(t.NotesAfter, report.NoteFewSamples)
	}
	t.Errors = listed(report.LoadErrorLines(rs), "rates that are not valid")
	return t
}

// loadPartialNotice says how many of a partial load test's planned rates
// have valid figures: "Partial run: 2 of 3 rates valid — the server
// stopped answering".
func loadPartialNotice(r engine.Report) string {
	if r.Run.Complete {
		return ""
	}
	l := r.Load
	planned := max(len(l.Plan.RatesRPS), l.Plan.SweepRates, len(l.Results), 1)
	notice := fmt.Sprintf("Partial run: %d of %d rates valid", len(validRates(l.Results)), planned)
	if r.Run.Incomplete != "" {
		notice += " — " + r.Run.Incomplete
	}
	return notice
}
