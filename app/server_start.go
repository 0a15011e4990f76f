package app

import (
	"os/exec"
	"path/filepath"
	"strings"

	"speedmatrix/engine/vllm"
)

// refreshStart enables Start when a server can be launched here and none is
// up; otherwise it says why not.
func (l *launchPanel) refreshStart() {
	why := startBlocker(l.s.u.hasGPU(), l.s.form.config(false), l.s.u.lookPath)
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

// startBlocker says why Start cannot launch cfg on this machine, or "":
// there is no NVIDIA GPU, or the program that runs the server (vllm, or
// docker for the Docker runner) cannot be found. look finds a program as
// exec.LookPath does.
func startBlocker(hasGPU bool, cfg vllm.ServerConfig, look func(string) (string, error)) string {
	if !hasGPU {
		return "Start needs an NVIDIA GPU, and none was found on this machine: benchmark an existing endpoint or the simulator instead."
	}
	if cfg.Runner == vllm.RunnerDocker {
		if _, err := look("docker"); err != nil {
			return "Start needs Docker, and docker is not on the PATH: install Docker, or choose the exec runner under How to run."
		}
		return ""
	}
	d := cfg.WithDefaults()
	exe, title, program := d.Executable, d.EngineTitle(), vllm.ServerConfig{Engine: d.Engine}.WithDefaults().Executable
	if _, err := look(exe); err != nil {
		if strings.ContainsRune(exe, filepath.Separator) {
			return "Start needs " + title + ", and " + exe + " is not a program: set Executable under How to run to the " + program +
				" of your environment (e.g. /path/to/venv/bin/" + program + ")."
		}
		return "Start needs " + title + ", and " + exe + " is not on the PATH: install it (" + d.InstallCommand() + "), or set Executable under How to run to its full path."
	}
	return ""
}

// lookPath finds a program on the PATH (deps.lookPath, else exec.LookPath).
func (u *ui) lookPath(file string) (string, error) {
	if u.deps.lookPath != nil {
		return u.deps.lookPath(file)
	}
	return exec.LookPath(file)
}
