package report

import (
	"speedmatrix/engine"
)

// aiperfFile is AIPerf's profile export (profile_export_aiperf.json,
// AIPerf 0.13, its schema 1.4): one profiling run, each metric an object
// of its unit and statistics, and the configuration it ran with.
type aiperfFile struct {
	Version      string       `json:"aiperf_version"`
	Throughput   aiperfMetric `json:"request_throughput"`
	Latency      aiperfMetric `json:"request_latency"`
	TTFT         aiperfMetric `json:"time_to_first_token"`
	ITL          aiperfMetric `json:"inter_token_latency"`
	InterChunk   aiperfMetric `json:"inter_chunk_latency"`
	OutputTokS   aiperfMetric `json:"output_token_throughput"`
	Goodput      *aiperfStat  `json:"goodput"`
	Requests     aiperfMetric `json:"request_count"` // successful
	Errors       aiperfMetric `json:"error_request_count"`
	OutputTokens aiperfMetric `json:"total_output_tokens"`
	InputTokens  aiperfMetric `json:"total_isl"`
	Duration     aiperfMetric `json:"benchmark_duration"` // seconds
	StartTime    string       `json:"start_time"`         // local time, no zone
	EndTime      string       `json:"end_time"`
	Config       struct {
		Models struct {
			Items []struct {
				Name string `json:"name"`
			} `json:"items"`
		} `json:"models"`
		Endpoint struct {
			URLs []string `json:"urls"`
			Type string   `json:"type"`
		} `json:"endpoint"`
		Phases []aiperfPhase `json:"phases"`
	} `json:"input_config"`
}

// aiperfPhase is one phase of AIPerf's load: warm-up or profiling.
type aiperfPhase struct {
	Kind        string     `json:"kind"` // "warmup", "profiling"
	Type        string     `json:"type"` // "concurrency", "poisson", "constant", …
	Requests    int        `json:"requests"`
	Rate        maybeFloat `json:"rate"`
	Concurrency int        `json:"concurrency"`
}

// aiperfMetric is a metric's statistics; one that is a single figure
// (a throughput, a count) has only avg.
type aiperfMetric struct {
	aiperfStat
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Count int     `json:"count"`
}

// aiperfStat is a single figure: its avg.
type aiperfStat struct {
	Avg float64 `json:"avg"`
}

func (m aiperfMetric) percentiles() engine.Percentiles {
	return engine.Percentiles{P50: m.P50, P90: m.P90, P99: m.P99, Mean: m.Avg, N: m.Count}
}

// aiperfNotes say where AIPerf's figures differ from ours.
var aiperfNotes = []string{
	"AIPerf's inter-token latency is each request's (E2E − TTFT) ÷ (output tokens − 1): it is imported as TPOT, which ours defines the same.",
	"AIPerf's inter-chunk latency is imported as ITL: it is per chunk, a chunk of several tokens one gap (ours: every gap between tokens, a chunk of k tokens k gaps of a k-th).",
	"AIPerf's TTFT and E2E count from when its client sent each request (ours: from the scheduled time); its throughputs are over its benchmark's duration, warm-up left out.",
}

// decodeAIPerf reads AIPerf's profile export: one row, at the profiling
// phase's rate or concurrency.
func decodeAIPerf(data []byte, file string) (engine.Report, error) {
	f, err := decodePeer[aiperfFile](data, file, aiperfTool)
	if err != nil {
		return engine.Report{}, err
	}
	c := f.Config
	if err := peerRows(file, aiperfTool, len(c.Phases)); err != nil {
		return engine.Report{}, err
	}
	ok := count(f.Requests.Avg)
	row := engine.LoadResult{
		Completed: ok, Failed: count(f.Errors.Avg), DurationS: f.Duration.Avg,
		RequestThroughputRPS: f.Throughput.Avg, OutputTokPerSec: f.OutputTokS.Avg,
		InputTokens: count(f.InputTokens.Avg), OutputTokens: count(f.OutputTokens.Avg),
		TTFTMs: f.TTFT.percentiles(), TPOTMs: f.ITL.percentiles(), ITLMs: f.InterChunk.percentiles(), E2EMs: f.Latency.percentiles(),
	}
	p := peerRun{tool: aiperfTool, version: f.Version, goodput: f.Goodput != nil, notes: aiperfNotes}
	if f.Goodput != nil {
		row.GoodputRPS = f.Goodput.Avg
	}
	for _, ph := range c.Phases {
		if ph.Kind != "profiling" {
			continue
		}
		switch {
		case ph.Type == "concurrency" || (!ph.Rate.ok && ph.Concurrency > 0):
			row.Arrivals, row.Concurrency = engine.ArrivalsConcurrent, ph.Concurrency
		default:
			row.Arrivals, row.RateRPS = engine.Arrivals(ph.Type), ph.Rate.v
			p.plan.RatesRPS = []float64{ph.Rate.v}
			p.plan.MaxConcurrency = ph.Concurrency
		}
		p.plan.Requests = ph.Requests
	}
	p.plan.Arrivals = row.Arrivals
	p.plan.API = engine.API(c.Endpoint.Type)
	if p.plan.API != engine.APIChat && p.plan.API != engine.APICompletions {
		p.plan.API = ""
	}
	if len(c.Models.Items) > 0 {
		p.model = c.Models.Items[0].Name
	}
	if len(c.Endpoint.URLs) > 0 {
		p.endpoint = c.Endpoint.URLs[0]
	}
	p.started, p.finished = localTime(f.StartTime), localTime(f.EndTime)
	p.rows = []engine.LoadResult{row}
	return p.report(file)
}
