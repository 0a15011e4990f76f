package charts

import (
	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// Model is what a report sheet shows, already formatted the way the
// reference reports format it. Layouts position it; nothing in it depends on fonts.
type Model struct {
	Header      Header       `json:"header"`
	Sections    []section    `json:"sections"`               // Hardware, Engine, Run
	Launch      []string     `json:"launch,omitempty"`       // launch command, one entry per line
	Prefill     LineChart    `json:"prefill"`                // prompt tok/s and TTFT by context
	PrefillRows []PrefillRow `json:"prefill_rows,omitempty"` // the reference reports' prefill list
	Decode      HeatmapModel `json:"decode"`                 // total tok/s by context × concurrency
	// Roofline is the decode heatmap by share of each cell's roofline; nil
	// when the report has none.
	Roofline   *HeatmapModel `json:"roofline,omitempty"`
	PerRequest LineChart     `json:"per_request"` // per-request tok/s by concurrency
	Pareto     LineChart     `json:"pareto"`      // total tok/s per GPU against per-request tok/s
	// Energy is the decode heatmap by output tokens per joule; Cost by
	// price per million output tokens, nil without the user's prices.
	Energy HeatmapModel  `json:"energy"`
	Cost   *HeatmapModel `json:"cost,omitempty"`
	Table  Table         `json:"table"` // All measurements
	// SLO is the plan's SLO and how the decode cells fare against it; nil
	// when the plan sets none.
	SLO *SLOModel `json:"slo,omitempty"`
	// Load is a load test's charts and table (engine.Report.Load); nil for
	// a matrix.
	Load *LoadModel `json:"load,omitempty"`
	// Quality is the run's quality phase against a reference
	// (engine.Report.Quality); nil when it had none.
	Quality *QualityModel `json:"quality,omitempty"`
}

// SLOModel is what the sheet and the SLO picture show of the plan's SLO:
// its words, a line per decode context (report.SLOLines) and the pass or
// miss of every decode cell with its margin.
type SLOModel struct {
	Text    string       `json:"text"` // "TTFT p99 ≤ 2 s and ITL p99 ≤ 50 ms"
	Lines   []string     `json:"lines"`
	Heatmap HeatmapModel `json:"heatmap"`
}

// Header is the top of the sheet.
type Header struct {
	Title      string `json:"title"`       // "Speed test matrix"
	Model      string `json:"model"`       // "gemma-4-E2B-it on RTX 3090 24GB"
	ServerLine string `json:"engine_line"` // "vllm · 0.32.0 · NVFP4"
	MatrixLine string `json:"matrix_line"` // "6 contexts (0–248K) × 8 concurrency levels (1–128) · prefill at 8K, …"
	Badge      string `json:"badge"`       // "Measured" or "simulated (profile rtx3090)"
	Simulated  bool   `json:"simulated,omitempty"`
	// Notice is set for a partial run ("Partial run: 12 of 45 cells finished").
	Notice string `json:"notice,omitempty"`
	// Throttle is the run's GPU throttle verdict, set only when some cell
	// was throttled (report.ThrottleSummary).
	Throttle string `json:"throttle,omitempty"`
	// PCIe names the GPUs whose PCIe link ran below its maximum under load
	// (report.PCIeWarnings); empty when none did.
	PCIe string `json:"pcie,omitempty"`
}

// section is a titled list of key/value lines (Hardware, Engine, Run). The
// report package builds them, so the sheet lists the lines report.md does.
type section = report.Section

// kv is one line of a Section.
type kv = report.Row

// PrefillRow is one line of the reference reports' prefill list: "8K context", "40.4K", "203 ms TTFT".
type PrefillRow struct {
	Context   string `json:"context"`
	TokPerSec string `json:"tok_s"`
	TTFT      string `json:"ttft"`
}

// Tick is one labelled position on an axis or colour bar.
type Tick struct {
	Value float64 `json:"value"`
	Label string  `json:"label"`
}

// Axis is a value axis of a LineChart. Min and Max bound the drawn range.
type Axis struct {
	Label string  `json:"label"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Log   bool    `json:"log,omitempty"` // logarithmic (values spread over more than 10×)
	Ticks []Tick  `json:"ticks"`
}

// Point is one data point, with the label drawn next to it (may be empty).
type Point struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Label string  `json:"label,omitempty"`
	// Gap is set when a cell between this point and the one before has no
	// valid figure: the line is not drawn across it.
	Gap bool `json:"gap,omitempty"`
	// Lo and Hi, when Hi > Lo, are the point's 95 % interval: drawn as a
	// whisker, or as a band where its series is Band.
	Lo float64 `json:"lo,omitempty"`
	Hi float64 `json:"hi,omitempty"`
	// Hollow draws the point's marker as a ring: a flagged cell's.
	Hollow bool `json:"hollow,omitempty"`
}

// Series is one line of a LineChart.
type Series struct {
	Name string `json:"name"`
	// Axis is 0 for the left value axis and 1 for the right one.
	Axis   int  `json:"axis"`
	Dashed bool `json:"dashed,omitempty"`
	// Guide marks a reference line, not data: drawn thin, without markers
	// or point labels (the y = x line, an SLO bound).
	Guide bool `json:"guide,omitempty"`
	// Band draws the points' intervals as a shaded band along the line
	// (a noise floor) instead of a whisker at each point.
	Band bool `json:"band,omitempty"`
	// Dense draws a series of many points as its line alone, without a
	// marker at each point (the last keeps its own), its intervals as a
	// band.
	Dense bool `json:"dense,omitempty"`
	// Color names the series colour: "primary", "secondary", "muted",
	// "warning", or "ramp:F" for position F (0–1) along the theme's
	// sequential ramp.
	Color  string  `json:"color"`
	Points []Point `json:"points"`
}

// LineChart is a chart of series over a log₂ x axis, or a linear one.
type LineChart struct {
	Title    string   `json:"title"`
	Subtitle string   `json:"subtitle"`
	XLabel   string   `json:"x_label"`
	XMin     float64  `json:"x_min"`
	XMax     float64  `json:"x_max"`
	XTicks   []Tick   `json:"x_ticks"`
	Axes     []Axis   `json:"axes"` // left, then right when a series uses it
	Series   []Series `json:"series"`
	// LabelPoints says whether every point's label is drawn; otherwise only
	// the last point of each series is labelled.
	LabelPoints bool   `json:"label_points"`
	Empty       string `json:"empty,omitempty"` // shown instead of the plot when there is no data
	// Notes and Flags are drawn under the chart: the flag marker's note,
	// then one line per flagged cell (report.FlagLines).
	Notes []string `json:"notes,omitempty"`
	Flags []string `json:"flags,omitempty"`

	// XLinear spaces the x axis evenly from XMin (a load test's rates and
	// throughputs) instead of by powers of two.
	XLinear bool `json:"x_linear,omitempty"`
	// leftW, when set, is the least width of the left axis's ticks, so that
	// charts stacked on one x axis line it up (alignLeftAxes).
	leftW float64
}

// HeatmapModel is the decode matrix: one row per context, one column per
// concurrency level.
type HeatmapModel struct {
	Title     string       `json:"title"`
	Subtitle  string       `json:"subtitle"`
	RowHeader string       `json:"row_header"` // "Context"
	Rows      []string     `json:"rows"`
	Cols      []string     `json:"cols"`
	Cells     [][]HeatCell `json:"cells"` // [row][col]
	Scale     ColorScale   `json:"scale"`
	// Legend lists the statuses other than Valid present in the cells, in
	// a fixed order, with the reference reports' wording of each.
	Legend []StatusNote `json:"legend,omitempty"`
	Notes  []string     `json:"notes,omitempty"` // lines under the legend (the TTFT note)
	// Flags lists the flagged cells, one line each (report.FlagLines).
	Flags []string `json:"flags,omitempty"`
	// SLOMiss explains the mark of the cells that miss the plan's SLO
	// (HeatCell.Miss); empty when none does.
	SLOMiss string `json:"slo_miss,omitempty"`
}

// place puts every Valid cell on the colour map by its value (Pos),
// once Scale is set.
func (h *HeatmapModel) place() {
	for i := range h.Cells {
		for j := range h.Cells[i] {
			if h.Cells[i][j].Status == engine.StatusValid {
				h.Cells[i][j].Pos = h.Scale.Pos(h.Cells[i][j].Value)
			}
		}
	}
}

// StatusNote explains one status drawn in a heatmap.
type StatusNote struct {
	Status engine.Status `json:"status"`
	Note   string        `json:"note"`
}

// HeatCell is one cell of a HeatmapModel.
type HeatCell struct {
	Status engine.Status `json:"status"`
	Value  float64       `json:"value,omitempty"`
	Text   string        `json:"text"`             // "1,237.5" or the status ("Over capacity")
	Detail string        `json:"detail,omitempty"` // "128 ms TTFT"
	// Pos is the cell's position (0–1) on the colour map; only cells with a
	// Valid status are coloured.
	Pos float64 `json:"pos"`
	// Miss is set on a Valid cell that misses the plan's SLO: it is drawn
	// with a mark in its corner.
	Miss bool `json:"slo_miss,omitempty"`
}

// ColorScale maps cell values to colour-map positions.
type ColorScale struct {
	Label     string  `json:"label"`
	Min       float64 `json:"min"`
	Max       float64 `json:"max"`
	Log       bool    `json:"log,omitempty"`
	Diverging bool    `json:"diverging,omitempty"` // centred on zero (drawDelta)
	Ticks     []Tick  `json:"ticks"`
}

// Table is the reference reports' "All measurements" table.
type Table struct {
	Title       string     `json:"title"`
	NotesBefore []string   `json:"notes_before,omitempty"`
	Columns     []Column   `json:"columns"`
	Rows        []TableRow `json:"rows"`
	NotesAfter  []string   `json:"notes_after,omitempty"`
	// Errors holds the server's message for each Failed cell:
	// "Sustained decode 8K × 16: …", as report.md lists them.
	Errors []string `json:"errors,omitempty"`
}

// Column is a table column; numbers are right-aligned.
type Column struct {
	Title string `json:"title"`
	Right bool   `json:"right,omitempty"`
}

// TableRow is one measurement, formatted.
type TableRow struct {
	Status engine.Status `json:"status"`
	Cells  []string      `json:"cells"`
}
