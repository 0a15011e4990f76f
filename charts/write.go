package charts

import (
	"fmt"
	"path/filepath"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// WriteAll writes every picture of a report into dir, light theme at 1×:
// report.png, prefill.png, decode-heatmap.png, per-request.png, and
// decode-roofline.png when the report has a roofline, and an .svg twin of
// each.
func WriteAll(dir string, r engine.Report) error {
	return WriteAllWith(dir, r, DefaultOptions())
}

// WriteAllWith is WriteAll with a chosen theme and scale. Each file is
// written to a temporary name and renamed, so a reader never sees half.
func WriteAllWith(dir string, r engine.Report, opts Options) error {
	opts, err := opts.check()
	if err != nil {
		return err
	}
	m := BuildModel(r)
	for _, kind := range KindsFor(r) {
		d, err := DrawModel(kind, m, opts)
		if err != nil {
			return err
		}
		png, err := d.PNG(opts.Scale)
		if err != nil {
			return fmt.Errorf("draw %s: %w", kind, err)
		}
		svg, err := d.SVG(opts.Scale)
		if err != nil {
			return fmt.Errorf("draw %s: %w", kind, err)
		}
		if err := report.WriteFileAtomic(filepath.Join(dir, string(kind)+".png"), png); err != nil {
			return err
		}
		if err := report.WriteFileAtomic(filepath.Join(dir, string(kind)+".svg"), svg); err != nil {
			return err
		}
	}
	return nil
}
