// Package report writes and reads the files of a speed test matrix run:
// report.json (the versioned schema that loads back), results.csv (one row
// per cell) and report.md (the tables of the reference reports in
// docs/reference). Number formatting shared with the charts and the app
// lives in format.go.
//
// report is output, beside the charts: it reads the domain's types and
// writes and reads files. What it may import is one table for the
// whole tree, allowedImports in imports_test.go, which TestImportRules
// checks.
package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"speedmatrix/engine"
)

// File names of the saved files (Artifacts).
const (
	JSONFile     = "report.json"
	CSVFile      = "results.csv"
	MarkdownFile = "report.md"
)

// Save writes the saved files of r (Artifacts: report.json, results.csv or
// a load test's load.csv, report.md, and telemetry.csv when the cells carry
// hardware telemetry) into dir (created if missing). Every file is made
// before any is written; each is written to a temporary file and renamed,
// so a reader never sees half a file, even if the run is killed mid-save.
func Save(dir string, r engine.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save report: %w", err)
	}
	files := Artifacts(r)
	data := make([][]byte, len(files))
	for i, f := range files {
		b, err := f.Bytes(context.Background())
		if err != nil {
			return fmt.Errorf("save report: %w", err)
		}
		data[i] = b
	}
	for i, f := range files {
		if err := WriteFileAtomic(filepath.Join(dir, f.Name), data[i]); err != nil {
			return fmt.Errorf("save report: %w", err)
		}
	}
	return nil
}

// JSON encodes r as report.json holds it: indented, schema version set.
func JSON(r engine.Report) ([]byte, error) {
	if r.SchemaVersion == 0 {
		r.SchemaVersion = engine.SchemaVersion
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteFileAtomic writes data to path through a temporary file in the same
// folder and a rename, so a reader never sees half a file; the result is
// readable by everyone (0644), like any exported document.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w (check that the folder exists and is writable)", path, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the error names path, not the temporary file
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Load reads a report.json written by Save; path is the file or the
// directory that holds it.
func Load(path string) (engine.Report, error) {
	var r engine.Report
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, JSONFile)
	}
	data, err := readFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return r, fmt.Errorf("load report: %s not found: give the folder of a run or its report.json", path)
	}
	if err != nil {
		return r, fmt.Errorf("load report: %w", err)
	}
	return decodeReport(data, path)
}
