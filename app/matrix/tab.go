package matrix

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
)

// planSettings is the Matrix screen remembered between launches.
type planSettings struct {
	Preset string       `json:"preset"`
	Plan   engine.Plan  `json:"plan"`
	Load   LoadSettings `json:"load,omitzero"` // the load test (load_form.go)
	// Quality is the phase after the matrix (quality.go).
	Quality qualitySettings `json:"quality,omitzero"`
}

// Tab edits the plan: contexts, concurrency levels, duration, output.
type Tab struct {
	u *app.UI

	Preset              *widget.RadioGroup
	Prefill, Decode     *widget.Entry
	Concurrency         *widget.Entry
	DurationS, MaxOut   *widget.Entry
	precision           *widget.Entry // the ± a window ends at, or off
	api                 *appwidget.DropDown
	Estimate            *widget.Label
	Banner              *appwidget.Banner // why the form is not a plan
	Warnings            *widget.Label     // what will run but mislead
	Shrunk              *widget.Label     // the plan fitted to a smaller model, in its real sizes
	CapacityLine        *widget.Label
	OverLine            *widget.Label // why the grey cells will not run
	Preview             *appwidget.Heatmap
	Slo                 *appwidget.SloFields // the SLO runs are judged against (slo.go)
	sloSeen             engine.SLO           // the state's SLO as the fields last showed or wrote it
	Applying            bool                 // a preset is filling the form: edits are not "Custom"
	lastContexts, lastC []int
	Load                *LoadForm // the other kind of plan (load_form.go)
	// The Prefill Repeats field (prefill.go), and the plan's
	// PrefillSingleFrom it keeps until edited.
	Repeats     *widget.Entry
	RepeatsItem *widget.FormItem
	singleFrom  int
	Form        *widget.Form
	Quality     *qualityForm // the phase after the matrix (quality.go)
}

// New builds the Matrix screen from the remembered plan.
func New(u *app.UI) (*Tab, *container.TabItem) {
	m := &Tab{u: u, Preview: appwidget.NewHeatmap("will run")}
	m.Prefill, m.Decode, m.Concurrency = widget.NewEntry(), widget.NewEntry(), widget.NewEntry()
	m.DurationS, m.MaxOut, m.precision = widget.NewEntry(), widget.NewEntry(), widget.NewEntry()
	repeats := m.newRepeatsItem()
	m.api = appwidget.NewDropDown([]string{string(engine.APIChat), string(engine.APICompletions)}, func(string) { m.onEdit() })
	// With a validator the form shows the field's hint, and marks a target
	// it can't read as the user types.
	m.precision.Validator = func(s string) error { _, err := engine.ParsePrecision(s); return err }
	for _, e := range []*widget.Entry{m.Prefill, m.Decode, m.Concurrency, m.DurationS, m.precision, m.MaxOut} {
		e.OnChanged = func(string) { m.onEdit() }
	}
	m.Estimate, m.CapacityLine = widget.NewLabel(""), widget.NewLabel("")
	m.Estimate.TextStyle = fyne.TextStyle{Bold: true}
	m.Estimate.Wrapping = fyne.TextWrapWord
	m.Banner = appwidget.NewBanner()
	m.Warnings, m.Shrunk = widget.NewLabel(""), widget.NewLabel("")
	m.Warnings.Importance, m.Shrunk.Importance = widget.WarningImportance, widget.WarningImportance
	m.Warnings.Wrapping, m.Shrunk.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	m.Shrunk.TextStyle = fyne.TextStyle{Bold: true}
	m.CapacityLine.Wrapping = fyne.TextWrapWord
	m.CapacityLine.Importance = widget.LowImportance
	m.OverLine = widget.NewLabel("")
	m.OverLine.Wrapping = fyne.TextWrapWord
	m.OverLine.Hide()
	m.Preset = widget.NewRadioGroup([]string{app.PresetQuick, app.PresetStandard, app.PresetCustom}, m.onPreset)
	// One above the other: side by side they made the form too wide for the
	// grid of a Standard plan beside it at 1,024 px.
	m.Preset.Horizontal = false
	m.Preset.Required = true

	saved := planSettings{Preset: app.PresetStandard, Plan: engine.DefaultPlan()}
	u.Prefs.Load(app.PrefPlan, &saved)
	u.State.Watch(app.ChangeTarget, m.targetChanged)
	u.State.Watch(app.ChangeTheme, m.Preview.Redraw)
	m.Slo = appwidget.NewSLOFields(m.RefreshCapacity)
	u.State.Watch(app.ChangeSettings, m.showSLO)
	m.Applying = true
	m.sloSeen = u.State.Settings.SLO
	m.Slo.Set(m.sloSeen)
	m.Preset.SetSelected(saved.Preset)
	m.Applying = false
	qualityItem := m.newQualityForm(saved.Quality)
	m.applyPlan(saved.Plan)

	form := widget.NewForm(append([]*widget.FormItem{
		appwidget.HintedItem("Preset", m.Preset, "Quick: a first look, short windows"),
		appwidget.HintedItem("Prefill contexts", m.Prefill, "tokens; K = 1,024 (e.g. 8K, 16K, 32K)"),
		repeats,
		widget.NewFormItem("Decode contexts", m.Decode),
		appwidget.HintedItem("Requests at once", m.Concurrency, "streams per decode cell"),
		appwidget.HintedItem("Seconds per cell", m.DurationS, "with a precision: the longest"),
		appwidget.HintedItem(app.PrecisionName, m.precision, "end at this ±, e.g. 1%; or off"),
		widget.NewFormItem("Max output tokens", m.MaxOut),
		widget.NewFormItem("API", m.api),
	}, append(m.sloItems(), qualityItem)...)...)
	m.Form = form
	left := container.NewVBox(appwidget.WithHintRoom(form), m.Estimate, m.Shrunk, m.Warnings)
	right := widget.NewCard("Decode cells", "grey: over the server's capacity, will not run",
		container.NewBorder(nil, container.NewVBox(m.OverLine, m.CapacityLine), nil, nil, m.Preview.Object()))
	split := container.NewHSplit(container.NewVScroll(left), right)
	split.Offset = 0.42
	header := appwidget.ScreenHeader("Matrix", "Prefill at each context, then sustained decode at each context × number of simultaneous requests.")
	// The form's problem above both halves, as the load test's: under the
	// form, a small window scrolled it out of sight.
	body := container.NewBorder(m.Banner.Object(), nil, nil, nil, split)
	return m, container.NewTabItemWithIcon(app.TabMatrix, theme.GridIcon(), appwidget.Screen(header, m.withLoadTest(header, body, saved.Load), nil))
}

// onPreset fills the form with a preset's plan.
func (m *Tab) onPreset(name string) {
	if m.Applying || name == app.PresetCustom || name == "" {
		return
	}
	m.applyPlan(app.PresetPlan(name, m.Capacity()))
}

// UsePreset selects a preset and fills the form with its plan.
func (m *Tab) UsePreset(name string) {
	m.Applying = true
	m.Preset.SetSelected(name)
	m.Applying = false
	m.applyPlan(app.PresetPlan(name, m.Capacity()))
}

// onEdit marks the plan Custom and updates the estimate and the preview.
func (m *Tab) onEdit() {
	if m.Applying {
		return
	}
	m.Applying = true
	m.Preset.SetSelected(app.PresetCustom)
	m.Applying = false
	m.RefreshCapacity()
}

// applyPlan shows p in the form.
func (m *Tab) applyPlan(p engine.Plan) {
	m.Applying = true
	defer func() { m.Applying = false }()
	m.Prefill.SetText(engine.FormatContexts(p.PrefillContexts))
	m.Decode.SetText(engine.FormatContexts(p.DecodeContexts))
	m.Concurrency.SetText(engine.FormatCounts(p.Concurrency))
	m.DurationS.SetText(strconv.FormatFloat(p.Duration.Seconds(), 'f', -1, 64))
	m.precision.SetText(engine.FormatPrecision(p.Precision))
	m.MaxOut.SetText(strconv.Itoa(p.MaxOutputTokens))
	m.showRepeats(p)
	m.api.SetSelected(string(p.API))
	m.refreshCapacityLocked()
}

// Plan reads the form and checks it against the target's limits
// (engine.ValidatePlan, as the run does); the error names each field to
// fix.
func (m *Tab) Plan() (engine.Plan, error) {
	p, err := m.Read()
	if err != nil {
		return p, err
	}
	var bad *engine.PlanError
	if errors.As(engine.ValidatePlan(p, m.Capacity()), &bad) {
		return p, errors.New(matrixProblems(bad.Problems))
	}
	return p, nil
}

// Read parses the form, the SLO included; the error says which field is
// not written as it should be.
func (m *Tab) Read() (engine.Plan, error) {
	p, err := m.readMatrix()
	if err != nil {
		return p, err
	}
	p.SLO, err = m.Slo.Read()
	return p, err
}

// readMatrix parses the form's matrix: every field but the SLO's.
func (m *Tab) readMatrix() (engine.Plan, error) {
	p := engine.DefaultPlan()
	var err error
	if p.PrefillContexts, err = engine.ParseContexts(m.Prefill.Text); err != nil {
		return p, fmt.Errorf("prefill contexts: %w", err)
	}
	if err := m.readRepeats(&p); err != nil {
		return p, err
	}
	if p.DecodeContexts, err = engine.ParseContexts(m.Decode.Text); err != nil {
		return p, fmt.Errorf("decode contexts: %w", err)
	}
	if p.Concurrency, err = engine.ParseCounts(m.Concurrency.Text); err != nil {
		return p, fmt.Errorf("requests at once: %w", err)
	}
	secs, err := strconv.ParseFloat(strings.TrimSpace(m.DurationS.Text), 64)
	if err != nil || math.IsNaN(secs) {
		return p, errors.New("seconds per cell: write a number of seconds, e.g. 30")
	}
	p.Duration = time.Duration(secs * float64(time.Second))
	if secs >= float64(math.MaxInt64/time.Second) {
		p.Duration = math.MaxInt64 // past what a Duration holds: ValidatePlan says it is too long
	}
	if p.Precision, err = engine.ParsePrecision(m.precision.Text); err != nil {
		return p, fmt.Errorf("%s: %w", strings.ToLower(app.PrecisionName), err)
	}
	if p.MaxOutputTokens, err = app.ReadWhole(m.MaxOut.Text, engine.MaxContextTokens, "tokens", "4096"); err != nil {
		return p, fmt.Errorf("max output tokens: %w", err)
	}
	p.API = engine.API(m.api.Selected)
	return p, nil
}

// matrixProblems is a plan's problems (or warnings) in the Matrix screen's
// words: "Max output tokens: must be at least 1 token".
func matrixProblems(problems []engine.PlanProblem) string {
	parts := make([]string, len(problems))
	for i, p := range problems {
		parts[i] = app.MatrixFields[p.Field] + ": " + p.Problem
	}
	return strings.Join(parts, "; ")
}

// Capacity is the chosen target's, as far as known.
func (m *Tab) Capacity() app.Capacity { return m.u.State.Target.Capacity }

// RefreshCapacity recomputes the estimate and greys the over-capacity cells.
func (m *Tab) RefreshCapacity() {
	if m.Applying {
		return
	}
	m.refreshCapacityLocked()
}

func (m *Tab) refreshCapacityLocked() {
	m.pushSLO()
	p, err := m.Plan()
	m.u.State.SetPlan(p, err)
	m.Banner.Hide()
	m.pushQuality(err == nil)
	if err != nil {
		m.Banner.Show(matrixNotice(err))
		m.Estimate.SetText("")
		return
	}
	c := m.Capacity()
	// Measure what the engine will measure: contexts fitted to the model.
	fitted := c.Fit(p)
	run, over := app.CellCounts(fitted, c)
	text := fmt.Sprintf("Estimated total: %s · %d prefill + %d decode cells", app.FormatAbout(measure.Estimate(p, c)), len(fitted.PrefillContexts), run)
	if over > 0 {
		text += fmt.Sprintf(" · %d over capacity", over)
	}
	m.Estimate.SetText(text + m.qualityEstimate())
	m.CapacityLine.SetText(capacityText(c, m.u.State.Target.Kind))
	appwidget.SetOptional(m.OverLine, overText(fitted, c))
	appwidget.SetOptional(m.Shrunk, shrunkText(c, p, fitted))
	ws := engine.PlanWarnings(p, c)
	if m.Preset.Selected == app.PresetQuick {
		// Short windows are what Quick is for, and its hint says so: it
		// does not warn against itself. Edited, the plan is Custom and does.
		ws = slices.DeleteFunc(ws, func(w engine.PlanProblem) bool { return w.Field == engine.FieldDuration })
	}
	appwidget.SetOptional(m.Warnings, warningText(ws))
	if !slices.Equal(m.lastContexts, fitted.DecodeContexts) || !slices.Equal(m.lastC, p.Concurrency) {
		m.Preview.SetAxes(fitted.DecodeContexts, p.Concurrency)
		m.lastContexts, m.lastC = fitted.DecodeContexts, p.Concurrency
	}
	for _, ctx := range fitted.DecodeContexts {
		for _, n := range p.Concurrency {
			m.Preview.SetPlanned(ctx, n, c.OverCapacity(ctx, n, p.MaxOutputTokens))
		}
	}
	m.Preview.Redraw()
}

// capacityText explains the limits the preview applies on a target of
// this kind: a launched server's KV cache is known once it is up, an
// endpoint's once a run has asked it (Detect lists only its models).
func capacityText(c app.Capacity, kind string) string {
	text := "KV capacity unknown until the server is up: the run checks it before each cell."
	if kind == app.TargetEndpoint {
		text = "KV capacity unknown until a run asks the server for it: the run checks it before each cell."
	}
	if c.KVCacheTokens > 0 {
		text = fmt.Sprintf("KV cache: %s tokens", report.Int(c.KVCacheTokens))
		if c.MaxNumSeqs > 0 {
			text += fmt.Sprintf(" · at most %d sequences at once", c.MaxNumSeqs)
		}
		text += "."
	}
	return text
}

// overText says why the grey cells of the fitted plan will not run: what
// the first cell over the KV cache needs, and how many requests the
// server runs at once; "" when no cell is grey.
func overText(fitted engine.Plan, c app.Capacity) string {
	var kv, seqs string
	for _, ctx := range fitted.DecodeContexts {
		for _, n := range fitted.Concurrency {
			switch c.Overflow(ctx, n, fitted.MaxOutputTokens) {
			case engine.OverKVCache:
				if kv == "" {
					kv = fmt.Sprintf("their requests need more KV cache than the server's %s tokens (at %s, %s × (%s context + %s output) = %s)",
						report.Int(c.KVCacheTokens), engine.ContextLabel(ctx), engine.Count(n, "request", "requests"),
						report.Int(ctx), report.Int(fitted.MaxOutputTokens), report.Int(n*(ctx+fitted.MaxOutputTokens)))
				}
			case engine.OverMaxSeqs:
				seqs = fmt.Sprintf("the server runs at most %s at once (max_num_seqs)", engine.Count(c.MaxNumSeqs, "request", "requests"))
			}
		}
	}
	var why []string
	for _, w := range []string{kv, seqs} {
		if w != "" {
			why = append(why, w)
		}
	}
	if len(why) == 0 {
		return ""
	}
	return "Grey cells will not run: " + strings.Join(why, "; ") + "."
}

// shrunkText says, when the server's model is shorter than the plan's
// contexts, what the run measures instead: "" when nothing is replaced.
func shrunkText(c app.Capacity, p, fitted engine.Plan) string {
	if slices.Equal(fitted.DecodeContexts, p.DecodeContexts) && slices.Equal(fitted.PrefillContexts, p.PrefillContexts) {
		return ""
	}
	return fmt.Sprintf("This server's model holds %s tokens, so the plan shrinks: with %s output tokens, contexts longer than %s are measured at %s. "+
		"The run measures decode at %s and prefill at %s.",
		report.Int(c.MaxModelLen), report.Int(p.MaxOutputTokens), engine.ContextLabel(slices.Max(fitted.DecodeContexts)),
		engine.ContextLabel(slices.Max(fitted.DecodeContexts)), contextList(fitted.DecodeContexts), contextList(fitted.PrefillContexts))
}

// contextList writes contexts as labels, "1K, 2K, 7K", or "none".
func contextList(contexts []int) string {
	if len(contexts) == 0 {
		return "none"
	}
	labels := make([]string, len(contexts))
	for i, c := range contexts {
		labels[i] = engine.ContextLabel(c)
	}
	return strings.Join(labels, ", ")
}

// warningText is the plan's warnings in the Matrix screen's words.
func warningText(ws []engine.PlanProblem) string {
	lines := make([]string, len(ws))
	for i, w := range ws {
		lines[i] = "⚠ " + matrixProblems([]engine.PlanProblem{w}) + "."
	}
	return strings.Join(lines, "\n")
}

// targetChanged re-derives a Quick plan for the new target and regreys
// the cells over its capacity.
func (m *Tab) targetChanged() {
	if m.Preset.Selected == app.PresetQuick {
		m.applyPlan(app.QuickPlan(m.Capacity()))
		return
	}
	m.RefreshCapacity()
}

// Settings is what the screen remembers.
func (m *Tab) Settings() planSettings {
	p, err := m.readMatrix()
	if err != nil {
		p = engine.DefaultPlan()
	}
	return planSettings{Preset: m.Preset.Selected, Plan: p, Load: m.Load.Settings(), Quality: m.Quality.Settings()}
}
