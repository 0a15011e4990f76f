package matrix

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/trace"
)

// Plan reads the form and checks it against the target's limits, as far
// as known (engine.ValidateLoadPlan, as the CLI and the run do); the error
// names each field to fix, in the screen's words.
func (f *LoadForm) Plan() (engine.LoadPlan, error) {
	p, err := f.Read()
	if err != nil {
		return p, err
	}
	if f.datasetErr != nil && f.trace == "" { // a trace builds its own prompts
		return p, fmt.Errorf("dataset: %s cannot be used (%v): choose another file or clear it", filepath.Base(f.dataset), f.datasetErr)
	}
	if f.traceErr != nil {
		return p, fmt.Errorf("trace: %v: choose another file or clear it", f.traceErr)
	}
	var bad *engine.PlanError
	if errors.As(engine.ValidateLoadPlan(p, f.u.State.Target.Capacity), &bad) {
		return p, errors.New(loadProblems(bad.Problems))
	}
	return p, nil
}

// loadProblems are a load plan's problems (or warnings) in the form's
// words: "Rates: a rate of 0 or below sends nothing: …".
func loadProblems(problems []engine.PlanProblem) string {
	parts := make([]string, len(problems))
	for i, p := range problems {
		parts[i] = loadFieldName(p.Field) + ": " + p.Problem
	}
	return strings.Join(parts, "; ")
}

// loadFields names each load plan setting as the form labels it.
var loadFields = map[engine.PlanField]string{
	engine.FieldRates: "Rates", engine.FieldSweepRates: "Rates", engine.FieldArrivals: "Arrivals", engine.FieldBurst: "Burst",
	engine.FieldRequests: "Requests per rate", engine.FieldMaxConcurrency: "Max concurrency", engine.FieldInputTokens: "Input tokens",
	engine.FieldOutputTokens: "Output tokens", engine.FieldDataset: "Dataset", engine.FieldAPI: "API", engine.FieldTrace: "Trace",
	engine.FieldConversations: "Conversations", engine.FieldThinkTime: "Think time", engine.FieldAnswers: "Answers",
}

// loadFieldName is how the form labels a load plan setting (the SLO's as
// every screen does).
func loadFieldName(f engine.PlanField) string {
	return cmp.Or(loadFields[f], appwidget.SloFieldNames[f], string(f))
}

// Read parses the form; the error lists every field not written as it
// should be.
func (f *LoadForm) Read() (engine.LoadPlan, error) {
	if f.trace != "" {
		return f.readTrace()
	}
	if strings.TrimSpace(f.Convs.Text) != "" {
		return f.readConversations()
	}
	p := engine.LoadPlan{Arrivals: engine.ArrivalsPoisson, API: engine.API(f.Api.Selected), Dataset: f.dataset}
	if f.Arrivals.Selected == ArrivalsConstant {
		p.Arrivals = engine.ArrivalsConstant
	}
	var bad []string
	fail := func(field string, err error) { bad = append(bad, field+": "+err.Error()) }
	burst, err := optionalPositive(f.Burst.Text, "requests at once, e.g. 64, or leave it empty")
	if err != nil {
		fail("Burst", err)
	}
	rates, sweep, err := engine.ParseRates(f.Rates.Text)
	switch {
	case burst > 0:
	case err != nil:
		fail("Rates", err)
	case !sweep && len(rates) == 0:
		fail("Rates", errors.New("write at least one rate, e.g. 1, 2, 4, 8, or sweep"))
	}
	requests, err := app.ReadWhole(f.Requests.Text, engine.MaxLoadRequests, "requests", "200")
	if burst == 0 && err != nil {
		fail("Requests per rate", err)
	}
	if p.InputTokens, err = engine.ParseTokenRange(f.Input.Text); err != nil && f.dataset == "" {
		fail("Input tokens", err)
	}
	if p.OutputTokens, err = engine.ParseTokenRange(f.Output.Text); err != nil {
		fail("Output tokens", err)
	}
	if p.MaxConcurrency, err = optionalPositive(f.MaxConc.Text, "most requests open at once, e.g. 64, or leave it empty for no cap"); err != nil {
		fail("Max concurrency", err)
	}
	if p.Seed, err = strconv.ParseInt(strings.TrimSpace(f.Seed.Text), 10, 64); errors.Is(err, strconv.ErrRange) {
		fail("Seed", errors.New("too large: write a whole number of at most 18 digits, e.g. 0"))
	} else if err != nil {
		fail("Seed", errors.New("write a whole number, e.g. 0"))
	}
	if p.SLO, err = f.Slo.Read(); err != nil {
		bad = append(bad, err.Error())
	}
	switch {
	case burst > 0:
		p.Burst, p.Requests, p.Arrivals = burst, burst, engine.ArrivalsBurst
	case sweep:
		p.Sweep, p.SweepRates, p.Requests = true, engine.DefaultSweepRates, requests
	default:
		p.RatesRPS, p.Requests = rates, requests
	}
	if p.Dataset != "" {
		p.InputTokens = engine.TokenRange{} // the dataset's prompts have their own lengths
	}
	if len(bad) > 0 {
		return p, errors.New(strings.Join(bad, "; "))
	}
	return p, nil
}

// readTrace parses the form of a trace's replay: the trace, its time
// scale, and what applies to every load test (max concurrency, API, SLO).
func (f *LoadForm) readTrace() (engine.LoadPlan, error) {
	p := engine.LoadPlan{Arrivals: engine.ArrivalsTrace, API: engine.API(f.Api.Selected), Trace: &engine.TracePlan{File: f.trace}}
	var bad []string
	scale := 1.0
	if s := strings.TrimSpace(f.TimeScale.Text); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			v = -1
		}
		if err := trace.CheckOptions(trace.Options{TimeScale: v}); err != nil {
			bad = append(bad, "Time scale: "+strings.TrimPrefix(err.Error(), "time scale "))
		}
		scale = v
	}
	if scale != 1 {
		p.Trace.TimeScale = scale
	}
	if f.traceSum != nil {
		p.Requests = f.traceSum.Requests
		p.OutputTokens = engine.TokenRange{Min: 1, Max: max(1, f.traceOut)}
	}
	var err error
	if p.MaxConcurrency, err = optionalPositive(f.MaxConc.Text, "most requests open at once, e.g. 64, or leave it empty for no cap"); err != nil {
		bad = append(bad, "Max concurrency: "+err.Error())
	}
	if p.SLO, err = f.Slo.Read(); err != nil {
		bad = append(bad, err.Error())
	}
	if len(bad) > 0 {
		return p, errors.New(strings.Join(bad, "; "))
	}
	return p, nil
}

// readConversations parses the form of a conversation replay: the
// dataset, the conversations at once, the think time, the answers, and
// what applies to every load test (output tokens, seed, SLO).
func (f *LoadForm) readConversations() (engine.LoadPlan, error) {
	c := &engine.ConversationPlan{Answers: engine.AnswersModel}
	if f.Answers.Selected == answersDataset {
		c.Answers = engine.AnswersDataset
	}
	p := engine.LoadPlan{Arrivals: engine.ArrivalsConversations, API: engine.API(f.Api.Selected), Dataset: f.dataset, Conversations: c}
	var bad []string
	fail := func(field string, err error) { bad = append(bad, field+": "+err.Error()) }
	var err error
	if c.Open, err = optionalPositive(f.Convs.Text, "how many conversations at once, e.g. 4, or leave it empty for single prompts"); err != nil {
		fail("Conversations", err)
	}
	if s := strings.TrimSpace(f.ThinkTime.Text); s != "" {
		if c.ThinkTime, c.ThinkExp, err = engine.ParseThinkTime(s); err != nil {
			fail("Think time", err)
		}
	}
	if f.dataset == "" {
		bad = append(bad, "Dataset: choose a JSONL file of conversations to replay")
	}
	p.Requests = max(1, f.convTurns)
	if p.OutputTokens, err = engine.ParseTokenRange(f.Output.Text); err != nil {
		fail("Output tokens", err)
	}
	if p.Seed, err = strconv.ParseInt(strings.TrimSpace(f.Seed.Text), 10, 64); err != nil {
		fail("Seed", errors.New("write a whole number of at most 18 digits, e.g. 0"))
	}
	if p.SLO, err = f.Slo.Read(); err != nil {
		bad = append(bad, err.Error())
	}
	if len(bad) > 0 {
		return p, errors.New(strings.Join(bad, "; "))
	}
	return p, nil
}

// optionalPositive reads an optional whole number above 0 ("" is 0);
// what says what to write instead.
func optionalPositive(s, what string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	switch {
	case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(s, "-") || err == nil && n > engine.MaxLoadRequests:
		return 0, fmt.Errorf("too large: write at most %s requests", report.Int(engine.MaxLoadRequests))
	case err != nil || n < 1:
		return 0, errors.New("write " + what)
	}
	return n, nil
}

// Refresh reads the form into the state (Run starts what it says), and
// shows its problems, its estimate, its warnings and the rates it measures.
func (f *LoadForm) Refresh() {
	if f.applying || f.Kind == nil {
		return
	}
	p, err := f.Plan()
	f.u.State.SetLoad(app.LoadInfo{On: f.On(), Plan: p, Err: err})
	burst, traced, convs := strings.TrimSpace(f.Burst.Text) != "", f.trace != "", strings.TrimSpace(f.Convs.Text) != "" && f.trace == ""
	changed := false
	for _, e := range []struct {
		w  fyne.Disableable
		on bool
	}{
		{f.Rates, !burst && !traced && !convs}, {f.Arrivals, !burst && !traced && !convs}, {f.Requests, !burst && !traced && !convs},
		{f.Input, f.dataset == "" && !traced}, {f.Output, !traced}, {f.Burst, !traced && !convs}, {f.MaxConc, !convs},
		{f.Seed, !traced}, {f.TimeScale, traced}, {f.Convs, f.dataset != "" && !traced}, {f.ThinkTime, convs}, {f.Answers, convs},
	} {
		changed = enableIf(e.w, e.on) || changed
	}
	if changed && f.Form != nil {
		f.Form.Refresh() // its labels dim with their fields
	}
	if err != nil {
		f.Banner.Show(app.Notice{Message: app.Upper(err.Error()) + ".", Action: "Start run is off until the field is fixed."})
		f.Estimate.SetText("")
		appwidget.SetOptional(f.Warnings, "")
		f.Preview.SetPlanned(engine.LoadPlan{}, "")
		f.RatesCard.SetSubTitle(RatesNoneForNow)
		return
	}
	f.Banner.Hide()
	f.RatesCard.SetSubTitle(RatesSubtitle)
	f.Estimate.SetText(app.LoadEstimate(p))
	switch {
	case traced:
		f.Estimate.SetText(f.traceEstimate(p))
	case convs:
		f.Estimate.SetText("Estimated total: " + app.LoadAbout(p) + " · " + engine.Count(f.convTurns, "turn", "turns") + " of " +
			engine.Count(f.convCount, "conversation", "conversations") + ", " + report.Int(p.Conversations.Open) + " at once")
	}
	appwidget.SetOptional(f.Warnings, loadWarnings(p, f.u.State.Target.Capacity))
	f.Preview.SetPlanned(p, "will run")
}

// SetTrace replays the trace at path instead of rates ("" for none).
func (f *LoadForm) SetTrace(path string) {
	f.trace = path
	f.showTrace()
	f.Refresh()
}

// showTrace reads the trace once, when chosen (engine/trace, as the CLI
// and the run do, bounded), and says what it holds: a file that is not a
// trace is refused before Start, not after.
func (f *LoadForm) showTrace() {
	f.traceSum, f.traceOut, f.traceErr = nil, 0, nil
	if f.trace == "" {
		f.TraceLine.SetText("none: requests at the rates above")
		f.traceClear.Hide()
		return
	}
	f.traceClear.Show()
	t, err := trace.Read(f.trace, trace.Options{})
	if err != nil {
		f.traceErr = err
		f.TraceLine.SetText(engine.BoundName(filepath.Base(f.trace)) + ": cannot be used")
		return
	}
	f.traceSum, f.traceOut = t.Summary(), t.LongestOutput()
	f.TraceLine.SetText(report.TraceLine(f.traceSum))
}

// traceEstimate is the estimate line of a trace's replay: its span at the
// time scale, then its last requests' own time.
func (f *LoadForm) traceEstimate(p engine.LoadPlan) string {
	if f.traceSum == nil {
		return ""
	}
	span := time.Duration(f.traceSum.SpanS * cmp.Or(p.Trace.TimeScale, 1) / f.traceSum.TimeScale * float64(time.Second))
	return "Estimated total: " + app.FormatAbout(span+measure.RequestTime(p)) + " · " + engine.Count(f.traceSum.Requests, "request", "requests") + " at the trace's times"
}

// enableIf enables w when on, else disables it.
func enableIf(w fyne.Disableable, on bool) (changed bool) {
	if w.Disabled() != on {
		return false
	}
	if on {
		w.Enable()
	} else {
		w.Disable()
	}
	return true
}

// loadWarnings are what will run but mislead (engine.LoadWarnings), in
// the form's words.
func loadWarnings(p engine.LoadPlan, c app.Capacity) string {
	ws := engine.LoadWarnings(p, c)
	lines := make([]string, len(ws))
	for i, w := range ws {
		lines[i] = "⚠ " + loadProblems([]engine.PlanProblem{w}) + "."
	}
	return strings.Join(lines, "\n")
}

// onChooseDataset asks for the dataset file.
func (f *LoadForm) onChooseDataset() { f.pickDataset(f.SetDataset) }

// SetDataset uses the prompts of the file at path ("" for sized prompts).
func (f *LoadForm) SetDataset(path string) {
	f.dataset = path
	f.showDataset()
	f.Refresh()
}

// checkDataset reads the dataset once, when chosen (measure.ReadDataset,
// as the CLI does, or measure.CheckConversations for a replay of its
// conversations): a file that is not JSONL of prompts is refused before
// Start, not after.
func (f *LoadForm) checkDataset() {
	f.datasetErr, f.convCount, f.convTurns = nil, 0, 0
	switch {
	case f.dataset == "":
	case strings.TrimSpace(f.Convs.Text) != "":
		answers := engine.AnswersModel
		if f.Answers.Selected == answersDataset {
			answers = engine.AnswersDataset
		}
		f.convCount, f.convTurns, f.datasetErr = measure.CheckConversations(f.dataset, answers)
	default:
		_, f.datasetErr = measure.ReadDataset(f.dataset)
	}
}

// DatasetText is what the form says of its dataset.
func (f *LoadForm) DatasetText() string { return f.datasetLine.Text }

func (f *LoadForm) showDataset() {
	if f.Convs == nil {
		return // the form is being made
	}
	f.checkDataset()
	if f.dataset == "" {
		f.datasetLine.SetText("none: prompts of the input tokens' size")
		f.datasetClear.Hide()
		return
	}
	name := engine.BoundName(filepath.Base(f.dataset))
	if f.convCount > 0 {
		name += ": " + engine.Count(f.convCount, "conversation", "conversations") + ", " + engine.Count(f.convTurns, "turn", "turns")
	}
	f.datasetLine.SetText(name)
	f.datasetClear.Show()
}

// datasetDialog asks for a JSONL file of prompts.
func (f *LoadForm) datasetDialog(ok func(path string)) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return // cancelled, or refused by the dialog itself
		}
		_ = r.Close() // the runner reads it when the run starts
		ok(r.URI().Path())
	}, f.u.Win)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".jsonl", ".json"}))
	d.SetConfirmText("Use")
	d.Show()
}
