package app

import (
	"os/exec"
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

// launchOnCPU reports whether Start would run cfg on the CPU, as
// launch.ResolveDevice decides at launch: Device CPU, a CPU setting, or an
// Executable whose venv holds vLLM's CPU build.
func (u *ui) launchOnCPU(cfg launch.ServerConfig) bool {
	c, _, _ := u.launchDevice(cfg)
	return c.OnCPU()
}

// launchDevice is cfg with its device decided as Start will decide it
// (launch.ResolveDevice, with its program found through lookPath), and the
// CPU build of vLLM it runs on the CPU, when it runs one.
func (u *ui) launchDevice(cfg launch.ServerConfig) (launch.ServerConfig, launch.CPUBuild, bool) {
	d := cfg.WithDefaults()
	if d.Runner != launch.RunnerDocker {
		if p, err := u.lookPath(d.Executable); err == nil {
			d.Executable = p
		}
	}
	r, b, ok := launch.ResolveDevice(d)
	cfg.Device = r.Device
	return cfg, b, ok
}

// savedCPUBuild is the CPU build of vLLM that the Launch form's saved
// Executable (vllm on the PATH when none was saved) runs on the CPU, when
// it runs one.
func (u *ui) savedCPUBuild() (launch.CPUBuild, bool) {
	var cfg launch.ServerConfig
	u.prefs.load(prefServer, &cfg)
	_, b, ok := u.launchDevice(cfg)
	return b, ok
}

// lookPath finds a program on the PATH (deps.lookPath, else exec.LookPath).
func (u *ui) lookPath(file string) (string, error) {
	if u.deps.lookPath != nil {
		return u.deps.lookPath(file)
	}
	return exec.LookPath(file)
}
