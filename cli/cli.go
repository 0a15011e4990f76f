package cli

import (
	"context"
	"io"
	"time"

	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/capture"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/sweep"
	"speedmatrix/hw"
)

// CLI is the headless subcommands with what they depend on, given
// explicitly so that each test can have its own and tests run in parallel.
type CLI struct {
	// Version is this build's version, named in every report's Run section.
	Version string
	// SimTimeScale runs --sim targets this many times faster than real
	// time (1: real time; tests raise it).
	SimTimeScale float64
	// WriteCharts draws a report's charts into a folder; it stops with
	// ctx's error once ctx is done.
	WriteCharts func(ctx context.Context, dir string, r engine.Report) error
	// Launch starts a vllm server from a server.toml and returns its target
	// and a func that stops it.
	Launch func(ctx context.Context, path string, stderr io.Writer) (measure.Subject, func(), error)
	// DetectHardware reads this machine's GPUs and host.
	DetectHardware func() (hw.Hardware, error)
	// Capture reads how the server at an endpoint was started, when it runs
	// on this machine, or says why it can't.
	Capture func(ctx context.Context, baseURL string) engine.ServerProcess
	// FindCPUBuild looks for a CPU build of vLLM behind a vllm program
	// (nil: launch.FindCPUBuild).
	FindCPUBuild func(exe string) (launch.CPUBuild, bool)
	// Save writes a run's report into a folder (nil: report.Save).
	Save func(dir string, r engine.Report) error
	// Rescue are the folders a run's report goes to when --out can't take
	// it (nil: the user data folder's speedmatrix/rescued, then the temporary folder's).
	Rescue []string
	// WriteSweepCharts draws a sweep's pictures into its folder (nil:
	// none; New sets charts.WriteSweep).
	WriteSweepCharts func(ctx context.Context, dir string, s sweep.Sweep, runs map[string]engine.Report) error
	// NoGPUWait skips a sweep's wait for the GPUs' memory between two
	// servers (tests, whose fake servers hold none).
	NoGPUWait bool
	// IdleWait is how long a run waits for another client's requests to
	// end before it refuses a busy server (zero: the engine's 30 s).
	IdleWait time.Duration
}

// New returns the subcommands of a build of this version, working on the
// real machine: real-time simulator, real charts, vllm, NVML and /proc.
func New(version string) *CLI {
	c := &CLI{Version: version, SimTimeScale: 1, WriteCharts: charts.WriteAll, DetectHardware: hw.Detect, Capture: capture.Read,
		WriteSweepCharts: func(ctx context.Context, dir string, s sweep.Sweep, runs map[string]engine.Report) error {
			return charts.WriteSweep(ctx, dir, s, runs, charts.DefaultOptions())
		}}
	c.Launch = c.launchTarget
	return c
}

// Command is one subcommand: it runs with its arguments (after the
// subcommand's name) and writes to stdout and stderr.
type Command func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// Commands maps each subcommand's name to its implementation.
func (c *CLI) Commands() map[string]Command {
	return map[string]Command{"run": c.Run, "load": c.Load, "sim": c.sim, "hw": c.hw, "report": c.report, "sweep": c.sweepCmd, "quality": c.Quality}
}
