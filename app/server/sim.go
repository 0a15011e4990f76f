package server

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/servers"
	"speedmatrix/engine/sim"
)

// simPanel picks a simulator profile.
func (s *Tab) simPanel() fyne.CanvasObject {
	var names []string
	for _, p := range s.u.Deps.Sim.Profiles() {
		names = append(names, p.Name)
	}
	s.profileInfo = widget.NewLabel("")
	s.profileInfo.Wrapping = fyne.TextWrapWord
	s.profileFacts = container.NewStack()
	s.Profile = appwidget.NewDropDown(names, func(string) { s.onProfile() })
	s.Speaks = widget.NewRadioGroup(speaksChoices(), nil)
	s.Speaks.Horizontal = true
	s.Speaks.Required = true
	s.Speaks.SetSelected(speaksVLLM)
	s.Speaks.OnChanged = func(string) { s.serveChosenSim(); s.publish() }
	note := widget.NewLabelWithStyle("The simulator is a vLLM- or SGLang-compatible server inside this app with a performance model fitted to real runs. "+
		"Every number it produces is labelled simulated on the Run and Results screens and in every export.", fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
	note.Wrapping = fyne.TextWrapWord
	card := widget.NewCard("Simulator", "try the whole app without a GPU",
		container.NewVBox(widget.NewForm(widget.NewFormItem("Profile", s.Profile), widget.NewFormItem("Speaks as", s.Speaks)), s.profileInfo, s.profileFacts))
	return container.NewVBox(card, note)
}

func (s *Tab) onProfile() {
	p, ok := s.simProfile()
	if !ok {
		return
	}
	s.profileInfo.SetText(appwidget.Sentence(p.Description))
	s.profileFacts.Objects = []fyne.CanvasObject{appwidget.KeyValues(
		[2]string{"Model", p.Model},
		[2]string{"GPU it models", p.GPUName},
		[2]string{"KV cache", report.Int(p.KVCacheTokens) + " tokens"},
		[2]string{"Max sequences", report.Int(p.MaxNumSeqs)},
		[2]string{"Max model length", report.Int(p.MaxModelLen) + " tokens"},
	)}
	s.profileFacts.Refresh()
	s.serveChosenSim()
	s.publish()
}

// serveChosenSim starts the chosen profile's simulator once it is chosen,
// as a server is up before it is measured: a run then starts against a
// server that already holds its KV cache model (16 MB for the largest
// profile) rather than growing the app by it. Never while a run goes on:
// that would stop the server it measures. A failure to start is shown when
// a run asks for the target.
func (s *Tab) serveChosenSim() {
	if s.Kind == nil || s.Kind.Selected != app.TargetSim || s.Profile.Selected == "" || s.u.State.Run.Running {
		return
	}
	_, _ = s.startSim()
}

func (s *Tab) simProfile() (sim.Profile, bool) {
	for _, p := range s.u.Deps.Sim.Profiles() {
		if p.Name == s.Profile.Selected {
			return p, true
		}
	}
	return sim.Profile{}, false
}

// The choices of the simulator's "Speaks as" that the tests pick.
const (
	speaksVLLM   = servers.VLLMTitle
	SpeaksSGLang = servers.SGLangTitle
)

// speaksChoices are the choices of the simulator's "Speaks as": the titles
// of the engines it speaks as (servers.SimModes).
func speaksChoices() []string {
	var titles []string
	for _, mode := range servers.SimModes() {
		e, _ := servers.BySimMode(mode)
		titles = append(titles, e.Title)
	}
	return titles
}

// simMode is the mode the simulator is to speak as (sim.ModeVLLM,
// sim.ModeSGLang).
func (s *Tab) simMode() string {
	for _, mode := range servers.SimModes() {
		if e, _ := servers.BySimMode(mode); s.Speaks != nil && s.Speaks.Selected == e.Title {
			return mode
		}
	}
	return sim.ModeVLLM
}

// speaksLabel is the "Speaks as" choice of a saved mode.
func speaksLabel(mode string) string {
	if e, err := servers.BySimMode(mode); err == nil {
		return e.Title
	}
	return speaksVLLM
}

// startSim serves the chosen profile as the chosen engine, reusing a
// running one.
func (s *Tab) startSim() (measure.Subject, error) {
	name, speaks := s.Profile.Selected, s.simMode()
	if s.simStop != nil && s.simName == name && s.simSpeaks == speaks {
		return s.simTarget, nil
	}
	defer s.publishSimulator() // stopped, then started or failed
	s.stopSim()
	t, stop, err := s.u.Deps.Sim.Start(name, speaks)
	if err != nil {
		return t, fmt.Errorf("start the simulator: %w", err)
	}
	host := s.u.HwInfo
	t.Header.Hardware.CPU, t.Header.Hardware.CPUCores = host.CPU, host.CPUCores
	t.Header.Hardware.RAMBytes, t.Header.Hardware.OS, t.Header.Hardware.Kernel = host.RAMBytes, host.OS, host.Kernel
	s.simStop, s.simName, s.simSpeaks, s.simTarget = stop, name, speaks, t
	return t, nil
}

// publishSimulator tells every screen the running simulator's Hardware
// section while it is the chosen target.
func (s *Tab) publishSimulator() {
	if s.Kind == nil || s.Kind.Selected != app.TargetSim || s.simStop == nil {
		s.u.State.SetSimulator(engine.HardwareInfo{}, false)
		return
	}
	s.u.State.SetSimulator(s.simTarget.Header.Hardware, true)
}

func (s *Tab) stopSim() {
	if s.simStop != nil {
		s.simStop()
		s.simStop, s.simName, s.simSpeaks = nil, "", ""
	}
}
