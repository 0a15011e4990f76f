package report

import (
	"fmt"

	"speedmatrix/engine"
)

// inferencePerfFile is one stage's lifecycle report of inference-perf
// (stage_N_lifecycle_metrics.json, inference-perf 0.7): what its load
// offered and what its successful requests did, latencies in seconds. It
// names neither its version nor the model.
type inferencePerfFile struct {
	DurationS float64 `json:"benchmark_time_seconds"`
	Load      struct {
		Count         int         `json:"count"`
		RequestedRate *maybeFloat `json:"requested_rate"`
		Concurrency   int         `json:"concurrency"`
	} `json:"load_summary"`
	Successes struct {
		Count   int `json:"count"`
		Latency struct {
			Request inferencePerfStat `json:"request_latency"`
			TPOT    inferencePerfStat `json:"time_per_output_token"`
			TTFT    inferencePerfStat `json:"time_to_first_token"`
			ITL     inferencePerfStat `json:"inter_token_latency"`
		} `json:"latency"`
		Throughput struct {
			OutputTokS  float64 `json:"output_tokens_per_sec"`
			RequestsPer float64 `json:"requests_per_sec"`
		} `json:"throughput"`
		PromptTokens struct {
			Total float64 `json:"total"`
		} `json:"prompt_tokens"`
		OutputTokens struct {
			Total float64 `json:"total"`
		} `json:"output_tokens"`
	} `json:"successes"`
	Failures struct {
		Count int `json:"count"`
	} `json:"failures"`
}

// inferencePerfStat is a latency's summary, in seconds.
type inferencePerfStat struct {
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
}

func (s inferencePerfStat) percentiles() engine.Percentiles {
	return msPercentiles(engine.Percentiles{P50: s.Median, P90: s.P90, P99: s.P99, Mean: s.Mean})
}

// inferencePerfNotes say where inference-perf's figures differ from ours.
var inferencePerfNotes = []string{
	"inference-perf's TPOT is each request's (last token − first token) ÷ (output tokens − 1), as ours; its tokens are the text re-tokenized by its client unless its report was told to use the server's count (use_server_output_tokens, which the rig sets).",
	"inference-perf's ITL is every gap between the times its tokens arrived: the tokens of one chunk share its time, so a chunk of k tokens is one gap and k − 1 gaps of 0 (ours: k gaps of a k-th).",
	"inference-perf's TTFT and E2E count from when its client sent each request (ours: from the scheduled time); its throughputs are over the stage's duration.",
	"The inference-perf file is one stage: its other stages are files of their own.",
}

// decodeInferencePerf reads one stage's lifecycle report: one row, at the
// stage's rate or concurrency.
func decodeInferencePerf(data []byte, file string) (engine.Report, error) {
	f, err := decodePeer[inferencePerfFile](data, file, inferencePerfTool)
	if err != nil {
		return engine.Report{}, err
	}
	if f.Load.RequestedRate == nil {
		return engine.Report{}, fmt.Errorf("%s is inference-perf's summary over all its stages, which has no rate: import one stage's report (stage_0_lifecycle_metrics.json)", file)
	}
	s := f.Successes
	row := engine.LoadResult{
		RateRPS:  f.Load.RequestedRate.v,
		Requests: f.Load.Count, Completed: s.Count, Failed: f.Failures.Count, DurationS: f.DurationS,
		RequestThroughputRPS: s.Throughput.RequestsPer, OutputTokPerSec: s.Throughput.OutputTokS,
		InputTokens: count(s.PromptTokens.Total), OutputTokens: count(s.OutputTokens.Total),
		TTFTMs: s.Latency.TTFT.percentiles(), TPOTMs: s.Latency.TPOT.percentiles(),
		ITLMs: s.Latency.ITL.percentiles(), E2EMs: s.Latency.Request.percentiles(),
	}
	p := peerRun{tool: inferencePerfTool, notes: inferencePerfNotes}
	if f.Load.Concurrency > 0 {
		row.RateRPS, row.Arrivals, row.Concurrency = 0, engine.ArrivalsConcurrent, f.Load.Concurrency
	} else {
		// Whether Poisson or constant is in its config, not in the stage's file.
		p.plan.RatesRPS = []float64{row.RateRPS}
	}
	p.plan.Arrivals, p.plan.Requests = row.Arrivals, row.Requests
	p.rows = []engine.LoadResult{row}
	return p.report(file)
}
