package capture

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
)

// NotCapturedPrefix starts the Launch command of a server whose process
// could not be read; the reason follows.
const NotCapturedPrefix = "# launch command: not captured: "

// Header records p in a report header: p itself, its Launch command (see
// LaunchCommand) and the engine version its command names, unless the
// header already has one. A command that runs vLLM's CPU build makes the
// Hardware section this machine's CPU and the backend cpu: call it after
// the hardware is described.
func Header(h *engine.Report, p engine.ServerProcess) {
	home, _ := os.UserHomeDir()
	h.Process = &p
	h.LaunchCommand = launchCommand(p, home)
	if h.Server.Version == "" {
		h.Server.Version = p.ServerVersion
	}
	if p.CPUBuild != "" {
		h.Hardware.ServeOnCPU(p.CPUBuild)
		h.Server.Backend = "cpu"
	}
	if h.Server.Build == "" && p.Container != nil {
		h.Server.Build = p.Container.Image
	}
}

// launchCommand is how p was started, as the reference reports' Launch
// command shows it: comment lines with when, by whom and in which
// container, then the command line with its environment (launch.CommandLine,
// a path under home written "$HOME/..."). A process that could not be
// read gets one comment line that says why.
func launchCommand(p engine.ServerProcess, home string) string {
	if len(p.Command) == 0 {
		return NotCapturedPrefix + p.NotCaptured
	}
	lines := []string{"# " + StartedLine(p)}
	if c := p.Container; c != nil {
		lines = append(lines, "# "+ContainerLine(*c))
	}
	for _, n := range p.Notes {
		lines = append(lines, "# "+n)
	}
	cmd := launch.CommandLine(p.Env, p.Command, home)
	if relativeArgs(p.Command) && p.Dir != "" {
		// venv/bin/vllm serve models/x runs only from where it was started.
		cmd = "cd " + launch.CommandLine(nil, []string{p.Dir}, home) + " && " + cmd
	}
	return strings.Join(append(lines, cmd), "\n")
}

// StartedLine says when and by whom p was started, and where its command
// was read: "started 2026-12-01 14:03:22 CET by alice (pid 4242), read
// from /proc/4242".
func StartedLine(p engine.ServerProcess) string {
	s := "started"
	if !p.StartedAt.IsZero() {
		s += " " + p.StartedAt.Local().Format("2006-01-02 15:04:05 MST")
	}
	who := p.User
	if who == "" {
		who = fmt.Sprintf("uid %d", p.UID)
	}
	s += " by " + who
	if p.PID > 0 {
		s += fmt.Sprintf(" (pid %d)", p.PID)
	}
	if p.From != "" {
		s += ", read from " + p.From
	}
	return s
}

// ContainerLine names a Docker container: "in Docker container vllm
// (3f2a1b9c0d1e), image vllm/vllm-openai:v0.32.0".
func ContainerLine(c engine.Container) string {
	s := "in Docker container "
	if c.Name != "" {
		s += c.Name + " (" + c.ID + ")"
	} else {
		s += c.ID
	}
	if c.Image != "" {
		s += ", image " + c.Image
	}
	return s
}

// relativeArgs reports whether argv names its program, or a python's
// script, by a relative path ("venv/bin/vllm"): its other relative paths
// are likely relative to the same folder.
func relativeArgs(argv []string) bool {
	return slices.ContainsFunc(argv[:min(2, len(argv))], relativePath)
}
