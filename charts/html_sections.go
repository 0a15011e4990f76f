package charts

import (
	"context"
	"fmt"
	"html/template"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// figure is a chart of report.html: inline SVG in both themes (the page
// shows the one its theme asks for), its table, notes and flags.
type figure struct {
	Title        string
	Light, Dark  template.HTML
	Table        *table
	Notes, Flags []string
}

// table is a table of report.html; Right marks the right-aligned columns.
type table struct {
	Title       string
	NotesBefore []string
	Columns     []Column
	Right       []bool
	Rows        []htmlRow
	NotesAfter  []string
	Errors      []string
	Sortable    bool
}

// htmlRow is one row; Status is a class name for its look ("Valid", "Over").
type htmlRow struct {
	Status string
	Cells  []string
}

// checks is the Checks and flags section.
type checks struct {
	Lines []string // the throttle verdict and PCIe warnings
	Table *table
	Cache *table // the prefix cache and reasoning (report.CacheReasoningRows)
	Flags []string
}

// roofline is the roofline share: each phase's line and the heatmap by share.
type roofline struct {
	Lines []string
	Heat  *heat
}

// loadPage is a load test's part of the page: its plan, charts and table.
type loadPage struct {
	Plan, Limit, Replay string
	Figures             []*figure
	Table               *table
	Turns               *table // a conversation replay's TTFT by turn
	Flags               []string
}

// statusClass is a status as a class name: its first word.
func statusClass(s engine.Status) string {
	word, _, _ := strings.Cut(string(s), " ")
	return word
}

// htmlTable is t as a table of the page; nil when it has no rows.
func htmlTable(t Table, sortable bool) *table {
	if len(t.Rows) == 0 {
		return nil
	}
	out := &table{Title: t.Title, NotesBefore: t.NotesBefore, Columns: t.Columns, NotesAfter: t.NotesAfter,
		Errors: t.Errors, Sortable: sortable}
	for _, c := range t.Columns {
		out.Right = append(out.Right, c.Right)
	}
	for _, row := range t.Rows {
		out.Rows = append(out.Rows, htmlRow{Status: statusClass(row.Status), Cells: padCells(row.Cells, len(t.Columns))})
	}
	return out
}

// padCells cuts or pads cells to n, so that every row indexes Right.
func padCells(cells []string, n int) []string {
	out := make([]string, n)
	copy(out, cells)
	return out
}

// plainTable is a table of strings under heads, numbers right-aligned
// from column right on.
func plainTable(heads []string, right int, rows [][]string) *table {
	t := Table{}
	for i, h := range heads {
		t.Columns = append(t.Columns, Column{Title: h, Right: i >= right})
	}
	for _, r := range rows {
		t.Rows = append(t.Rows, TableRow{Status: engine.StatusValid, Cells: r})
	}
	return htmlTable(t, false)
}

// chartFigure draws kind in both themes around c's words.
func chartFigure(ctx context.Context, kind Kind, m Model, c LineChart) (*figure, error) {
	f := &figure{Title: c.Title, Notes: c.Notes, Flags: c.Flags}
	var err error
	if f.Light, err = inlineSVG(ctx, kind, m, Light); err != nil {
		return nil, err
	}
	if f.Dark, err = inlineSVG(ctx, kind, m, Dark); err != nil {
		return nil, err
	}
	return f, nil
}

// prefillFigure is the Prefill section: the curve and the reference
// reports' list as a table; nil when the run measured no prefill.
func prefillFigure(ctx context.Context, r engine.Report, m Model) (*figure, error) {
	if len(m.PrefillRows) == 0 {
		return nil, nil
	}
	f, err := chartFigure(ctx, KindPrefill, m, m.Prefill)
	if err != nil {
		return nil, err
	}
	rows := make([][]string, len(m.PrefillRows))
	for i, p := range m.PrefillRows {
		rows[i] = []string{p.Context, p.TokPerSec, p.TTFT}
	}
	f.Table = plainTable([]string{"Context", "Prompt tok/s", "TTFT"}, 1, rows)
	return f, nil
}

// htmlChecks is the Checks and flags section, as report.md's Checks
// (report.CheckRow) and the flagged cells of both phases; nil when there
// is nothing to check or flag.
func htmlChecks(r engine.Report) *checks {
	c := &checks{Flags: listed(report.FlagLines(r.Results), "flagged cells")}
	if line, _ := report.ThrottleSummary(r.Results); line != "" {
		c.Lines = append(c.Lines, line)
	}
	c.Lines = append(c.Lines, report.PCIeWarnings(r.Results)...)
	if rs := report.CheckResults(r); len(rs) > 0 {
		head := report.CheckHeader(rs)
		rows := make([][]string, min(len(rs), maxTableRows))
		for i := range rows {
			rows[i] = report.CheckRow(rs[i])[:len(head)]
		}
		c.Table = plainTable(head, 3, rows)
		if len(rs) > len(rows) {
			c.Table.NotesAfter = append(c.Table.NotesAfter, fmt.Sprintf("The table shows the first %s of %s checked cells: report.md lists every one.",
				report.Int(len(rows)), report.Int(len(rs))))
		}
	}
	if rows := report.CacheReasoningRows(r); len(rows) > 0 {
		c.Cache = plainTable(report.CacheReasoningColumns, 1, rows[:min(len(rows), maxTableRows)])
	}
	if len(c.Lines) == 0 && c.Table == nil && c.Cache == nil && len(c.Flags) == 0 {
		return nil
	}
	return c
}

// htmlRoofline is the roofline share of both phases, with the decode
// heatmap by share; nil when the report has no roofline.
func htmlRoofline(r engine.Report, m Model) *roofline {
	out := &roofline{}
	for _, ph := range []engine.Phase{engine.PhasePrefill, engine.PhaseDecode} {
		if line := report.RooflineLine(r, ph); line != "" {
			out.Lines = append(out.Lines, line)
		}
	}
	if m.Roofline != nil {
		out.Heat = decodeHeat(r, *m.Roofline)
	}
	if len(out.Lines) == 0 && out.Heat == nil {
		return nil
	}
	return out
}

// energySection is the page's Energy and cost: its lines
// (report.EnergyLines) and the tokens-per-joule and cost heatmaps.
type energySection struct {
	Lines      []string
	Heat, Cost *heat
}

// htmlEnergy is the page's Energy and cost section; nil when the report
// has neither energy nor prices.
func htmlEnergy(r engine.Report, m Model) *energySection {
	lines := report.EnergyLines(r)
	if lines == nil {
		return nil
	}
	out := &energySection{Lines: lines}
	heatOf := func(h HeatmapModel) *heat {
		h.Notes = nil // the section's lines say them once
		return decodeHeat(r, h)
	}
	out.Heat = heatOf(m.Energy)
	if m.Cost != nil {
		out.Cost = heatOf(*m.Cost)
	}
	return out
}

// loadFigures is a load test's part of the page: the latency panels, the
// goodput chart and the per-rate table.
func loadFigures(ctx context.Context, m Model) (*loadPage, error) {
	l := m.Load
	p := &loadPage{Plan: l.Plan, Limit: l.Limit, Replay: l.Replay, Table: htmlTable(l.Table, true), Flags: l.Flags}
	if len(l.Turns) > 0 {
		p.Turns = plainTable(report.TurnColumns, 1, l.Turns)
	}
	latency, err := chartFigure(ctx, KindLoadLatency, m, LineChart{Title: "Latency against throughput", Notes: l.TTFT.Notes})
	if err != nil {
		return nil, err
	}
	goodput, err := chartFigure(ctx, KindLoadGoodput, m, l.Goodput)
	if err != nil {
		return nil, err
	}
	if goodput.Title == "" {
		goodput.Title = "Goodput"
	}
	goodput.Flags = nil // listed once, under the table
	p.Figures = []*figure{latency, goodput}
	return p, nil
}
