package server

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine/hfcache"
	"speedmatrix/engine/launch"
)

// onFormChange shows the command for the form as it is now.
func (l *launchPanel) onFormChange() {
	if l.Command == nil {
		return
	}
	l.s.publish()
	l.refreshStart()
	cfg, build, isBuild := l.s.u.LaunchDevice(l.s.Form.Config(true))
	cfg = cfg.WithDefaults()
	appwidget.SetOptional(l.Everywhere, everywhereText(cfg))
	if p := l.s.Form.Problems(); len(p) > 0 {
		l.Notes.SetText(strings.Join(p, "\n"))
	} else if w := launch.MixedGPUs(cfg, l.s.u.HwInfo.GPUs); w != "" && !cfg.OnCPU() {
		l.Notes.SetText("Warning: " + w + ". Tick identical GPUs under GPU memory and parallelism.")
	} else if isBuild {
		l.Notes.SetText(cpuBuildNote + build.String() + ": the server runs on the CPU (Device under CPU).")
	} else if l.s.u.LaunchStandIn(cfg) {
		l.Notes.SetText(StandInNote)
	} else if strings.HasPrefix(l.Notes.Text, cpuBuildNote) || l.Notes.Text == StandInNote {
		l.Notes.SetText("")
	}
	if cfg.Model != l.lastModel && slices.Contains(l.localModels, cfg.Model) && l.s.u.HasGPU() {
		// A model from the cache brings its config.json: fill what is still empty.
		l.lastModel = cfg.Model
		l.OnSuggest(false)
	}
	if cfg.Model == "" {
		l.Command.SetText("Choose a model to see the command.")
		return
	}
	if cfg.APIKey == "" {
		// Start generates a key when none is given; show where it goes.
		cfg.APIKey = "generated-at-start"
	}
	l.Command.SetText(launch.Display(cfg))
}

// everywhereText warns, in the Server screen's words, that the server
// would listen on every interface; "" when it would not.
func everywhereText(cfg launch.ServerConfig) string {
	if w := launch.ListensEverywhere(cfg); w != "" {
		return "⚠ " + app.Upper(w) + ". Type 127.0.0.1 in Host to keep it to this machine."
	}
	return ""
}

// StandInNote says that Executable is Speed Matrix's stand-in for vLLM.
const StandInNote = "Executable is Speed Matrix's stand-in for vLLM: its simulator serves, on no GPU or CPU of this machine, and every figure is simulated."

// cpuBuildNote starts the note that Executable is vLLM's CPU build.
const cpuBuildNote = "Executable runs "

// loadModels fills the model picker from the local Hugging Face cache.
func (l *launchPanel) loadModels() {
	cat := l.s.u.Deps.Models
	if cat == nil {
		return
	}
	go func() {
		models, err := cat.LocalModels()
		l.s.u.Do(func() {
			if err != nil {
				l.Notes.SetText(fmt.Sprintf("Could not list the local Hugging Face cache: %v. Type a model id instead.", err))
				return
			}
			ids := make([]string, len(models))
			for i, m := range models {
				ids[i] = m.ID
			}
			l.localModels = ids
			l.s.Form.Model.SetOptions(ids)
			if len(ids) == 0 {
				l.Notes.SetText("No model in the local Hugging Face cache (" + hfcache.HubDir() + "): type a Hugging Face id; vLLM downloads it at start.")
			}
		})
	}()
}

// OnSuggest fills tensor-parallel size, memory utilization and max length
// from the hardware and the model's config; overwrite replaces set values.
func (l *launchPanel) OnSuggest(overwrite bool) {
	cat := l.s.u.Deps.Models
	if cat == nil {
		l.Notes.SetText("Suggestions are not available in this build.")
		return
	}
	f := l.s.Form
	h := l.s.u.HwInfo
	h.GPUs = f.Parallel.picked(h.GPUs) // the GPUs picked for vLLM, when some are
	sug := cat.Suggest(h, strings.TrimSpace(f.Model.Text))
	set := func(e *widget.Entry, v string) {
		if v != "" && v != "0" && (overwrite || strings.TrimSpace(e.Text) == "") {
			e.SetText(v)
		}
	}
	set(f.MaxModelLen, strconv.Itoa(sug.MaxModelLen))
	if why := noSizing(l.s.u.HasGPU(), l.OnCPU()); why != "" {
		appwidget.SetOptional(l.Suggested, why)
		return
	}
	set(f.Tp, strconv.Itoa(sug.TensorParallelSize))
	if sug.GPUMemoryUtilization > 0 {
		set(f.GpuUtil, strconv.FormatFloat(sug.GPUMemoryUtilization, 'f', -1, 64))
	}
	appwidget.SetOptional(l.Suggested, "Suggested: "+strings.Join(sug.Notes, "; ")+".")
}

// noSizing says, in one line, why Suggest from hardware has no GPU to size
// the server to, and what to do instead; "" when it has.
func noSizing(hasGPU, onCPU bool) string {
	switch {
	case onCPU:
		return "The server runs on the CPU (vLLM's CPU build): there is no GPU to size it to; its KV cache is set under CPU."
	case !hasGPU:
		return "No NVIDIA GPU was found on this machine, so there is nothing to size the server to: set Tensor parallel and GPU memory utilization by hand, or run vLLM's CPU build (under CPU)."
	}
	return ""
}
