package shell

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

// serverTab chooses what to benchmark: a vLLM server it launches, an
// existing endpoint, or the built-in simulator.
type serverTab struct {
	u        *app.UI
	runs     runStarter // runs the sweep the compare form starts (connected by newUI)
	kind     *widget.RadioGroup
	banner   *appwidget.Banner  // problems of Detect, the simulator and the endpoint
	estimate *widget.Label      // how long the Matrix screen's plan takes here
	preview  *appwidget.Heatmap // its decode cells on this target
	// estimateLine is the estimate alone, for a window too narrow for the summary.
	estimateLine *widget.Label
	panels       map[string]fyne.CanvasObject

	form   *launchForm
	launch *launchPanel

	url, apiKey    *widget.Entry
	model          *widget.SelectEntry
	exporters      *exporters // GPU metrics: DCGM exporters
	endpointStatus *widget.Label
	// endpointCap is what the endpoint's server holds, as far as known:
	// its model length from Detect, its KV cache and sequences from a run.
	endpointCap   app.Capacity
	started       *startedCard  // how the endpoint's server was started
	detectAtStart bool          // --target URL: ask for its models at start
	detected      chan struct{} // closed when the last detection is shown

	profile      *appwidget.DropDown
	speaks       *widget.RadioGroup // the engine the simulator speaks as
	profileInfo  *widget.Label
	profileFacts *fyne.Container
	simStop      func()
	simName      string // the running simulator's profile
	simSpeaks    string // and the engine it speaks as
	simTarget    measure.Subject
}

// newServerTab builds the Server screen.
func newServerTab(u *app.UI) (*serverTab, *container.TabItem) {
	s := &serverTab{u: u, panels: map[string]fyne.CanvasObject{}, banner: appwidget.NewBanner()}
	s.form = newLaunchForm(func() { s.launch.onFormChange() })
	s.form.parallel.setGPUs(u.HwInfo.GPUs)
	s.launch = newLaunchPanel(s)
	s.panels[app.TargetVLLM] = s.launch.Object()
	s.panels[app.TargetEndpoint] = s.endpointPanel()
	s.panels[app.TargetSim] = s.simPanel()
	stack := container.NewStack()
	for _, k := range []string{app.TargetVLLM, app.TargetEndpoint, app.TargetSim} {
		stack.Add(s.panels[k])
	}
	s.kind = widget.NewRadioGroup([]string{app.TargetVLLM, app.TargetEndpoint, app.TargetSim}, s.onKind)
	s.kind.Horizontal = true
	s.kind.Required = true

	var cfg launch.ServerConfig
	u.Prefs.Load(app.PrefServer, &cfg)
	s.form.fill(cfg)
	s.launch.onFormChange() // fill does not report its edits
	s.launch.loadModels()
	if u.HasGPU() {
		s.launch.onSuggest(false)
	} else if s.launch.onCPU() {
		s.form.openSection(cpuSection) // its settings are the ones that matter here
	}

	header := appwidget.ScreenHeader("Server", "What to benchmark: a vLLM or SGLang server launched from here, a server already running, or the built-in simulator.")
	s.estimate = widget.NewLabel("")
	s.estimate.Wrapping = fyne.TextWrapWord
	s.estimateLine = widget.NewLabel("")
	s.estimateLine.Truncation = fyne.TextTruncateEllipsis
	s.preview = appwidget.NewHeatmap("will run")
	u.State.Watch(app.ChangeTarget|app.ChangePlan, s.showEstimate)
	u.State.Watch(app.ChangeRun, s.learnFromRun)
	u.State.Watch(app.ChangeRun, s.launch.followRun)
	top := container.NewVBox(header, s.kind, s.banner.Object(), widget.NewSeparator())
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

// applyTarget selects the target from --target, else the remembered one,
// else a launched server where one can run (a GPU, or vLLM's CPU build),
// else the simulator.
func (s *serverTab) applyTarget(opt string) {
	var saved app.TargetSettings
	s.u.Prefs.Load(app.PrefTarget, &saved)
	s.url.SetText(saved.URL)
	s.model.SetText(saved.Model)
	s.exporters.field.SetText(saved.GPUMetrics)
	s.speaks.SetSelected(speaksLabel(saved.SimEngine))
	if saved.Profile != "" {
		s.profile.SetSelected(saved.Profile)
	}
	kind := savedKind(saved.Kind)
	switch {
	case strings.HasPrefix(opt, "sim:"):
		kind = app.TargetSim
		s.profile.SetSelected(strings.TrimPrefix(opt, "sim:"))
	case opt != "":
		kind = app.TargetEndpoint
		s.url.SetText(opt)
		s.model.SetText("")
		s.detectAtStart = true // fill in the model and its length once the app runs
	case kind == "" || (kind == app.TargetVLLM && !s.canLaunch()):
		kind = app.TargetVLLM
		if !s.canLaunch() {
			kind = app.TargetSim
		}
	}
	if s.profile.Selected == "" {
		s.profile.SetSelected(defaultSimProfile)
	}
	s.selectKind(kind)
}

// canLaunch reports whether the Launch form's server can run here: on a
// GPU, or on the CPU (vLLM's CPU build, see launchOnCPU).
func (s *serverTab) canLaunch() bool {
	return s.u.HasGPU() || s.u.LaunchOnCPU(s.form.config(false))
}

// selectKind shows one kind of target.
func (s *serverTab) selectKind(kind string) {
	s.kind.SetSelected(kind)
	s.onKind(kind)
}

// showEstimate says how long the plan takes on the chosen target.
func (s *serverTab) showEstimate() {
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
	previewPlan(s.preview, fitted, st.Target.Capacity)
	s.preview.Redraw()
}

func (s *serverTab) onKind(kind string) {
	s.banner.Hide()
	for k, p := range s.panels {
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
func (s *serverTab) publish() {
	if s.kind == nil {
		return // still being built
	}
	s.pollTelemetry() // the new target's telemetry, not the last one's
	s.u.State.SetTarget(app.TargetInfo{
		Kind:        s.kind.Selected,
		Description: s.description(),
		Simulated:   s.kind.Selected == app.TargetSim || (s.kind.Selected == app.TargetVLLM && s.launch.standIn()),
		OnCPU:       s.kind.Selected == app.TargetVLLM && s.launch.onCPU(),
		Capacity:    s.capacity(),
		NotReady:    s.notReady(),
	})
}

// notReady says in one line why a run cannot start on the chosen target
// now; "" when it can.
func (s *serverTab) notReady() string {
	switch s.kind.Selected {
	case app.TargetVLLM:
		return s.launch.notReady()
	case app.TargetEndpoint:
		if err := checkURL(strings.TrimSpace(s.url.Text)); err != nil {
			return "the endpoint " + err.Error() + " on the Server screen."
		}
	}
	return ""
}

// capacity is what the chosen target can hold, when known.
func (s *serverTab) capacity() app.Capacity {
	switch s.kind.Selected {
	case app.TargetSim:
		p, _ := s.simProfile()
		return app.Capacity{KVCacheTokens: p.KVCacheTokens, MaxNumSeqs: p.MaxNumSeqs, MaxModelLen: p.MaxModelLen}
	case app.TargetEndpoint:
		return s.endpointCap
	}
	return s.launch.capacity()
}

// description names the chosen target for the Run screen.
func (s *serverTab) description() string {
	switch s.kind.Selected {
	case app.TargetSim:
		if s.simEngine() == sim.EngineSGLang {
			return "simulated SGLang (profile " + s.profile.Selected + ")"
		}
		return "simulated (profile " + s.profile.Selected + ")"
	case app.TargetEndpoint:
		return secret.URL(s.url.Text)
	}
	switch {
	case s.launch.standIn():
		return "simulated (Speed Matrix's stand-in for vLLM): " + s.form.model.Text
	case s.launch.onCPU():
		return "vLLM on the CPU: " + s.form.model.Text
	}
	return "vLLM: " + s.form.model.Text
}

// answerLaunchForm gives the sweep job resumes the Launch form as it is:
// the server.toml it would write now, and its secrets.
func (s *serverTab) fillLaunchForm(job *sweepJob) {
	job.secrets = s.form.config(true)
	job.base, job.formErr = launch.EncodeConfig(s.form.config(false))
}

// readyTarget is the target a run measures now (targetSource).
func (s *serverTab) readyTarget() (measure.Subject, error) { return s.target() }

// ChooseKind offers this kind of target (targetSource).
func (s *serverTab) ChooseKind(kind string) { s.selectKind(kind) }

// target is what a run measures (a simulator not started yet starts here).
func (s *serverTab) target() (measure.Subject, error) {
	var t measure.Subject
	switch s.kind.Selected {
	case app.TargetSim:
		return s.startSim()
	case app.TargetEndpoint:
		base := strings.TrimSpace(s.url.Text)
		if err := checkURL(base); err != nil {
			return t, fmt.Errorf("endpoint: %w (Server screen)", err)
		}
		t = measure.Subject{Target: measure.Target{BaseURL: base, APIKey: s.apiKey.Text, Model: strings.TrimSpace(s.model.Text)}}
		t.Header.Hardware = s.endpointHardware(base)
		// Read again at the start: the server may have been restarted since Detect.
		ctx, cancel := context.WithTimeout(context.Background(), captureTimeout)
		defer cancel()
		proc := s.u.Deps.Capture.Capture(ctx, base)
		capture.Header(&t.Header, proc)
		s.started.Show(proc, s.u.Deps.Now(), userHome()) // what the run records
		err := s.exporters.attach(&t, s.u.State.Settings.Interval())
		if t.Telemetry == nil {
			// Without exporters naming its GPUs, a simulator at the
			// endpoint (speedmatrix sim) is described by its profile's rig.
			simtarget.Recognize(&t)
		}
		return t, err
	case app.TargetVLLM:
		return s.launch.target()
	}
	return t, errors.New("no target chosen: pick one on the Server screen")
}

// endpointHardware is this machine's hardware for a local endpoint; a remote
// one's hardware is unknown here (its DCGM exporters may add its GPUs):
// this machine's is not the server's.
func (s *serverTab) endpointHardware(base string) engine.HardwareInfo {
	u, err := url.Parse(base)
	if err == nil && capture.IsLocal(context.Background(), u.Hostname()) {
		h := s.u.HwInfo
		h.Whose = engine.HardwareOfServer
		return h
	}
	return engine.HardwareInfo{Whose: engine.HardwareOfRemote, Note: "remote endpoint: its hardware is not detected from here"}
}

// serverUp reports whether a vLLM server launched here is running.
func (s *serverTab) serverUp() bool { return s.launch.up() }

// stopAll stops the simulator and a launched server, waiting for both.
func (s *serverTab) stopAll() {
	s.stopSim()
	s.exporters.end()
	s.form.parallel.gpuMetrics.end()
	s.launch.stopAndWait()
}

// settings is what the screen remembers: never the API keys, nor the
// password of the URL (it comes back as <redacted>, to be typed again).
func (s *serverTab) settings() app.TargetSettings {
	return app.TargetSettings{Kind: s.kind.Selected, URL: secret.URL(s.url.Text), Model: s.model.Text, Profile: s.profile.Selected,
		SimEngine: s.simEngine(), GPUMetrics: s.exporters.saved()}
}
