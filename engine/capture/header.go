package capture

import (
	"fmt"
	"os"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/vllm"
)

// NotCapturedPrefix starts the Launch command of a server whose process
// could not be read; the reason follows.
const NotCapturedPrefix = "# launch command: not captured: "

// Header records p in a report header: p itself, its Launch command (see
// LaunchCommand) and the engine version its command names, unless the
// header already has one.
func Header(h *engine.Report, p engine.ServerProcess) {
	home, _ := os.UserHomeDir()
	h.Server = &p
	h.LaunchCommand = LaunchCommand(p, home)
	if h.Engine.Version == "" {
		h.Engine.Version = p.EngineVersion
	}
	if h.Engine.Build == "" && p.Container != nil {
		h.Engine.Build = p.Container.Image
	}
}

// LaunchCommand is how p was started, as the reference reports' Launch
// command shows it: comment lines with when, by whom and in which
// container, then the command line with its environment (vllm.CommandLine,
// a path under home written "$HOME/..."). A process that could not be
// read gets one comment line that says why.
func LaunchCommand(p engine.ServerProcess, home string) string {
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
	return strings.Join(append(lines, vllm.CommandLine(p.Env, p.Command, home)), "\n")
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
