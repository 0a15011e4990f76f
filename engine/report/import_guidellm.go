package report

import (
	"encoding/json"
	"math"
	"time"

	"speedmatrix/engine"
)

// guideLLMFile is GuideLLM's benchmarks report (`--outputs json`,
// benchmarks.json; GuideLLM 0.8's GenerativeBenchmarksReport): its
// version, and one benchmark per strategy it ran. The benchmarks are kept
// raw until counted (peerRows): each holds every request it sent.
type guideLLMFile struct {
	Metadata struct {
		Version string `json:"guidellm_version"`
	} `json:"metadata"`
	Benchmarks []json.RawMessage `json:"benchmarks"`
}

// guideLLMBenchmark is the part of one benchmark a row needs.
type guideLLMBenchmark struct {
	Config struct {
		Strategy struct {
			Type           string     `json:"type_"` // synchronous, concurrent, throughput, constant, poisson
			Rate           maybeFloat `json:"rate"`
			Streams        int        `json:"streams"`
			MaxConcurrency int        `json:"max_concurrency"`
		} `json:"strategy"`
		Backend struct {
			Target string `json:"target"`
			Model  string `json:"model"`
		} `json:"backend"`
	} `json:"config"`
	Metrics struct {
		Totals struct {
			Successful int `json:"successful"`
			Errored    int `json:"errored"`
			Incomplete int `json:"incomplete"`
			Total      int `json:"total"`
		} `json:"request_totals"`
		RequestsPerSecond guideLLMStat  `json:"requests_per_second"`
		Concurrency       guideLLMStat  `json:"request_concurrency"`
		Latency           guideLLMStat  `json:"request_latency"` // seconds
		PromptTokens      guideLLMStat  `json:"prompt_token_count"`
		OutputTokens      guideLLMStat  `json:"output_token_count"`
		TTFT              guideLLMStat  `json:"time_to_first_token_ms"`
		ITL               guideLLMStat  `json:"inter_token_latency_ms"`
		OutputTokS        guideLLMStat  `json:"output_tokens_per_second"`
		Goodput           *guideLLMStat `json:"request_goodput"`
	} `json:"metrics"`
	Duration  float64 `json:"duration"`
	StartTime float64 `json:"start_time"` // Unix seconds
	EndTime   float64 `json:"end_time"`
}

// guideLLMStat is a StatusDistributionSummary: its successful requests'
// distribution is what the console prints.
type guideLLMStat struct {
	Successful struct {
		Mean        float64 `json:"mean"`
		Median      float64 `json:"median"`
		Max         float64 `json:"max"`
		Count       int     `json:"count"`
		TotalSum    float64 `json:"total_sum"`
		Percentiles struct {
			P50 float64 `json:"p50"`
			P90 float64 `json:"p90"`
			P99 float64 `json:"p99"`
		} `json:"percentiles"`
	} `json:"successful"`
}

// percentiles are the successful requests' p50, p90, p99 and mean.
func (s guideLLMStat) percentiles() engine.Percentiles {
	d := s.Successful
	return engine.Percentiles{P50: d.Percentiles.P50, P90: d.Percentiles.P90, P99: d.Percentiles.P99, Mean: d.Mean, N: d.Count}
}

// guideLLMNotes say where GuideLLM's figures differ from ours.
var guideLLMNotes = []string{
	"GuideLLM's ITL is each request's (E2E − TTFT) ÷ (output tokens − 1), its distribution weighted by each request's gaps: it is imported as TPOT, which ours defines the same per request; ITL (every gap between tokens) is not in the file.",
	"GuideLLM's TPOT is E2E ÷ output tokens, the first token's wait included: it has no figure of ours and is not imported.",
	"GuideLLM's requests per second and output tok/s are its successful requests and their tokens over its benchmark's duration, from its first request's start to its last one's end; its TTFT and E2E count from when each request started (ours: from the scheduled time).",
}

// decodeGuideLLM reads a GuideLLM benchmarks report: a row per benchmark.
func decodeGuideLLM(data []byte, file string) (engine.Report, error) {
	f, err := decodePeer[guideLLMFile](data, file, guideLLMTool)
	if err != nil {
		return engine.Report{}, err
	}
	if err := peerRows(file, guideLLMTool, len(f.Benchmarks)); err != nil {
		return engine.Report{}, err
	}
	p := peerRun{tool: guideLLMTool, version: f.Metadata.Version, goodput: len(f.Benchmarks) > 0, notes: guideLLMNotes}
	for i, raw := range f.Benchmarks {
		b, err := decodePeer[guideLLMBenchmark](raw, file, guideLLMTool)
		if err != nil {
			return engine.Report{}, err
		}
		row := b.row()
		p.rows = append(p.rows, row)
		p.goodput = p.goodput && b.Metrics.Goodput != nil
		if i == 0 {
			p.model, p.endpoint = b.Config.Backend.Model, b.Config.Backend.Target
			p.plan = engine.LoadPlan{Arrivals: row.Arrivals, Requests: row.Requests}
		}
		if row.Arrivals == engine.ArrivalsPoisson || row.Arrivals == engine.ArrivalsConstant {
			p.plan.RatesRPS = append(p.plan.RatesRPS, row.RateRPS)
		}
		if i == 0 {
			p.started = unixTime(b.StartTime)
		}
		p.finished = unixTime(b.EndTime)
	}
	return p.report(file)
}

// row is one benchmark as a row: a rate for constant and Poisson, a
// concurrency for concurrent (its streams), synchronous (1) and
// throughput (its cap; every request at once without one).
func (b guideLLMBenchmark) row() engine.LoadResult {
	m := b.Metrics
	r := engine.LoadResult{
		Requests: m.Totals.Total, Completed: m.Totals.Successful, Failed: m.Totals.Errored, DurationS: b.Duration,
		RequestThroughputRPS: m.RequestsPerSecond.Successful.Mean, OutputTokPerSec: m.OutputTokS.Successful.Mean,
		InputTokens: count(m.PromptTokens.Successful.TotalSum), OutputTokens: count(m.OutputTokens.Successful.TotalSum),
		MaxInFlight: count(m.Concurrency.Successful.Max),
		TTFTMs:      m.TTFT.percentiles(), TPOTMs: m.ITL.percentiles(),
		E2EMs: msPercentiles(m.Latency.percentiles()),
	}
	if g := m.Goodput; g != nil {
		r.GoodputRPS = g.Successful.Mean
	}
	s := b.Config.Strategy
	switch s.Type {
	case "constant", "poisson":
		r.Arrivals, r.RateRPS = engine.Arrivals(s.Type), s.Rate.v
	case "synchronous":
		r.Arrivals, r.Concurrency = engine.ArrivalsConcurrent, 1
	case "concurrent":
		r.Arrivals, r.Concurrency = engine.ArrivalsConcurrent, s.Streams
	case "throughput":
		r.Arrivals, r.Concurrency = engine.ArrivalsConcurrent, s.MaxConcurrency
		if s.MaxConcurrency == 0 {
			r.Arrivals = engine.ArrivalsBurst
		}
	default:
		r.Arrivals = engine.Arrivals(s.Type)
	}
	return r
}

// unixTime is a time GuideLLM writes, Unix seconds; zero for none or one
// past the year 5000.
func unixTime(s float64) time.Time {
	if !(s > 0 && s < 1e11) {
		return time.Time{}
	}
	sec, frac := math.Modf(s)
	return time.Unix(int64(sec), int64(frac*1e9))
}
