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
	// FormatVLLMBench is `vllm bench serve --save-result`'s JSON: one
	// run, or one a line with --append-result.
	FormatVLLMBench Format = "vllm bench serve results"
	// FormatGuideLLM is GuideLLM's benchmarks report (benchmarks.json).
	FormatGuideLLM Format = "GuideLLM benchmarks report"
	// FormatAIPerf is AIPerf's profile export (profile_export_aiperf.json).
	FormatAIPerf Format = "AIPerf profile export"
	// FormatInferencePerf is one stage's report of inference-perf
	// (stage_N_lifecycle_metrics.json).
	FormatInferencePerf Format = "inference-perf stage report"
)

// Imported reports whether a file of the format was measured by another
// tool: everything but our own report.json.
func (f Format) Imported() bool { return f != formatReport && f != "" }

// formatsWords lists the formats Read understands, for FormatError.
const formatsWords = "a Speed Matrix report.json, an llm-inference-bench results file, vllm bench serve --save-result JSON, " +
	"a GuideLLM benchmarks report, an AIPerf profile export (profile_export_aiperf.json) or an inference-perf stage report (stage_N_lifecycle_metrics.json)"

// FormatError says why a file is in none of the formats Read understands.
type FormatError struct {
	File   string // the file's name as the caller gave it
	Reason string // "it is empty", "it is not JSON: …"
}

// Error is one line: "FILE is none of the formats Speed Matrix reads (a
// Speed Matrix report.json, …): REASON".
func (e *FormatError) Error() string {
	return fmt.Sprintf("%s is none of the formats Speed Matrix reads (%s): %s", e.File, formatsWords, e.Reason)
}

// Read loads a run from path in any Format: a report.json, a run's
// folder that holds one, or another tool's results file. A file in none
// of them gives a *FormatError; one that cannot hold a real run (too
// large, or claiming more than a run measures) an *implausibleError.
func Read(path string) (engine.Report, Format, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, JSONFile)
	}
	data, err := readFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return engine.Report{}, "", fmt.Errorf("%s not found: give a run's folder, its report.json, or another tool's results file", path)
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
	data = pythonJSON(bytes.TrimSpace(data))
	if len(data) == 0 {
		return unknown("it is empty")
	}
	var top struct {
		SchemaVersion present `json:"schema_version"`
		Metadata      present `json:"metadata"`
		Results       present `json:"results"`
		Benchmarks    present `json:"benchmarks"`
		AIPerfVersion present `json:"aiperf_version"`
		OutputTokS    present `json:"output_throughput"`
		Completed     present `json:"completed"`
		LoadSummary   present `json:"load_summary"`
		Successes     present `json:"successes"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&top); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return unknown("its JSON is %s, not an object", typeErr.Value)
		}
		return unknown("it is not valid JSON (%v)", err)
	}
	vllm := bool(top.OutputTokS && top.Completed)
	if dec.More() && !vllm { // only vllm bench's --append-result writes one object a line
		return unknown("it is not valid JSON (more than one value)")
	}
	decoders := []struct {
		is     bool
		format Format
		decode func([]byte, string) (engine.Report, error)
	}{
		{bool(top.AIPerfVersion), FormatAIPerf, decodeAIPerf}, // before ours: it has a schema_version too
		{bool(top.SchemaVersion), formatReport, decodeReport},
		{bool(top.Metadata && top.Results), FormatLLMInferenceBench, decodeLIB},
		{bool(top.Metadata && top.Benchmarks), FormatGuideLLM, decodeGuideLLM},
		{bool(top.LoadSummary && top.Successes), FormatInferencePerf, decodeInferencePerf},
		{vllm, FormatVLLMBench, decodeVLLMBench},
	}
	for _, d := range decoders {
		if d.is {
			r, err := d.decode(data, file)
			return r, d.format, err
		}
	}
	return unknown("it has none of their keys (schema_version, metadata and results or benchmarks, aiperf_version, output_throughput and completed, load_summary and successes)")
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
