package shell

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
	kindMatrix = "Matrix"
	kindLoad   = "Load test"
)

// Arrivals as the load form names them.
const (
	arrivalsPoisson  = "Poisson (random)"
	arrivalsConstant = "Constant"
)

// loadSettings is the load test part of the Matrix screen, remembered
// between launches.
type loadSettings struct {
	On   bool            `json:"on,omitempty"`
	Plan engine.LoadPlan `json:"plan"`
}

// defaultLoadPlan is the load test the form starts with.
func defaultLoadPlan() engine.LoadPlan {
	return engine.LoadPlan{RatesRPS: []float64{1, 2, 4, 8}, Arrivals: engine.ArrivalsPoisson, Requests: 200,
		InputTokens: engine.TokenRange{Min: 1024, Max: 1024}, OutputTokens: engine.TokenRange{Min: 256, Max: 256}, API: engine.APIChat}
}

// loadForm is the Matrix screen's load test: requests arriving at set
// rates, each rate measured in turn.
type loadForm struct {
	u *app.UI

	kind                 *widget.RadioGroup
	rates, requests      *widget.Entry
	arrivals             *widget.RadioGroup
	input, output        *widget.Entry
	maxConc, burst, seed *widget.Entry
	dataset              string
	datasetErr           error // why the dataset cannot be used (measure.ReadDataset)
	datasetLine          *widget.Label
	datasetClear         *widget.Button
	api                  *appwidget.DropDown
	slo                  *appwidget.SloFields
	banner               *appwidget.Banner
	estimate, warnings   *widget.Label
	ratesCard            *widget.Card // the preview of the rates
	preview              *loadTable
	applying             bool
	matrixBody, loadBody fyne.CanvasObject
	form                 *widget.Form
	subtitle             *widget.Label // the screen's explanation line
	matrixText           string        // its words for the matrix
	// pickDataset asks for a JSONL file of prompts; tests replace it.
	pickDataset func(ok func(path string))
}

// loadText is the Matrix screen's explanation line for a load test.
const loadText = "Requests arrive at set rates, as users do; each rate reports throughput, latency percentiles and goodput."

// withLoadTest is the Matrix screen's body with the choice between the
// matrix (body) and a load test, saved the form remembered; the screen's
// header explains the kind chosen.
func (m *matrixTab) withLoadTest(header, body fyne.CanvasObject, saved loadSettings) fyne.CanvasObject {
	f := &loadForm{u: m.u, matrixBody: body, preview: newLoadTable([]string{"Rate", "Status"})}
	if f.subtitle = headerSubtitle(header); f.subtitle != nil {
		f.matrixText = f.subtitle.Text
	}
	m.load = f
	f.pickDataset = f.datasetDialog
	f.rates, f.requests, f.input, f.output = widget.NewEntry(), widget.NewEntry(), widget.NewEntry(), widget.NewEntry()
	f.maxConc, f.burst, f.seed = widget.NewEntry(), widget.NewEntry(), widget.NewEntry()
	f.maxConc.PlaceHolder, f.burst.PlaceHolder = "no cap", "off"
	for _, e := range []*widget.Entry{f.rates, f.requests, f.input, f.output, f.maxConc, f.burst, f.seed} {
		e.OnChanged = func(string) { f.refresh() }
	}
	f.arrivals = widget.NewRadioGroup([]string{arrivalsPoisson, arrivalsConstant}, func(string) { f.refresh() })
	f.arrivals.Horizontal, f.arrivals.Required = true, true
	f.api = appwidget.NewDropDown([]string{string(engine.APIChat), string(engine.APICompletions)}, func(string) { f.refresh() })
	// The app's one SLO (appState's, which the Matrix and Settings
	// screens edit too): an edit here is the SLO in use.
	f.slo = appwidget.NewSLOFields(f.onSLOEdit)
	f.datasetLine = widget.NewLabel("")
	f.datasetLine.Truncation = fyne.TextTruncateEllipsis
	choose := widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), f.onChooseDataset)
	f.datasetClear = widget.NewButtonWithIcon("", theme.ContentClearIcon(), func() { f.setDataset("") })
	f.banner = appwidget.NewBanner()
	f.estimate, f.warnings = widget.NewLabel(""), widget.NewLabel("")
	f.estimate.TextStyle = fyne.TextStyle{Bold: true}
	f.estimate.Wrapping, f.warnings.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	f.warnings.Importance = widget.WarningImportance

	f.loadBody = f.layout(choose)

	f.apply(saved)
	f.kind = widget.NewRadioGroup([]string{kindMatrix, kindLoad}, f.onKind)
	f.kind.Horizontal, f.kind.Required = true, true
	f.kind.SetSelected(map[bool]string{false: kindMatrix, true: kindLoad}[saved.On])
	m.u.State.Watch(app.ChangeTarget, f.refresh)
	m.u.State.Watch(app.ChangeSettings, f.showSLO)
	return container.NewBorder(f.kind, nil, nil, nil, container.NewStack(f.matrixBody, f.loadBody))
}

// onKind shows the matrix or the load test, and tells the state which
// one Run starts.
func (f *loadForm) onKind(kind string) {
	on := kind == kindLoad
	showIf(f.loadBody, on)
	showIf(f.matrixBody, !on)
	if f.subtitle != nil {
		f.subtitle.SetText(map[bool]string{true: loadText, false: f.matrixText}[on])
	}
	f.refresh()
}

// On reports whether the screen is set to a load test.
func (f *loadForm) On() bool { return f.kind != nil && f.kind.Selected == kindLoad }

// apply shows the remembered load test in the form.
func (f *loadForm) apply(s loadSettings) {
	p := s.Plan
	if p.Requests == 0 {
		p = defaultLoadPlan()
	}
	f.applying = true
	defer func() { f.applying = false }()
	rates := engine.FormatRates(p.RatesRPS)
	if p.Sweep {
		rates = engine.SweepWord
	}
	f.rates.SetText(rates)
	f.arrivals.SetSelected(arrivalsPoisson)
	if p.Arrivals == engine.ArrivalsConstant {
		f.arrivals.SetSelected(arrivalsConstant)
	}
	f.requests.SetText(strconv.Itoa(p.Requests))
	f.input.SetText(engine.FormatTokenRange(p.InputTokens))
	f.output.SetText(engine.FormatTokenRange(p.OutputTokens))
	f.maxConc.SetText(optionalCount(p.MaxConcurrency))
	f.burst.SetText(optionalCount(p.Burst))
	f.seed.SetText(strconv.FormatInt(p.Seed, 10))
	f.api.SetSelected(string(cmpAPI(p.API)))
	f.slo.Set(f.u.State.Settings.SLO) // the SLO in use, not the one remembered with the plan
	f.dataset = p.Dataset
	f.showDataset()
}

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

// settings is what the screen remembers of the load test.
func (f *loadForm) settings() loadSettings {
	p, err := f.Read()
	if err != nil {
		p = defaultLoadPlan()
	}
	return loadSettings{On: f.On(), Plan: p}
}

// layout is the load test's body: the form and its lines beside the rates
// it measures; choose is the dataset's button.
func (f *loadForm) layout(choose *widget.Button) fyne.CanvasObject {
	form := widget.NewForm(
		appwidget.HintedItem("Rates", f.rates, "requests per second, e.g. 1, 2, 4, 8; or sweep to the limit"),
		widget.NewFormItem("Arrivals", f.arrivals),
		widget.NewFormItem("Requests per rate", f.requests),
		appwidget.HintedItem("Input tokens", f.input, "tokens per prompt: 1024, or a range such as 512:2048"),
		widget.NewFormItem("Output tokens", f.output),
		appwidget.HintedItem("Max concurrency", f.maxConc, "cap on requests open at once; a request kept waiting counts its wait"),
		appwidget.HintedItem("Burst", f.burst, "N requests at once, end to end, instead of rates"),
		appwidget.HintedItem("Dataset", container.NewBorder(nil, nil, nil, container.NewHBox(choose, f.datasetClear), f.datasetLine),
			"JSONL: one {\"prompt\": …} per line, or ShareGPT conversations"),
		widget.NewFormItem("Seed", f.seed),
		widget.NewFormItem("API", f.api),
		appwidget.HintedItem(appwidget.SloTTFTName, f.slo.Ttft, "goodput counts the requests within both bounds"),
		widget.NewFormItem(appwidget.SloITLName, f.slo.Itl),
		widget.NewFormItem(appwidget.SloPctName, f.slo.Pct),
	)
	f.form = form
	left := container.NewVBox(appwidget.WithHintRoom(form), f.estimate, f.warnings)
	how := widget.NewLabel("Each rate sends its requests in turn, spaced by the arrivals chosen. Every request's latency counts from its " +
		"scheduled arrival, not from when the client sent it: a client that falls behind its schedule is flagged, and its lateness counts.")
	how.Wrapping = fyne.TextWrapWord
	f.ratesCard = widget.NewCard("Rates", ratesSubtitle, container.NewBorder(nil, how, nil, nil, f.preview.Object()))
	split := container.NewHSplit(container.NewVScroll(left), f.ratesCard)
	split.Offset = 0.5
	// The form's problem above both halves: under the form, a small
	// window scrolled it out of sight.
	return container.NewBorder(f.banner.Object(), nil, nil, nil, split)
}

// The Rates card's line: what its rows are, or why it has none.
const (
	ratesSubtitle   = "one row per rate, in the order they run"
	ratesNoneForNow = "none until the form's problem above is fixed"
)

// onSLOEdit makes the fields' SLO the one in use when they write one, and
// reads the form again.
func (f *loadForm) onSLOEdit() {
	if f.applying {
		return
	}
	if slo, err := f.slo.Read(); err == nil {
		f.u.State.SetSLO(slo)
	}
	f.refresh()
}

// showSLO fills the SLO fields with the SLO in use when it changed
// elsewhere (the Matrix form, Settings): what is being typed here stays.
func (f *loadForm) showSLO() {
	slo := f.u.State.Settings.SLO
	if cur, err := f.slo.Read(); err == nil && cur == slo {
		return
	}
	f.applying = true
	f.slo.Set(slo)
	f.applying = false
	f.refresh()
}
