// Package charts draws a Speed Matrix report the way people share it: the
// prefill curve, the sustained-decode heatmap, the per-request trade-off
// chart and the full report sheet, each as PNG and SVG, in a light and a
// dark theme, at 1× or 2× scale.
//
// Drawing happens in three steps, each a pure function of the one before:
// BuildModel turns an engine.Report into a Model (what to draw: series,
// heatmap cells, table rows, already formatted as the reference reports
// in docs/reference format them); a layout turns a Model into a Drawing (positioned rectangles,
// lines and text in logical pixels); and the Drawing renders to PNG or SVG.
// Tests check the Model and the Drawing, never font pixels.
//
// The exports keep one fixed layout (the reference reports'). On screen a
// picture is laid out for its pane instead (Options.Width and Height,
// Pane, Picture): as wide as the pane, a figure as tall, a narrow heatmap
// with its colour bar under the grid and its cell texts fitted, rendered at
// the screen's own (possibly fractional) scale.
//
// Artifacts is the one list of the files a run exports: the saved files
// (report.Artifacts), each picture in each format, and report.html. The
// run's saver, the CLI's report command and run's end, and the app's Export
// all walk it, so a new file format is one entry there.
//
// charts is an output adapter on golang.org/x/image (fonts and the
// rasterizer), headless, so the app, the CLI and tests all use it. What it
// may import is one table for the whole tree, allowedImports in
// imports_test.go, which TestImportRules checks.
package charts
