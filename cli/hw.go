package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/report"
	"speedmatrix/hw"
)

// hw implements `speedmatrix hw [--json]`: it prints this machine's Hardware
// section, or with --json the detected hardware as JSON (a superset of
// report.json's "hardware" object). A machine without an NVIDIA GPU is not
// an error: the GPU line (or the JSON "note") says why. When the vllm on
// the PATH is a CPU build, the CPU line names it (JSON "cpu_engine").
func (c *CLI) hw(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hw", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the hardware as JSON for scripts")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: speedmatrix hw [--json]")
		fmt.Fprintln(fs.Output(), "Print the GPUs (through NVML), CPU, RAM and OS of this machine.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("hw: unexpected argument %q; usage: speedmatrix hw [--json]", fs.Arg(0))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	h, err := c.DetectHardware()
	if err != nil && !errors.Is(err, hw.ErrNoNVML) {
		return fmt.Errorf("detect hardware: %w", err)
	}
	build, cpuBuild := c.findCPUBuild(launch.DefaultExecutable)
	if cpuBuild {
		// `run --launch` starts this vllm on the CPU (launch.ResolveDevice).
		h.CPUServer = build.String()
		if len(h.GPUs) == 0 {
			h.Type = engine.TypeCPU
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(h); err != nil {
			return fmt.Errorf("write hardware JSON: %w", err)
		}
		return nil
	}
	return writeHardware(stdout, h.Info(), h.Topology)
}

// findCPUBuild is c.FindCPUBuild, else launch.FindCPUBuild.
func (c *CLI) findCPUBuild(exe string) (launch.CPUBuild, bool) {
	if c.FindCPUBuild != nil {
		return c.FindCPUBuild(exe)
	}
	return launch.FindCPUBuild(exe)
}

// noGPUAdvice follows the reason on the GPU line when no GPU was found.
const noGPUAdvice = "Benchmark an existing endpoint (--endpoint URL) or the simulator (--sim tiny)."

// cpuBuildAdvice follows it when the vllm on the PATH is a CPU build.
const cpuBuildAdvice = "The vllm on the PATH is a CPU build: speedmatrix run --launch server.toml serves on this CPU."

// writeHardware writes the report's Hardware section (with how the GPUs of
// top, which may be nil, are connected) as an indented list, then the
// kernel and the GPUs' details (report.GPUDetails), then the note. Without
// GPUs the GPU line says why and what to benchmark instead.
func writeHardware(w io.Writer, info engine.HardwareInfo, top *engine.Topology) error {
	note := info.Note
	info.Note = ""
	rows := report.Sections(engine.Report{Hardware: info, Diagnostics: &engine.Diagnostics{Topology: top}})[0].Rows
	if len(info.GPUs) == 0 {
		at := 0
		if len(rows) > 0 && rows[0].Key == "Type" {
			at = 1
		}
		why, advice := cmp.Or(note, "no NVIDIA GPU found"), noGPUAdvice
		if info.CPUServer != "" {
			advice = cpuBuildAdvice
		}
		rows = slices.Insert(rows, at, report.Row{Key: "GPU", Value: "none detected (" + why + "). " + advice})
		note = ""
	}
	rows = append(rows, report.Row{Key: "Kernel", Value: info.Kernel})
	rows = append(rows, report.GPUDetails(info.GPUs)...)
	rows = append(rows, report.Row{Key: "Note", Value: note})
	width := 8
	for _, r := range rows {
		width = max(width, len(r.Key))
	}
	var b strings.Builder
	b.WriteString("Hardware\n")
	for _, r := range rows {
		if r.Value != "" {
			fmt.Fprintf(&b, "  %-*s %s\n", width, r.Key, r.Value)
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write hardware section: %w", err)
	}
	return nil
}
