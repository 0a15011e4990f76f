package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"speedmatrix/engine"
)

// Format names a kind of results file Read understands.
type Format string

// The formats Read tells apart by content.
const (
	// formatReport is Speed Matrix's own report.json, from this machine or
	// another one.
	formatReport Format = "Speed Matrix report.json"
	// FormatLLMInferenceBench is the JSON results file (--output) of
	// llm-inference-bench's llm_decode_bench.py, the terminal tool.
	FormatLLMInferenceBench Format = "llm-inference-bench results"
)

// FormatError says why a file is in neither format Read understands.
type FormatError struct {
	File   string // the file's name as the caller gave it
	Reason string // "it is empty", "it is not JSON: …"
}

// Error is one line: "FILE is neither a Speed Matrix report.json nor an
// llm-inference-bench results file: REASON".
func (e *FormatError) Error() string {
	return fmt.Sprintf("%s is neither a Speed Matrix report.json nor an llm-inference-bench results file: %s", e.File, e.Reason)
}

// Read loads a run from path in either Format: a report.json, a run's
// folder that holds one, or an llm-inference-bench results file. A file
// in neither format gives a *FormatError; one that cannot hold a real run
// (too large, or claiming more than a run measures) an *implausibleError.
func Read(path string) (engine.Report, Format, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, JSONFile)
	}
	data, err := readFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return engine.Report{}, "", fmt.Errorf("%s not found: give a run's folder, its report.json, or an llm-inference-bench results file", path)
	}
	if err != nil {
		return engine.Report{}, "", err
	}
	return Decode(data, path)
}

// Decode reads a run from data, telling the formats apart by content;
// file names the data in errors and in an imported run's Import.
func Decode(data []byte, file string) (engine.Report, Format, error) {
	unknown := func(format string, a ...any) (engine.Report, Format, error) {
		return engine.Report{}, "", &FormatError{File: file, Reason: fmt.Sprintf(format, a...)}
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return unknown("it is empty")
	}
	var top struct {
		SchemaVersion present `json:"schema_version"`
		Metadata      present `json:"metadata"`
		Results       present `json:"results"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return unknown("its JSON is %s, not an object", typeErr.Value)
		}
		return unknown("it is not valid JSON (%v)", err)
	}
	switch {
	case bool(top.SchemaVersion):
		r, err := decodeReport(data, file)
		return r, formatReport, err
	case bool(top.Metadata && top.Results):
		r, err := decodeLIB(data, file)
		return r, FormatLLMInferenceBench, err
	}
	return unknown("it has neither schema_version (report.json) nor metadata and results (llm-inference-bench)")
}

// present is whether a key of a JSON object is there: it keeps nothing of
// the value, which may be most of the file.
type present bool

// UnmarshalJSON records that the key is there.
func (p *present) UnmarshalJSON([]byte) error {
	*p = true
	return nil
}

// decodeReport reads a report.json and checks its schema version and
// that it can hold a real run (checkRun).
func decodeReport(data []byte, file string) (engine.Report, error) {
	var r engine.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("load report %s: not a speedmatrix report.json (%v)", file, err)
	}
	engine.BoundReport(&r)
	switch {
	case r.SchemaVersion == 0:
		return r, fmt.Errorf("load report %s: no schema_version: not a speedmatrix report.json", file)
	case r.SchemaVersion > engine.SchemaVersion:
		return r, fmt.Errorf("load report %s: schema version %d is newer than this build reads (%d): update speedmatrix",
			file, r.SchemaVersion, engine.SchemaVersion)
	}
	return r, checkRun(r, file)
}
