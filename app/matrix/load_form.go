package matrix

import (
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
)

// The kinds of plan the Matrix screen offers.
const (
	KindMatrix = "Matrix"
	KindLoad   = "Load test"
)

// Arrivals as the load form names them.
const (
	arrivalsPoisson  = "Poisson (random)"
	ArrivalsConstant = "Constant"
)

// LoadSettings is the load test part of the Matrix screen, remembered
// between launches.
type LoadSettings struct {
	On   bool            `json:"on,omitempty"`
	Plan engine.LoadPlan `json:"plan"`
}

// DefaultLoadPlan is the load test the form starts with.
func DefaultLoadPlan() engine.LoadPlan {
	return engine.LoadPlan{RatesRPS: []float64{1, 2, 4, 8}, Arrivals: engine.ArrivalsPoisson, Requests: 200,
		InputTokens: engine.TokenRange{Min: 1024, Max: 1024}, OutputTokens: engine.TokenRange{Min: 256, Max: 256}, API: engine.APIChat}
}

// LoadForm is the Matrix screen's load test: requests arriving at set
// rates, each rate measured in turn.
type LoadForm struct {
	u *app.UI

	Kind                 *widget.RadioGroup
	Rates, Requests      *widget.Entry
	Arrivals             *widget.RadioGroup
	Input, Output        *widget.Entry
	MaxConc, Burst, Seed *widget.Entry
	dataset              string
	datasetErr           error // why the dataset cannot be used (measure.ReadDataset)
	// convCount and convTurns are the dataset's conversations and turns
	// when they are replayed (Convs), once read.
	convCount, convTurns int
	datasetLine          *widget.Label
	datasetClear         *widget.Button
	// trace is the Mooncake trace replayed instead of rates ("" for none),
	// read when chosen: what it holds, or why it cannot be used.
	trace      string
	traceSum   *engine.TraceSummary
	traceOut   int // its longest output, for the plan's check
	traceErr   error
	TraceLine  *widget.Label
	traceClear *widget.Button
	TimeScale  *widget.Entry
	// Convs replays the dataset's conversations turn by turn, that many
	// at once ("" for single prompts), with a think time between turns
	// and the model's or the dataset's answers in the history.
	Convs, ThinkTime     *widget.Entry
	Answers              *widget.RadioGroup
	Api                  *appwidget.DropDown
	Slo                  *appwidget.SloFields
	Banner               *appwidget.Banner
	Estimate, Warnings   *widget.Label
	RatesCard            *widget.Card // the preview of the rates
	Preview              *appwidget.LoadTable
	applying             bool
	matrixBody, loadBody fyne.CanvasObject
	Form                 *widget.Form
	subtitle             *widget.Label // the screen's explanation line
	matrixText           string        // its words for the matrix
	// pickDataset asks for a JSONL file of prompts, pickTrace for a
	// trace; tests replace them.
	pickDataset, pickTrace func(ok func(path string))
}

// loadText is the Matrix screen's explanation line for a load test.
const loadText = "Requests arrive at set rates, as users do; each rate reports throughput, latency percentiles and goodput."

// withLoadTest is the Matrix screen's body with the choice between the
// matrix (body) and a load test, saved the form remembered; the screen's
// header explains the kind chosen.
func (m *Tab) withLoadTest(header, body fyne.CanvasObject, saved LoadSettings) fyne.CanvasObject {
	f := &LoadForm{u: m.u, matrixBody: body, Preview: appwidget.NewLoadTable([]string{"Rate", "Status"})}
	if f.subtitle = appwidget.HeaderSubtitle(header); f.subtitle != nil {
		f.matrixText = f.subtitle.Text
	}
	m.Load = f
	f.pickDataset = f.datasetDialog
	f.pickTrace = f.datasetDialog
	f.Rates, f.Requests, f.Input, f.Output = widget.NewEntry(), widget.NewEntry(), widget.NewEntry(), widget.NewEntry()
	f.MaxConc, f.Burst, f.Seed, f.TimeScale = widget.NewEntry(), widget.NewEntry(), widget.NewEntry(), widget.NewEntry()
	f.MaxConc.PlaceHolder, f.Burst.PlaceHolder, f.TimeScale.PlaceHolder = "no cap", "off", "1"
	f.Convs, f.ThinkTime = widget.NewEntry(), widget.NewEntry()
	f.Convs.PlaceHolder, f.ThinkTime.PlaceHolder = "off: single prompts", "0"
	f.Answers = widget.NewRadioGroup([]string{answersModel, answersDataset}, func(string) { f.showDataset(); f.Refresh() })
	f.Answers.Horizontal, f.Answers.Required = true, true
	for _, e := range []*widget.Entry{f.Rates, f.Requests, f.Input, f.Output, f.MaxConc, f.Burst, f.Seed, f.TimeScale, f.ThinkTime} {
		e.OnChanged = func(string) { f.Refresh() }
	}
	f.Arrivals = widget.NewRadioGroup([]string{arrivalsPoisson, ArrivalsConstant}, func(string) { f.Refresh() })
	f.Arrivals.Horizontal, f.Arrivals.Required = true, true
	f.Api = appwidget.NewDropDown([]string{string(engine.APIChat), string(engine.APICompletions)}, func(string) { f.Refresh() })
	// The app's one SLO (app.State's, which the Matrix and Settings
	// screens edit too): an edit here is the SLO in use.
	f.Slo = appwidget.NewSLOFields(f.onSLOEdit)
	f.datasetLine = widget.NewLabel("")
	f.datasetLine.Truncation = fyne.TextTruncateEllipsis
	choose := widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), f.onChooseDataset)
	f.datasetClear = widget.NewButtonWithIcon("", theme.ContentClearIcon(), func() { f.SetDataset("") })
	f.TraceLine = widget.NewLabel("")
	f.TraceLine.Wrapping = fyne.TextWrapWord
	chooseTrace := widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), func() { f.pickTrace(f.SetTrace) })
	f.traceClear = widget.NewButtonWithIcon("", theme.ContentClearIcon(), func() { f.SetTrace("") })
	f.Convs.OnChanged = func(string) { f.showDataset(); f.Refresh() }
	f.Banner = appwidget.NewBanner()
	f.Estimate, f.Warnings = widget.NewLabel(""), widget.NewLabel("")
	f.Estimate.TextStyle = fyne.TextStyle{Bold: true}
	f.Estimate.Wrapping, f.Warnings.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	f.Warnings.Importance = widget.WarningImportance

	f.loadBody = f.layout(choose, chooseTrace)

	f.Apply(saved)
	f.Kind = widget.NewRadioGroup([]string{KindMatrix, KindLoad}, f.onKind)
	f.Kind.Horizontal, f.Kind.Required = true, true
	f.Kind.SetSelected(map[bool]string{false: KindMatrix, true: KindLoad}[saved.On])
	m.u.State.Watch(app.ChangeTarget, f.Refresh)
	m.u.State.Watch(app.ChangeSettings, f.showSLO)
	return container.NewBorder(f.Kind, nil, nil, nil, container.NewStack(f.matrixBody, f.loadBody))
}

// onKind shows the matrix or the load test, and tells the state which
// one Run starts.
func (f *LoadForm) onKind(kind string) {
	on := kind == KindLoad
	appwidget.ShowIf(f.loadBody, on)
	appwidget.ShowIf(f.matrixBody, !on)
	if f.subtitle != nil {
		f.subtitle.SetText(map[bool]string{true: loadText, false: f.matrixText}[on])
	}
	f.Refresh()
}

// On reports whether the screen is set to a load test.
func (f *LoadForm) On() bool { return f.Kind != nil && f.Kind.Selected == KindLoad }

// Apply shows the remembered load test in the form.
func (f *LoadForm) Apply(s LoadSettings) {
	p := s.Plan
	if p.Requests == 0 {
		p = DefaultLoadPlan()
	}
	// A trace, a conversation replay or a dataset leaves the fields it
	// replaces unset: they show the defaults, ready for when it is cleared.
	d := DefaultLoadPlan()
	if len(p.RatesRPS) == 0 && !p.Sweep {
		p.RatesRPS = d.RatesRPS
	}
	if p.InputTokens.Max == 0 {
		p.InputTokens = d.InputTokens
	}
	if p.Trace != nil || p.Conversations != nil {
		p.Requests = d.Requests
	}
	f.applying = true
	defer func() { f.applying = false }()
	rates := engine.FormatRates(p.RatesRPS)
	if p.Sweep {
		rates = engine.SweepWord
	}
	f.Rates.SetText(rates)
	f.Arrivals.SetSelected(arrivalsPoisson)
	if p.Arrivals == engine.ArrivalsConstant {
		f.Arrivals.SetSelected(ArrivalsConstant)
	}
	f.Requests.SetText(strconv.Itoa(p.Requests))
	f.Input.SetText(engine.FormatTokenRange(p.InputTokens))
	f.Output.SetText(engine.FormatTokenRange(p.OutputTokens))
	f.MaxConc.SetText(optionalCount(p.MaxConcurrency))
	f.Burst.SetText(optionalCount(p.Burst))
	f.Seed.SetText(strconv.FormatInt(p.Seed, 10))
	f.Api.SetSelected(string(cmpAPI(p.API)))
	f.Slo.Set(f.u.State.Settings.SLO) // the SLO in use, not the one remembered with the plan
	f.dataset = p.Dataset
	f.showDataset()
	f.Convs.Text, f.ThinkTime.Text = "", ""
	f.Answers.Selected = answersModel
	if c := p.Conversations; c != nil {
		f.Convs.Text = strconv.Itoa(c.Open)
		if c.ThinkTime > 0 {
			f.ThinkTime.Text = c.ThinkTimeText()
		}
		if c.Answers == engine.AnswersDataset {
			f.Answers.Selected = answersDataset
		}
	}
	f.Convs.Refresh()
	f.ThinkTime.Refresh()
	f.Answers.Refresh()
	f.showDataset()
	f.trace, f.TimeScale.Text = "", ""
	if p.Trace != nil {
		f.trace = p.Trace.File
		if p.Trace.TimeScale > 0 && p.Trace.TimeScale != 1 {
			f.TimeScale.SetText(strconv.FormatFloat(p.Trace.TimeScale, 'g', -1, 64))
		}
	}
	f.showTrace()
}

// How the load form names what a replayed conversation's history holds.
const (
	answersModel   = "The model's own"
	answersDataset = "The dataset's"
)

// cmpAPI is api, or chat when unset.
func cmpAPI(api engine.API) engine.API {
	if api == "" {
		return engine.APIChat
	}
	return api
}

// optionalCount writes n for an optional field: "" for 0.
func optionalCount(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// Settings is what the screen remembers of the load test.
func (f *LoadForm) Settings() LoadSettings {
	p, err := f.Read()
	if err != nil {
		p = DefaultLoadPlan()
	}
	return LoadSettings{On: f.On(), Plan: p}
}

// layout is the load test's body: the form and its lines beside the rates
// it measures; choose is the dataset's button, chooseTrace the trace's.
func (f *LoadForm) layout(choose, chooseTrace *widget.Button) fyne.CanvasObject {
	form := widget.NewForm(
		appwidget.HintedItem("Rates", f.Rates, "requests per second, e.g. 1, 2, 4, 8; or sweep to the limit"),
		widget.NewFormItem("Arrivals", f.Arrivals),
		widget.NewFormItem("Requests per rate", f.Requests),
		appwidget.HintedItem("Input tokens", f.Input, "tokens per prompt: 1024, or a range such as 512:2048"),
		widget.NewFormItem("Output tokens", f.Output),
		appwidget.HintedItem("Max concurrency", f.MaxConc, "cap on requests open at once; a request kept waiting counts its wait"),
		appwidget.HintedItem("Burst", f.Burst, "N requests at once, end to end, instead of rates"),
		appwidget.HintedItem("Dataset", container.NewBorder(nil, nil, nil, container.NewHBox(choose, f.datasetClear), f.datasetLine),
			"JSONL: one {\"prompt\": …} per line, or ShareGPT conversations"),
		appwidget.HintedItem("Conversations", f.Convs, "replay a dataset's conversations turn by turn, this many at once"),
		appwidget.HintedItem("Think time", f.ThinkTime, "between a reply and the next turn: 2s, or exp:2s (random)"),
		appwidget.HintedItem("Answers", f.Answers, "what each conversation's history holds"),
		appwidget.HintedItem("Trace", container.NewBorder(nil, nil, nil, container.NewHBox(chooseTrace, f.traceClear), f.TraceLine),
			"Mooncake JSONL: each request at its time, instead of rates"),
		appwidget.HintedItem("Time scale", f.TimeScale, "with a trace: 0.5 replays it twice as fast"),
		widget.NewFormItem("Seed", f.Seed),
		widget.NewFormItem("API", f.Api),
		appwidget.HintedItem(app.SloTTFTName, f.Slo.Ttft, "goodput counts the requests within both bounds"),
		widget.NewFormItem(app.SloITLName, f.Slo.Itl),
		widget.NewFormItem(app.SloPctName, f.Slo.Pct),
	)
	f.Form = form
	left := container.NewVBox(appwidget.WithHintRoom(form), f.Estimate, f.Warnings)
	how := widget.NewLabel("Each rate sends its requests in turn, spaced by the arrivals chosen. Every request's latency counts from its " +
		"scheduled arrival, not from when the client sent it: a client that falls behind its schedule is flagged, and its lateness counts.")
	how.Wrapping = fyne.TextWrapWord
	f.RatesCard = widget.NewCard("Rates", RatesSubtitle, container.NewBorder(nil, how, nil, nil, f.Preview.Object()))
	split := container.NewHSplit(container.NewVScroll(left), f.RatesCard)
	split.Offset = 0.5
	// The form's problem above both halves: under the form, a small
	// window scrolled it out of sight.
	return container.NewBorder(f.Banner.Object(), nil, nil, nil, split)
}

// The Rates card's line: what its rows are, or why it has none.
const (
	RatesSubtitle   = "one row per rate, in the order they run"
	RatesNoneForNow = "none until the form's problem above is fixed"
)

// onSLOEdit makes the fields' SLO the one in use when they write one, and
// reads the form again.
func (f *LoadForm) onSLOEdit() {
	if f.applying {
		return
	}
	if slo, err := f.Slo.Read(); err == nil {
		f.u.State.SetSLO(slo)
	}
	f.Refresh()
}

// showSLO fills the SLO fields with the SLO in use when it changed
// elsewhere (the Matrix form, Settings): what is being typed here stays.
func (f *LoadForm) showSLO() {
	slo := f.u.State.Settings.SLO
	if cur, err := f.Slo.Read(); err == nil && cur == slo {
		return
	}
	f.applying = true
	f.Slo.Set(slo)
	f.applying = false
	f.Refresh()
}
