package charts

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// Artifacts is the one list of the files a run exports, in the order they
// are written: the saved files (report.Artifacts: report.json, results.csv
// or load.csv, report.md, telemetry.csv), then each picture of r
// (KindsFor) in each format (pictureFormats), then the whole report as one
// web page (HTMLFile). paint draws the pictures (nil: Pictures(r,
// DefaultOptions())). runs.Saver writes the saved files after every cell
// (report.Save), the CLI draws the rest once a run ends (WriteAll),
// `speedmatrix report --in` writes what each file's Again says, and the
// app's Export writes them all. A file's bytes are made only when asked for.
func Artifacts(r engine.Report, paint Painter) []report.Artifact {
	if paint == nil {
		paint = Pictures(r, DefaultOptions())
	}
	files := report.Artifacts(r)
	for _, kind := range KindsFor(r) {
		for _, f := range pictureFormats {
			files = append(files, report.Artifact{Name: string(kind) + "." + f.name, Picture: string(kind), Stage: report.Drawn, Again: report.Redrawn,
				Bytes: func(ctx context.Context) ([]byte, error) { return paint.Paint(ctx, kind, f.name) }})
		}
	}
	page := func(ctx context.Context) ([]byte, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p, ok := paint.(*pictures); ok { // the pictures' model, built once for them and the page
			return htmlOf(ctx, r, p.model())
		}
		return htmlOf(ctx, r, BuildModel(r))
	}
	return append(files, report.Artifact{Name: HTMLFile, Stage: report.Drawn, Again: report.Redrawn, Bytes: page})
}

// Painter draws one picture of a report in one of pictureFormats ("png",
// "svg"); once ctx is done it stops and returns ctx's error.
type Painter interface {
	Paint(ctx context.Context, kind Kind, format string) ([]byte, error)
}

// pictureFormats are the formats every picture is exported in, in order,
// each with its encoder.
var pictureFormats = []struct {
	name  string
	write func(d *Drawing, ctx context.Context, w io.Writer, scale int) error
}{
	{"png", (*Drawing).writePNG},
	{"svg", (*Drawing).writeSVG},
}

// Pictures draws the pictures of r with opts. It builds r's model once
// for every picture (and the page of Artifacts), and lays each picture out
// once for all its formats when they are asked for one after another.
func Pictures(r engine.Report, opts Options) Painter {
	return &pictures{r: r, opts: opts}
}

// pictures is the Painter of Pictures.
type pictures struct {
	r    engine.Report
	opts Options

	mu    sync.Mutex
	built *Model
	kind  Kind // the last picture laid out, and its drawing
	d     *Drawing
}

// model is r's model, built on first use.
func (p *pictures) model() Model {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.built == nil {
		m := BuildModel(p.r)
		p.built = &m
	}
	return *p.built
}

// drawing lays out kind, or returns the drawing of the picture asked for
// last when it is kind.
func (p *pictures) drawing(kind Kind, opts Options) (*Drawing, error) {
	m := p.model()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.d != nil && p.kind == kind {
		return p.d, nil
	}
	d, err := drawModel(kind, m, opts)
	if err != nil {
		return nil, err
	}
	p.kind, p.d = kind, d
	return d, nil
}

// Paint draws kind as format. The options are checked before anything is
// drawn, so that the first picture of a list fails before any file is
// written.
func (p *pictures) Paint(ctx context.Context, kind Kind, format string) ([]byte, error) {
	opts, err := p.opts.check()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, f := range pictureFormats {
		if f.name != format {
			continue
		}
		d, err := p.drawing(kind, opts)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := f.write(d, ctx, &b, opts.Scale); err != nil {
			return nil, fmt.Errorf("draw %s: %w", kind, err)
		}
		return b.Bytes(), nil
	}
	return nil, fmt.Errorf("draw %s: unknown format %q", kind, format)
}
