package charts

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// WriteAll writes the drawn files of a report (Artifacts, report.Drawn)
// into dir, light theme at 1×: report.png, prefill.png, decode-heatmap.png,
// per-request.png, and decode-roofline.png when the report has a roofline,
// decode-slo.png when its plan sets an SLO, quality.png when it has a
// quality section (KindsFor), and an .svg twin of each, then the whole
// report as one web page (HTMLFile). Once ctx is done it stops, between
// files or inside one, and returns ctx's error: the files already written
// are whole.
func WriteAll(ctx context.Context, dir string, r engine.Report) error {
	return WriteAllWith(ctx, dir, r, DefaultOptions())
}

// WriteAllWith is WriteAll with a chosen theme and scale. Each file is
// written to a temporary name and renamed, so a reader never sees half.
func WriteAllWith(ctx context.Context, dir string, r engine.Report, opts Options) error {
	for _, a := range Artifacts(r, Pictures(r, opts)) {
		if a.Stage != report.Drawn {
			continue
		}
		if err := a.Write(ctx, dir); err != nil {
			return err
		}
	}
	return nil
}

// writePicture renders d in each of pictureFormats as base.png, base.svg
// in dir (the quality command's drift chart, a sweep's pictures), each
// written to a temporary name and renamed, so a reader never sees half of
// one. Every format is rendered before any is written. Once ctx is done it
// stops and returns ctx's error.
func writePicture(ctx context.Context, dir, base string, d *Drawing, scale int) error {
	data := make([][]byte, len(pictureFormats))
	for i, f := range pictureFormats {
		var b bytes.Buffer
		if err := f.write(d, ctx, &b, scale); err != nil {
			return fmt.Errorf("draw %s: %w", base, err)
		}
		data[i] = b.Bytes()
	}
	for i, f := range pictureFormats {
		if err := report.WriteFileAtomic(filepath.Join(dir, base+"."+f.name), data[i]); err != nil {
			return err
		}
	}
	return nil
}
