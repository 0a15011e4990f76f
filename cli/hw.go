package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"speedmatrix/hw"
)

// detectHardware is hw.Detect; tests replace it with canned hardware.
var detectHardware = hw.Detect

// HW implements `speedmatrix hw [--json]`: it prints this machine's Hardware
// section, or with --json the detected hardware as JSON (a superset of
// report.json's "hardware" object). A machine without an NVIDIA GPU is not
// an error: the GPU line (or the JSON "note") says why.
func HW(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
	h, err := detectHardware()
	if err != nil && !errors.Is(err, hw.ErrNoNVML) {
		return fmt.Errorf("detect hardware: %w", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(h); err != nil {
			return fmt.Errorf("write hardware JSON: %w", err)
		}
		return nil
	}
	return hw.FormatSection(stdout, h.Info())
}
