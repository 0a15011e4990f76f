package charts

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// WriteAll writes every picture of a report into dir, light theme at 1×:
// report.png, prefill.png, decode-heatmap.png, per-request.png, and
// decode-roofline.png when the report has a roofline, decode-slo.png when
// its plan sets an SLO, quality.png when it has a quality section
// (KindsFor), and an .svg twin of each, then the whole report as one web page (HTMLFile). Once ctx is done it stops, between files or inside one, and
// returns ctx's error: the files already written are whole.
func WriteAll(ctx context.Context, dir string, r engine.Report) error {
	return WriteAllWith(ctx, dir, r, DefaultOptions())
}

// WriteAllWith is WriteAll with a chosen theme and scale. Each file is
// written to a temporary name and renamed, so a reader never sees half.
func WriteAllWith(ctx context.Context, dir string, r engine.Report, opts Options) error {
	opts, err := opts.check()
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m := BuildModel(r)
	for _, kind := range KindsFor(r) {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, err := drawModel(kind, m, opts)
		if err != nil {
			return err
		}
		if err := writePicture(ctx, dir, string(kind), d, opts.Scale); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	page, err := htmlOf(ctx, r, m)
	if err != nil {
		return err
	}
	return report.WriteFileAtomic(filepath.Join(dir, HTMLFile), page)
}

// writePicture renders d as base.png and base.svg in dir, each written to
// a temporary name and renamed, so a reader never sees half of one. Once
// ctx is done it stops and returns ctx's error.
func writePicture(ctx context.Context, dir, base string, d *Drawing, scale int) error {
	var png, svg bytes.Buffer
	if err := d.writePNG(ctx, &png, scale); err != nil {
		return fmt.Errorf("draw %s: %w", base, err)
	}
	if err := d.writeSVG(ctx, &svg, scale); err != nil {
		return fmt.Errorf("draw %s: %w", base, err)
	}
	if err := report.WriteFileAtomic(filepath.Join(dir, base+".png"), png.Bytes()); err != nil {
		return err
	}
	return report.WriteFileAtomic(filepath.Join(dir, base+".svg"), svg.Bytes())
}
