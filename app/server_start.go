package app

import (
	"path/filepath"
	"strings"

	"speedmatrix/engine/launch"
	"speedmatrix/engine/servers"
)

// refreshStart enables Start when a server can be launched here and none is
// up; otherwise it says why not.
func (l *launchPanel) refreshStart() {
	cfg := l.s.form.config(false)
	why := startBlocker(l.s.u.hasGPU(), l.s.u.launchOnCPU(cfg), cfg, l.s.u.lookPath)
	l.why.SetText(why)
	switch {
	case why != "":
		l.why.Show()
		l.start.Disable()
	case l.up():
		l.why.Hide()
		l.start.Disable()
	default:
		l.why.Hide()
		l.start.Enable()
	}
}

// startBlocker says why Start cannot launch cfg on this machine, or "": the
// program that runs the server (vllm, or docker for the Docker runner)
// cannot be found, or there is no NVIDIA GPU and the server would not run
// on the CPU (onCPU: vLLM's CPU build, see launchOnCPU). look finds a
// program as exec.LookPath does.
func startBlocker(hasGPU, onCPU bool, cfg launch.ServerConfig, look func(string) (string, error)) string {
	d := cfg.WithDefaults()
	if cfg.Runner == launch.RunnerDocker {
		if _, err := look("docker"); err != nil {
			return "Start needs Docker, and docker is not on the PATH: install Docker, or choose the exec runner under How to run."
		}
	} else {
		exe, title, program := d.Executable, d.EngineTitle(), launch.ServerConfig{Engine: d.Engine}.WithDefaults().Executable
		if _, err := look(exe); err != nil {
			if strings.ContainsRune(exe, filepath.Separator) {
				return "Start needs " + title + ", and " + exe + " is not a program: set Executable under How to run to the " + program +
					" of your environment (e.g. /path/to/venv/bin/" + program + ")."
			}
			return "Start needs " + title + ", and " + exe + " is not on the PATH: install it (" + d.InstallCommand() + "), or set Executable under How to run to its full path."
		}
	}
	switch {
	case hasGPU || onCPU:
		return ""
	case d.Engine != servers.VLLM:
		return "Start needs an NVIDIA GPU for " + d.EngineTitle() + ", and none was found on this machine: benchmark an existing endpoint or the simulator instead."
	case d.Device == launch.DeviceGPU:
		return "Start needs an NVIDIA GPU (Device is GPU under CPU), and none was found on this machine: set Device to Detect or CPU to serve with vLLM's CPU build, or benchmark an existing endpoint or the simulator instead."
	}
	return "Start needs an NVIDIA GPU or vLLM's CPU build, and this machine has no GPU and Executable is not a CPU build: set Executable under How to run to the vllm of a venv with vLLM's CPU build (or Device under CPU to CPU), or benchmark an existing endpoint or the simulator instead."
}
