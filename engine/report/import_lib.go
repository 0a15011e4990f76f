package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/secret"
)

// libTool is the name imported runs of llm-inference-bench carry.
const libTool = "llm-inference-bench"

// libFile is the part of an llm-inference-bench results file (save_results
// in llm_decode_bench.py, 0.4.x) that maps onto a report. Fields the tool
// did not write stay zero, and the import leaves what they feed empty.
type libFile struct {
	Metadata struct {
		Version           string  `json:"version"`
		Engine            string  `json:"engine"`
		Model             string  `json:"model"`
		Server            string  `json:"server"`
		Timestamp         string  `json:"timestamp"`
		DecodeMode        string  `json:"decode_mode"`
		DurationPerTest   float64 `json:"duration_per_test"`
		RequestCount      int     `json:"request_count"`
		PrefillMode       string  `json:"prefill_mode"`
		SkipPrefill       bool    `json:"skip_prefill"`
		MaxTokens         int     `json:"max_tokens"`
		IgnoreEOS         *bool   `json:"ignore_eos"`
		MaxTotalTokens    int     `json:"max_total_tokens"`
		MetricsAvailable  *bool   `json:"metrics_available"`
		ConcurrencyLevels []int   `json:"concurrency_levels"`
		ContextLengths    []int   `json:"context_lengths"`
	} `json:"metadata"`
	StartupDiagnostics struct {
		ServerURL string `json:"server_url"`
		Uname     string `json:"uname"`
		Args      struct {
			KVBudget int `json:"kv_budget"`
		} `json:"args"`
		NvidiaSMIQuery *struct {
			ReturnCode int    `json:"returncode"`
			Stdout     string `json:"stdout"`
		} `json:"nvidia_smi_query"`
		NvidiaSMIError string `json:"nvidia_smi_error"`
	} `json:"startup_diagnostics"`
	EventLog     []string              `json:"event_log"`
	Prefill      map[string]libPrefill `json:"prefill"`
	Results      []libCell             `json:"results"`
	BurstResults []json.RawMessage     `json:"burst_results"`
}

// libPrefill is one context of the file's "prefill" object.
type libPrefill struct {
	TTFTSeconds  float64 `json:"ttft_seconds"`
	TokPerSec    float64 `json:"tok_per_sec"`
	PromptTokens int     `json:"prompt_tokens"`
	Samples      int     `json:"samples"`
	Skipped      bool    `json:"skipped"`
	Reason       string  `json:"reason"`
}

// libCell is one decode cell of the file's "results" (its CellResult).
type libCell struct {
	Concurrency           int     `json:"concurrency"`
	ContextTokens         int     `json:"context_tokens"`
	MeasurementSeconds    float64 `json:"measurement_seconds"`
	ClientOutputTokens    int     `json:"client_output_tokens"`
	AggregateSource       string  `json:"aggregate_source"`
	TotalTokens           int     `json:"total_tokens"`
	AggregateTPS          float64 `json:"aggregate_tps"`
	PerRequestAvgTPS      float64 `json:"per_request_avg_tps"`
	TTFTP50               float64 `json:"ttft_p50"`
	TTFTP90               float64 `json:"ttft_p90"`
	TTFTP99               float64 `json:"ttft_p99"`
	ITLP50                float64 `json:"inter_token_latency_p50"`
	ITLP90                float64 `json:"inter_token_latency_p90"`
	ITLP99                float64 `json:"inter_token_latency_p99"`
	UserTPSP50            float64 `json:"output_tps_per_user_p50"`
	UserTPSP90            float64 `json:"output_tps_per_user_p90"`
	UserTPSP99            float64 `json:"output_tps_per_user_p99"`
	InputSeqLenAvg        float64 `json:"input_seq_len_avg"`
	CompletedRequestCount int     `json:"completed_request_count"`
	NumErrors             int     `json:"num_errors"`
	NumCompleted          int     `json:"num_completed"`
	ServerGenThroughput   float64 `json:"server_gen_throughput"`
	AvgRunningReqs        float64 `json:"avg_running_reqs"`
	MaxRunningReqs        float64 `json:"max_running_reqs"`
	AvgQueueReqs          float64 `json:"avg_queue_reqs"`
	EffectiveConcurrency  float64 `json:"effective_concurrency"`
	Underfilled           bool    `json:"underfilled"`
	CapacityLimited       bool    `json:"capacity_limited"`
	WarmupTimedOut        bool    `json:"warmup_timed_out"`
	TimeoutReason         string  `json:"timeout_reason"`
}

// decodeLIB maps an llm-inference-bench results file onto a report: what
// the tool measured, the statuses of the cells it skipped or lost, its
// name and version, and notes on where its method differs from ours.
// What the file does not say stays empty.
func decodeLIB(data []byte, file string) (engine.Report, error) {
	var f libFile
	if err := json.Unmarshal(data, &f); err != nil {
		return engine.Report{}, fmt.Errorf("%s looks like an llm-inference-bench results file but cannot be read: %v", file, err)
	}
	engine.BoundStrings(&f) // its event log is parsed: bounded before
	if f.Metadata.Version == "" {
		return engine.Report{}, &FormatError{File: file, Reason: "its metadata has no version (llm-inference-bench writes one)"}
	}
	if len(f.Results) == 0 && len(f.Prefill) == 0 {
		return engine.Report{}, fmt.Errorf("%s is an llm-inference-bench results file with no results: nothing to import", file)
	}
	plan := libPlan(f)
	if problem := planProblem(plan); problem != "" { // before the matrix is laid out
		return engine.Report{}, &implausibleError{File: file, Problem: problem}
	}
	log := parseLIBLog(f.EventLog)
	rep := engine.Report{
		SchemaVersion: engine.SchemaVersion,
		Hardware:      libHardware(f),
		Server:        libServer(f, log),
		Run:           libRun(f, log, filepath.Base(file)),
		Plan:          plan,
	}
	rep.Results = append(libPrefillResults(f), libDecodeResults(f, log)...)
	if missing := countStatus(rep.Results, engine.StatusNotRun); missing > 0 {
		rep.Run.Incomplete = fmt.Sprintf("the %s file has no result for %s (it was interrupted, or they were skipped)",
			libTool, engine.Count(missing, "cell", "cells"))
	} else {
		rep.Run.Complete = true
	}
	rep.Run.Notes = libNotes(f, rep)
	engine.BoundReport(&rep)
	return rep, checkRun(rep, file)
}

func libRun(f libFile, log libLog, file string) engine.RunInfo {
	m := f.Metadata
	run := engine.RunInfo{
		ServedModel:     m.Model,
		BenchmarkTool:   libTool + " " + m.Version,
		DecodeTest:      libDecodeTest(m.DecodeMode, m.RequestCount),
		PrefillMode:     libPrefillMode(m.PrefillMode, m.SkipPrefill),
		DurationS:       m.DurationPerTest,
		MaxOutputTokens: m.MaxTokens,
		Endpoint:        secret.URL(libServerURL(f)),
		Imported:        &engine.Import{Tool: libTool, Version: m.Version, File: file},
	}
	if t := localTime(m.Timestamp); !t.IsZero() {
		run.FinishedAt = t
		run.StartedAt = log.startOn(t)
	}
	return run
}

func libDecodeTest(mode string, requests int) string {
	switch mode {
	case "duration", "":
		return engine.DecodeTestFixedDuration
	case "request-count":
		return fmt.Sprintf("Request count: %s per cell (Burst / E2E)", engine.Count(requests, "request", "requests"))
	}
	return mode
}

func libPrefillMode(mode string, skipped bool) string {
	switch {
	case skipped || mode == "skipped":
		return "Skipped"
	case mode == "integrated_decode_scout":
		return "Measured by the decode scout request"
	case mode == "standalone_cold":
		return "Standalone cold prefill"
	}
	return mode
}

// libServerURL is the server's URL as the tool reached it.
func libServerURL(f libFile) string {
	if u := f.StartupDiagnostics.ServerURL; u != "" {
		return u
	}
	if s := f.Metadata.Server; s != "" && !strings.Contains(s, "://") {
		return "http://" + s
	}
	return f.Metadata.Server
}

func libPlan(f libFile) engine.Plan {
	m := f.Metadata
	p := engine.Plan{
		DecodeContexts:  slices.Clone(m.ContextLengths),
		Concurrency:     slices.Clone(m.ConcurrencyLevels),
		Duration:        engine.DurationOf(m.DurationPerTest),
		MaxOutputTokens: m.MaxTokens,
		KVBudgetTokens:  f.StartupDiagnostics.Args.KVBudget,
		PrefillContexts: libPrefillContexts(f),
	}
	return p
}

// libPrefillContexts are the contexts of the file's prefill object, in order.
func libPrefillContexts(f libFile) []int {
	var ctxs []int
	for k := range f.Prefill {
		if n, err := strconv.Atoi(k); err == nil {
			ctxs = append(ctxs, n)
		}
	}
	slices.Sort(ctxs)
	return ctxs
}

func countStatus(rs []engine.Result, s engine.Status) int {
	n := 0
	for _, r := range rs {
		if r.Status == s {
			n++
		}
	}
	return n
}
