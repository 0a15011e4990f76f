package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"speedmatrix/charts"
	"speedmatrix/engine/report"
)

// Report implements `speedmatrix report --in report.json [--out DIR]
// [--theme light|dark] [--scale 1|2]`: it loads a saved run and draws its
// pictures again (report, prefill, decode heatmap, per-request; PNG and SVG).
func (c *CLI) Report(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("in", "", "report.json of a run, or the folder that holds it")
	out := fs.String("out", "", "folder to write the pictures to (default: the folder of --in)")
	theme := fs.String("theme", string(charts.Light), "colour theme: light or dark")
	scale := fs.Int("scale", 1, "pixel scale: 1, or 2 for high-density screens")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: speedmatrix report --in report.json [--out DIR] [--theme light|dark] [--scale 1|2]")
		fmt.Fprintln(fs.Output(), "Draw the charts of a saved run again: report, prefill, decode-heatmap and per-request, as PNG and SVG.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("report: unexpected argument %q; give the run with --in", fs.Arg(0))
	}
	if *in == "" {
		return fmt.Errorf("report: no run given: add --in with a run's report.json or its folder")
	}
	opts := charts.Options{Theme: charts.Theme(*theme), Scale: *scale}
	r, err := report.Load(*in)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = *in
		if st, err := os.Stat(*in); err == nil && !st.IsDir() {
			dir = filepath.Dir(*in)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: make output folder: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := charts.WriteAllWith(dir, r, opts); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, k := range charts.Kinds {
		fmt.Fprintf(stdout, "wrote %s {.png,.svg}\n", filepath.Join(dir, string(k)))
	}
	return nil
}
