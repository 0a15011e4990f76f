package server

import (
	"path/filepath"
	"strings"

	"speedmatrix/engine/launch"
	"speedmatrix/engine/servers"
)

// refreshStart enables Start when a server can be launched here and none is
// up; otherwise it says why not, beside it. Compare settings… starts
// servers too: it is off whenever Start is blocked, and while a run goes on.
func (l *launchPanel) refreshStart() {
	why := l.Blocker()
	if l.s.u.State.Run.Sweep {
		why = blocked{"A sweep is running", "it starts the server of each configuration itself (Run screen); Start server is back when it ends."}
	}
	l.Why.SetText(why.String())
	if l.s.u.State.Run.Running || why.Problem != "" {
		l.CompareBtn.Disable()
	} else {
		l.CompareBtn.Enable()
	}
	switch {
	case why.Problem != "":
		l.Why.Show()
		l.Start.Disable()
	case l.Up():
		l.Why.Hide()
		l.Start.Disable()
	default:
		l.Why.Hide()
		l.Start.Enable()
	}
}

// followRun enables Start and Compare settings… again once a run or a
// sweep ends: neither starts a server while one goes on.
func (l *launchPanel) followRun() {
	if on := l.s.u.State.Run.Running; on != l.running {
		l.running = on
		l.refreshStart()
	}
}

// Blocker is why Start cannot launch the form's server on this machine.
func (l *launchPanel) Blocker() blocked {
	cfg := l.s.Form.Config(false)
	return StartBlocker(l.s.u.HasGPU(), l.s.u.LaunchOnCPU(cfg), l.s.u.LaunchStandIn(cfg), cfg, l.s.u.LookPath)
}

// notReady says in one line why a run cannot start on the launched
// server now ("" when it can): the Run screen shows it by its disabled
// Start run.
func (l *launchPanel) notReady() string {
	switch {
	case l.Ready:
		return ""
	case l.Up():
		return "the server is starting (Server screen); Start run is on once it is ready."
	}
	if why := l.Blocker(); why.Problem != "" {
		return why.Problem + "; see the Server screen."
	}
	return "the server is not running: press Start server on the Server screen."
}

// blocked is why Start cannot launch a server: the problem, then what to
// do about it; both "" when it can.
type blocked struct{ Problem, remedy string }

// String is the whole reason, as the Server screen shows it.
func (b blocked) String() string {
	if b.Problem == "" {
		return ""
	}
	return b.Problem + ": " + b.remedy
}

// StartBlocker says why Start cannot launch cfg on this machine: the
// program that runs the server (vllm, or docker for the Docker runner)
// cannot be found, or there is no NVIDIA GPU and the server would not run
// on the CPU (onCPU: vLLM's CPU build, see launchOnCPU) nor is Speed
// Matrix's stand-in (standIn: the simulator, see launchStandIn). look
// finds a program as exec.LookPath does.
func StartBlocker(hasGPU, onCPU, standIn bool, cfg launch.ServerConfig, look func(string) (string, error)) blocked {
	d := cfg.WithDefaults()
	if cfg.Runner == launch.RunnerDocker {
		if _, err := look("docker"); err != nil {
			return blocked{"Start server needs Docker, and docker is not on the PATH", "install Docker, or choose the exec runner under How to run."}
		}
	} else {
		exe, title, program := d.Executable, d.ServerTitle(), launch.ServerConfig{Server: d.Server}.WithDefaults().Executable
		if _, err := look(exe); err != nil {
			if strings.ContainsRune(exe, filepath.Separator) {
				return blocked{"Start server needs " + title + ", and " + exe + " is not a program", "set Executable under How to run to the " + program +
					" of your environment (e.g. /path/to/venv/bin/" + program + ")."}
			}
			return blocked{"Start server needs " + title + ", and " + exe + " is not on the PATH", "install it (" + d.InstallCommand() + "), or set Executable under How to run to its full path."}
		}
	}
	switch {
	case hasGPU || onCPU || standIn:
		return blocked{}
	case d.Server != servers.VLLM:
		return blocked{"Start server needs an NVIDIA GPU for " + d.ServerTitle() + ", and none was found on this machine", "benchmark an existing endpoint or the simulator instead."}
	case d.Device == launch.DeviceGPU:
		return blocked{"Start server needs an NVIDIA GPU (Device is GPU under CPU), and none was found on this machine",
			"set Device to Detect or CPU to serve with vLLM's CPU build, or benchmark an existing endpoint or the simulator instead."}
	}
	return blocked{"Start server needs an NVIDIA GPU or vLLM's CPU build, and this machine has no GPU and Executable is not a CPU build",
		"set Executable under How to run to the vllm of a venv with vLLM's CPU build (or Device under CPU to CPU), or benchmark an existing endpoint or the simulator instead."}
}
