package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"time"

	"speedmatrix/engine"
)

// vllmBenchFile is one run of `vllm bench serve --save-result` (vLLM 0.32's
// benchmarks/serve.py): its arguments, then benchmark_result's figures.
// --append-result writes one such object a line, a run each.
type vllmBenchFile struct {
	Date         string     `json:"date"` // local time, "20261206-235744"
	Backend      string     `json:"backend"`
	ModelID      string     `json:"model_id"`
	NumPrompts   int        `json:"num_prompts"`
	RequestRate  maybeFloat `json:"request_rate"` // a number, or "inf"
	Burstiness   maybeFloat `json:"burstiness"`   // 1: Poisson; Infinity: constant
	Concurrency  *int       `json:"max_concurrency"`
	Duration     float64    `json:"duration"`
	Completed    int        `json:"completed"`
	Failed       int        `json:"failed"`
	InputTokens  int        `json:"total_input_tokens"`
	OutputTokens int        `json:"total_output_tokens"`
	Throughput   float64    `json:"request_throughput"`
	Goodput      maybeFloat `json:"request_goodput"`
	OutputTokS   float64    `json:"output_throughput"`
	MostInFlight float64    `json:"max_concurrent_requests"`

	MeanTTFT   float64 `json:"mean_ttft_ms"`
	MedianTTFT float64 `json:"median_ttft_ms"`
	P90TTFT    float64 `json:"p90_ttft_ms"`
	P99TTFT    float64 `json:"p99_ttft_ms"`
	MeanTPOT   float64 `json:"mean_tpot_ms"`
	MedianTPOT float64 `json:"median_tpot_ms"`
	P90TPOT    float64 `json:"p90_tpot_ms"`
	P99TPOT    float64 `json:"p99_tpot_ms"`
	MeanITL    float64 `json:"mean_itl_ms"`
	MedianITL  float64 `json:"median_itl_ms"`
	P90ITL     float64 `json:"p90_itl_ms"`
	P99ITL     float64 `json:"p99_itl_ms"`
	MeanE2E    float64 `json:"mean_e2el_ms"`
	MedianE2E  float64 `json:"median_e2el_ms"`
	P90E2E     float64 `json:"p90_e2el_ms"`
	P99E2E     float64 `json:"p99_e2el_ms"`
}

// vllmBenchNotes say where vllm bench serve's figures differ from ours.
var vllmBenchNotes = []string{
	"vllm bench serve's TPOT excludes the first token, (E2E − TTFT) ÷ (output tokens − 1), as ours does.",
	"vllm bench serve's ITL is per chunk: a chunk of several tokens is one gap (ours: every gap between tokens, a chunk of k tokens k gaps of a k-th).",
	"vllm bench serve's TTFT and E2E count from when its client sent each request (ours: from the scheduled time); its duration runs from before its first request, which is due after one drawn gap.",
	"vllm bench serve writes the percentiles its --metric-percentiles asked for (99 by default) and the median: a p90 it did not write is shown as —.",
}

// decodeVLLMBench reads a vllm bench serve results file: one object, or
// one a line (--append-result), each a row of the load test.
func decodeVLLMBench(data []byte, file string) (engine.Report, error) {
	var runs []vllmBenchFile
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var f vllmBenchFile
		err := dec.Decode(&f)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return engine.Report{}, unreadable(file, vllmBenchTool, err)
		}
		if err := peerRows(file, vllmBenchTool, len(runs)+1); err != nil {
			return engine.Report{}, err
		}
		runs = append(runs, f)
	}
	p := peerRun{tool: vllmBenchTool, goodput: true, notes: vllmBenchNotes}
	for i, f := range runs {
		row := f.row()
		p.rows = append(p.rows, row)
		p.goodput = p.goodput && f.Goodput.ok
		if i == 0 {
			p.model = f.ModelID
			p.plan = engine.LoadPlan{Arrivals: row.Arrivals, Requests: f.NumPrompts, API: vllmBenchAPI(f.Backend)}
			if f.Concurrency != nil && row.Arrivals != engine.ArrivalsConcurrent {
				p.plan.MaxConcurrency = *f.Concurrency
			}
			if t, err := time.ParseInLocation("20060102-150405", f.Date, time.Local); err == nil {
				p.finished = t
			}
		}
		if row.Arrivals != engine.ArrivalsConcurrent && row.Arrivals != engine.ArrivalsBurst {
			p.plan.RatesRPS = append(p.plan.RatesRPS, row.RateRPS)
		}
	}
	if !p.goodput {
		for i := range p.rows {
			p.rows[i].GoodputRPS = 0
		}
	}
	return p.report(file)
}

// row is the run as a row: at its rate, its concurrency (a rate of inf
// with --max-concurrency), or a burst (inf without a cap).
func (f vllmBenchFile) row() engine.LoadResult {
	r := engine.LoadResult{
		RateRPS: f.RequestRate.v, Arrivals: vllmBenchArrivals(f.Burstiness),
		Requests: f.Completed + f.Failed, Completed: f.Completed, Failed: f.Failed, DurationS: f.Duration,
		RequestThroughputRPS: f.Throughput, OutputTokPerSec: f.OutputTokS, GoodputRPS: f.Goodput.v,
		InputTokens: f.InputTokens, OutputTokens: f.OutputTokens, MaxInFlight: count(f.MostInFlight),
		TTFTMs: engine.Percentiles{P50: f.MedianTTFT, P90: f.P90TTFT, P99: f.P99TTFT, Mean: f.MeanTTFT},
		TPOTMs: engine.Percentiles{P50: f.MedianTPOT, P90: f.P90TPOT, P99: f.P99TPOT, Mean: f.MeanTPOT},
		ITLMs:  engine.Percentiles{P50: f.MedianITL, P90: f.P90ITL, P99: f.P99ITL, Mean: f.MeanITL},
		E2EMs:  engine.Percentiles{P50: f.MedianE2E, P90: f.P90E2E, P99: f.P99E2E, Mean: f.MeanE2E},
	}
	if f.RequestRate.ok && math.IsInf(f.RequestRate.v, 1) {
		r.RateRPS, r.Arrivals = 0, engine.ArrivalsBurst
		if f.Concurrency != nil {
			r.Arrivals, r.Concurrency = engine.ArrivalsConcurrent, *f.Concurrency
		}
	}
	return r
}

// vllmBenchArrivals names the arrivals of a burstiness: 1 is Poisson, inf
// constant gaps, any other a gamma process.
func vllmBenchArrivals(b maybeFloat) engine.Arrivals {
	switch {
	case !b.ok || b.v == 1:
		return engine.ArrivalsPoisson
	case math.IsInf(b.v, 1):
		return engine.ArrivalsConstant
	}
	return "gamma"
}

// vllmBenchAPI is the API a backend sends to: "openai-chat" and the like
// chat, "vllm" and "openai" completions.
func vllmBenchAPI(backend string) engine.API {
	switch backend {
	case "vllm", "openai":
		return engine.APICompletions
	case "openai-chat", "vllm-chat":
		return engine.APIChat
	}
	return ""
}
