package app

import (
	"os/exec"

	"speedmatrix/engine/launch"
)

// Where a launched server would run: on a GPU, or on the CPU with vLLM's
// CPU build. The Server screen's Launch form and the Hardware screen's host
// card both ask.

// LaunchOnCPU reports whether Start would run cfg on the CPU, as
// launch.ResolveDevice decides at launch: Device CPU, a CPU setting, or an
// Executable whose venv holds vLLM's CPU build.
func (u *UI) LaunchOnCPU(cfg launch.ServerConfig) bool {
	c, _, _ := u.LaunchDevice(cfg)
	return c.OnCPU()
}

// LaunchDevice is cfg with its device decided as Start will decide it
// (launch.ResolveDevice, with its program found through lookPath), and the
// CPU build of vLLM it runs on the CPU, when it runs one.
func (u *UI) LaunchDevice(cfg launch.ServerConfig) (launch.ServerConfig, launch.CPUBuild, bool) {
	r, b, ok := launch.ResolveDevice(u.WithProgram(cfg))
	cfg.Device = r.Device
	return cfg, b, ok
}

// LaunchStandIn reports whether Start would launch Speed Matrix's stand-in
// for vLLM (launch.StandIn, the rule the CLI's --launch follows, with its
// program found through lookPath): the simulator, which needs no GPU and
// runs on no CPU build.
func (u *UI) LaunchStandIn(cfg launch.ServerConfig) bool {
	return launch.StandIn(u.WithProgram(cfg))
}

// WithProgram is cfg with its defaults, and its exec runner's program
// found through lookPath.
func (u *UI) WithProgram(cfg launch.ServerConfig) launch.ServerConfig {
	d := cfg.WithDefaults()
	if d.Runner != launch.RunnerDocker {
		if p, err := u.LookPath(d.Executable); err == nil {
			d.Executable = p
		}
	}
	return d
}

// SavedCPUBuild is the CPU build of vLLM that the Launch form's saved
// Executable (vllm on the PATH when none was saved) runs on the CPU, when
// it runs one.
func (u *UI) SavedCPUBuild() (launch.CPUBuild, bool) {
	var cfg launch.ServerConfig
	u.Prefs.Load(PrefServer, &cfg)
	_, b, ok := u.LaunchDevice(cfg)
	return b, ok
}

// LookPath finds a program on the PATH (deps.lookPath, else exec.LookPath).
func (u *UI) LookPath(file string) (string, error) {
	if u.Deps.LookPath != nil {
		return u.Deps.LookPath(file)
	}
	return exec.LookPath(file)
}
