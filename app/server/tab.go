package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/capture"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/secret"
	"speedmatrix/engine/servers"
	"speedmatrix/engine/sim"
	"speedmatrix/engine/simtarget"
)

// savedKind is a kind of target as settings saved before its name changed
// keep it: "Launch vLLM" became targetVLLM when SGLang could be launched too.
func savedKind(kind string) string {
	if kind == "Launch vLLM" {
		return app.TargetVLLM
	}
	return kind
}

// captureTimeout bounds reading how an endpoint's server was started when
// a run starts (docker may be slow to answer).
const captureTimeout = 5 * time.Second

// defaultSimProfile is the profile preselected without a GPU.
const defaultSimProfile = "tiny"

// Tab chooses what to benchmark: a vLLM server it launches, an
// existing endpoint, or the built-in simulator.
type Tab struct {
	u        *app.UI
	Runs     app.RunStarter // runs the sweep the compare form starts (connected by newUI)
	Kind     *widget.RadioGroup
	Banner   *appwidget.Banner  // problems of Detect, the simulator and the endpoint
	estimate *widget.Label      // how long the Matrix screen's plan takes here
	preview  *appwidget.Heatmap // its decode cells on this target
	// estimateLine is the estimate alone, for a window too narrow for the summary.
	estimateLine *widget.Label
	Panels       map[string]fyne.CanvasObject

	Form   *launchForm
	Launch *launchPanel

	Url, ApiKey    *widget.Entry
	Model          *widget.SelectEntry
	Exporters      *exporters // GPU metrics: DCGM exporters
	EndpointStatus *widget.Label
	// endpointCap is what the endpoint's server holds, as far as known:
	// its model length from Detect, its KV cache and sequences from a run.
	endpointCap   app.Capacity
	Started       *startedCard  // how the endpoint's server was started
	DetectAtStart bool          // --target URL: ask for its models at start
	Detected      chan struct{} // closed when the last detection is shown

	Profile      *appwidget.DropDown
	Speaks       *widget.RadioGroup // the engine the simulator speaks as
	profileInfo  *widget.Label
	profileFacts *fyne.Container
	simStop      func()
	simName      string // the running simulator's profile
	simSpeaks    string // and the engine it speaks as
	simTarget    measure.Subject
}

// New builds the Server screen.
func New(u *app.UI) (*Tab, *container.TabItem) {
	s := &Tab{u: u, Panels: map[string]fyne.CanvasObject{}, Banner: appwidget.NewBanner()}
	s.Form = NewLaunchForm(func() { s.Launch.onFormChange() })
	s.Form.Parallel.setGPUs(u.HwInfo.GPUs)
	s.Launch = newLaunchPanel(s)
	s.Panels[app.TargetVLLM] = s.Launch.Object()
	s.Panels[app.TargetEndpoint] = s.endpointPanel()
	s.Panels[app.TargetSim] = s.simPanel()
	stack := container.NewStack()
	for _, k := range []string{app.TargetVLLM, app.TargetEndpoint, app.TargetSim} {
		stack.Add(s.Panels[k])
	}
	s.Kind = widget.NewRadioGroup([]string{app.TargetVLLM, app.TargetEndpoint, app.TargetSim}, s.onKind)
	s.Kind.Horizontal = true
	s.Kind.Required = true

	var cfg launch.ServerConfig
	u.Prefs.Load(app.PrefServer, &cfg)
	s.Form.Fill(cfg)
	s.Launch.onFormChange() // fill does not report its edits
	s.Launch.loadModels()
	if u.HasGPU() {
		s.Launch.OnSuggest(false)
	} else if s.Launch.OnCPU() {
		s.Form.openSection(CpuSection) // its settings are the ones that matter here
	}

	header := appwidget.ScreenHeader("Server", "What to benchmark: a vLLM or SGLang server launched from here, a server already running, or the built-in simulator.")
	s.estimate = widget.NewLabel("")
	s.estimate.Wrapping = fyne.TextWrapWord
	s.estimateLine = widget.NewLabel("")
	s.estimateLine.Truncation = fyne.TextTruncateEllipsis
	s.preview = appwidget.NewHeatmap("will run")
	u.State.Watch(app.ChangeTarget|app.ChangePlan, s.showEstimate)
	u.State.Watch(app.ChangeRun, s.learnFromRun)
	u.State.Watch(app.ChangeRun, s.Launch.followRun)
	top := container.NewVBox(header, s.Kind, s.Banner.Object(), widget.NewSeparator())
	summary := widget.NewCard("On this target", "what a run of the Matrix screen's plan measures here",
		container.NewBorder(s.estimate, nil, nil, nil, s.preview.Object()))
	// Side by side in a wide window; the summary under the form in a narrow one.
	// A narrow window shows the estimate in one line under the choice of
	// target; a wide one the whole summary beside the form.
	body := appwidget.NewSide(1400, 0.4, func(wide bool) {
		if wide {
			s.estimateLine.Hide()
		} else {
			s.estimateLine.Show()
		}
	}, stack, summary)
	top.Add(s.estimateLine)
	content := container.NewPadded(container.NewBorder(top, nil, nil, nil, body))
	return s, container.NewTabItemWithIcon(app.TabServer, theme.StorageIcon(), content)
}

// ApplyTarget selects the target from --target, else the remembered one,
// else a launched server where one can run (a GPU, or vLLM's CPU build),
// else the simulator.
func (s *Tab) ApplyTarget(opt string) {
	var saved app.TargetSettings
	s.u.Prefs.Load(app.PrefTarget, &saved)
	s.Url.SetText(saved.URL)
	s.Model.SetText(saved.Model)
	s.Exporters.Field.SetText(saved.GPUMetrics)
	s.Speaks.SetSelected(speaksLabel(saved.SimMode))
	if saved.Profile != "" {
		s.Profile.SetSelected(saved.Profile)
	}
	kind := savedKind(saved.Kind)
	switch {
	case strings.HasPrefix(opt, "sim:"):
		kind = app.TargetSim
		s.Profile.SetSelected(strings.TrimPrefix(opt, "sim:"))
	case opt != "":
		kind = app.TargetEndpoint
		s.Url.SetText(opt)
		s.Model.SetText("")
		s.DetectAtStart = true // fill in the model and its length once the app runs
	case kind == "" || (kind == app.TargetVLLM && !s.canLaunch()):
		kind = app.TargetVLLM
		if !s.canLaunch() {
			kind = app.TargetSim
		}
	}
	if s.Profile.Selected == "" {
		s.Profile.SetSelected(defaultSimProfile)
	}
	s.SelectKind(kind)
}

// canLaunch reports whether the Launch form's server can run here: on a
// GPU, or on the CPU (vLLM's CPU build, see launchOnCPU).
func (s *Tab) canLaunch() bool {
	return s.u.HasGPU() || s.u.LaunchOnCPU(s.Form.Config(false))
}

// SelectKind shows one kind of target.
func (s *Tab) SelectKind(kind string) {
	s.Kind.SetSelected(kind)
	s.onKind(kind)
}

// showEstimate says how long the plan takes on the chosen target.
func (s *Tab) showEstimate() {
	st := s.u.State
	if st.PlanErr != nil {
		s.estimate.SetText("The plan on the Matrix screen has a problem: fix it there.")
		s.estimateLine.SetText(s.estimate.Text)
		s.preview.SetAxes(nil, nil)
		return
	}
	fitted := st.Fitted()
	run, _ := app.CellCounts(fitted, st.Target.Capacity)
	text := fmt.Sprintf("%d prefill + %d decode cells, %s.", len(fitted.PrefillContexts), run, app.FormatAbout(measure.Estimate(st.Plan, st.Target.Capacity)))
	if c := st.Target.Capacity; c.MaxModelLen > 0 {
		text += fmt.Sprintf(" Contexts up to %s (the model holds %s tokens).", engine.ContextLabel(slices.Max(append(fitted.DecodeContexts, fitted.PrefillContexts...))), report.Int(c.MaxModelLen))
	} else {
		text += " The model's length is not known yet: detect or start the server to fit the plan to it."
	}
	s.estimate.SetText(text)
	s.estimateLine.SetText("On this target: " + text)
	appwidget.PreviewPlan(s.preview, fitted, st.Target.Capacity)
	s.preview.Redraw()
}

func (s *Tab) onKind(kind string) {
	s.Banner.Hide()
	for k, p := range s.Panels {
		if k == kind {
			p.Show()
		} else {
			p.Hide()
		}
	}
	s.serveChosenSim()
	s.publishSimulator()
	s.publish()
}

// publish tells every screen what the chosen target is now.
func (s *Tab) publish() {
	if s.Kind == nil {
		return // still being built
	}
	s.PollTelemetry() // the new target's telemetry, not the last one's
	s.u.State.SetTarget(app.TargetInfo{
		Kind:        s.Kind.Selected,
		Description: s.Description(),
		Simulated:   s.Kind.Selected == app.TargetSim || (s.Kind.Selected == app.TargetVLLM && s.Launch.standIn()),
		OnCPU:       s.Kind.Selected == app.TargetVLLM && s.Launch.OnCPU(),
		Capacity:    s.Capacity(),
		NotReady:    s.notReady(),
	})
}

// notReady says in one line why a run cannot start on the chosen target
// now; "" when it can.
func (s *Tab) notReady() string {
	switch s.Kind.Selected {
	case app.TargetVLLM:
		return s.Launch.notReady()
	case app.TargetEndpoint:
		if err := checkURL(strings.TrimSpace(s.Url.Text)); err != nil {
			return "the endpoint " + err.Error() + " on the Server screen."
		}
	}
	return ""
}

// Capacity is what the chosen target can hold, when known.
func (s *Tab) Capacity() app.Capacity {
	switch s.Kind.Selected {
	case app.TargetSim:
		p, _ := s.simProfile()
		return app.Capacity{KVCacheTokens: p.KVCacheTokens, MaxNumSeqs: p.MaxNumSeqs, MaxModelLen: p.MaxModelLen}
	case app.TargetEndpoint:
		return s.endpointCap
	}
	return s.Launch.Capacity()
}

// Description names the chosen target for the Run screen.
func (s *Tab) Description() string {
	switch s.Kind.Selected {
	case app.TargetSim:
		if mode := s.simMode(); mode != sim.ModeVLLM {
			e, _ := servers.BySimMode(mode)
			return "simulated " + e.Title + " (profile " + s.Profile.Selected + ")"
		}
		return "simulated (profile " + s.Profile.Selected + ")"
	case app.TargetEndpoint:
		return secret.URL(s.Url.Text)
	}
	switch {
	case s.Launch.standIn():
		return "simulated (Speed Matrix's stand-in for vLLM): " + s.Form.Model.Text
	case s.Launch.OnCPU():
		return "vLLM on the CPU: " + s.Form.Model.Text
	}
	return "vLLM: " + s.Form.Model.Text
}

// answerLaunchForm gives the sweep job resumes the Launch form as it is:
// the server.toml it would write now, and its secrets.
func (s *Tab) FillLaunchForm(job *app.SweepJob) {
	job.Secrets = s.Form.Config(true)
	job.Base, job.FormErr = launch.EncodeConfig(s.Form.Config(false))
}

// ReadyTarget is the target a run measures now (targetSource).
func (s *Tab) ReadyTarget() (measure.Subject, error) { return s.Target() }

// ChooseKind offers this kind of target (targetSource).
func (s *Tab) ChooseKind(kind string) { s.SelectKind(kind) }

// Target is what a run measures (a simulator not started yet starts here).
func (s *Tab) Target() (measure.Subject, error) {
	var t measure.Subject
	switch s.Kind.Selected {
	case app.TargetSim:
		return s.startSim()
	case app.TargetEndpoint:
		base := strings.TrimSpace(s.Url.Text)
		if err := checkURL(base); err != nil {
			return t, fmt.Errorf("endpoint: %w (Server screen)", err)
		}
		t = measure.Subject{Target: measure.Target{BaseURL: base, APIKey: s.ApiKey.Text, Model: strings.TrimSpace(s.Model.Text)}}
		t.Header.Hardware = s.endpointHardware(base)
		// Read again at the start: the server may have been restarted since Detect.
		ctx, cancel := context.WithTimeout(context.Background(), captureTimeout)
		defer cancel()
		proc := s.u.Deps.Capture.Capture(ctx, base)
		capture.Header(&t.Header, proc)
		s.Started.Show(proc, s.u.Deps.Now(), app.UserHome()) // what the run records
		err := s.Exporters.attach(&t, s.u.State.Settings.Interval())
		if t.Telemetry == nil {
			// Without exporters naming its GPUs, a simulator at the
			// endpoint (speedmatrix sim) is described by its profile's rig.
			simtarget.Recognize(&t)
		}
		return t, err
	case app.TargetVLLM:
		return s.Launch.Target()
	}
	return t, errors.New("no target chosen: pick one on the Server screen")
}

// endpointHardware is this machine's hardware for a local endpoint; a remote
// one's hardware is unknown here (its DCGM exporters may add its GPUs):
// this machine's is not the server's.
func (s *Tab) endpointHardware(base string) engine.HardwareInfo {
	u, err := url.Parse(base)
	if err == nil && capture.IsLocal(context.Background(), u.Hostname()) {
		h := s.u.HwInfo
		h.Whose = engine.HardwareOfServer
		return h
	}
	return engine.HardwareInfo{Whose: engine.HardwareOfRemote, Note: "remote endpoint: its hardware is not detected from here"}
}

// ServerUp reports whether a vLLM server launched here is running.
func (s *Tab) ServerUp() bool { return s.Launch.Up() }

// StopAll stops the simulator and a launched server, waiting for both.
func (s *Tab) StopAll() {
	s.stopSim()
	s.Exporters.end()
	s.Form.Parallel.GpuMetrics.end()
	s.Launch.stopAndWait()
}

// Settings is what the screen remembers: never the API keys, nor the
// password of the URL (it comes back as <redacted>, to be typed again).
func (s *Tab) Settings() app.TargetSettings {
	return app.TargetSettings{Kind: s.Kind.Selected, URL: secret.URL(s.Url.Text), Model: s.Model.Text, Profile: s.Profile.Selected,
		SimMode: s.simMode(), GPUMetrics: s.Exporters.saved()}
}
