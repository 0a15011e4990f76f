package report

import (
	"bytes"
	"context"
	"io"
	"path/filepath"

	"speedmatrix/engine"
)

// Artifact is one file a run exports: its name, when it is written, and how
// its bytes are made. The one list of a run's files is charts.Artifacts:
// this package's Artifacts (the saved files), then the pictures and the
// web page. The type and the saved files live here so that runs.Saver and
// the sweep runner, which may not import charts, save exactly the list's
// saved files (Save). Adding a file format is one entry in one of the two.
type Artifact struct {
	// Name is the file's name in the run's folder.
	Name string
	// Picture is the chart this file draws, the name without its format
	// ("decode-heatmap" for decode-heatmap.png and .svg); "" for a data
	// file or the web page. Front ends group a picture's formats by it.
	Picture string
	// Stage says when a run writes the file.
	Stage Stage
	// Again says when `speedmatrix report --in` writes a saved run's file
	// again.
	Again Again
	// Bytes makes the file's content; once ctx is done it may stop and
	// return ctx's error.
	Bytes func(ctx context.Context) ([]byte, error)
}

// Stage says when a run writes a file.
type Stage int

const (
	// Saved files hold what was measured: runs.Saver writes them after
	// every cell (Save), so nothing measured is lost if the run dies.
	Saved Stage = iota
	// Drawn files are drawn from the saved ones: the CLI writes them once
	// the run ends (charts.WriteAll), the app's Export writes them with the
	// rest, and `speedmatrix report --in` draws them again.
	Drawn
)

// Again says when `speedmatrix report --in` writes a saved run's file again.
// An import, whose folder holds nothing yet, writes every file.
type Again int

const (
	// Kept files stay as the run saved them: report.json is the run as it
	// was measured.
	Kept Again = iota
	// Judged files are written again when --slo-* judges the run against
	// another SLO: report.md's SLO section.
	Judged
	// Redrawn files are written again every time: results.csv, each
	// picture and the web page.
	Redrawn
)

// Artifacts lists the saved files of r in the order Save writes them:
// report.json, results.csv (load.csv for a load test: CSVFileFor),
// report.md, and telemetry.csv when the cells carry hardware telemetry
// (HasTelemetry). Their bytes are made only when asked for.
func Artifacts(r engine.Report) []Artifact {
	if r.SchemaVersion == 0 {
		r.SchemaVersion = engine.SchemaVersion
	}
	files := []Artifact{
		{Name: JSONFile, Bytes: func(context.Context) ([]byte, error) { return JSON(r) }},
		{Name: CSVFileFor(r), Again: Redrawn, Bytes: written(r, WriteCSVFor)},
		{Name: MarkdownFile, Again: Judged, Bytes: func(context.Context) ([]byte, error) { return []byte(Markdown(r)), nil }},
	}
	if HasTelemetry(r) {
		files = append(files, Artifact{Name: TelemetryCSVFile, Bytes: written(r, WriteTelemetryCSV)})
	}
	return files
}

// Write makes a's bytes and writes them into dir through a temporary file
// and a rename (WriteFileAtomic), so a reader never sees half of it. Once
// ctx is done it stops with ctx's error where a's Bytes looks (every drawn
// file's does).
func (a Artifact) Write(ctx context.Context, dir string) error {
	data, err := a.Bytes(ctx)
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, a.Name), data)
}

// written is the Bytes of a file that write makes of r.
func written(r engine.Report, write func(io.Writer, engine.Report) error) func(context.Context) ([]byte, error) {
	return func(context.Context) ([]byte, error) {
		var b bytes.Buffer
		err := write(&b, r)
		return b.Bytes(), err
	}
}
