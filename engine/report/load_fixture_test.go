package report

import (
	"math"
	"time"

	"speedmatrix/engine"
)

// loadRate is one rate of a fixture: what a queue with a capacity near
// 6.4 requests per second does at that rate.
type loadRate struct {
	rate, throughput, goodput float64
	ttft, tpot, itl, e2e      [3]float64 // p50, p90, p99 in ms
	drainS, behindMs          float64
	inFlight, preemptions     int
	serverTokS, serverActive  float64
}

// simulatedRates are rates 1–16 against the simulator's tiny profile, whose
// capacity is about 6.4 requests per second of 1,024 in and 256 out: below
// it the latencies barely move; past it TTFT climbs with the queue, the
// throughput levels off and the goodput falls.
var simulatedRates = []loadRate{
	{rate: 1, throughput: 0.987, goodput: 0.987, ttft: [3]float64{42.1, 55.3, 71.8}, tpot: [3]float64{12.1, 12.6, 13.4},
		itl: [3]float64{12.0, 13.1, 15.2}, e2e: [3]float64{3128, 3266, 3502}, drainS: 0.2, behindMs: 0.4, inFlight: 7, serverTokS: 253.9, serverActive: 3.1},
	{rate: 2, throughput: 1.944, goodput: 1.944, ttft: [3]float64{48.4, 66.0, 95.2}, tpot: [3]float64{13.0, 13.8, 15.1},
		itl: [3]float64{12.8, 14.6, 17.9}, e2e: [3]float64{3363, 3610, 3902}, drainS: 0.2, behindMs: 0.6, inFlight: 12, serverTokS: 499.1, serverActive: 6.5},
	{rate: 4, throughput: 3.714, goodput: 3.714, ttft: [3]float64{61.0, 98.4, 162.5}, tpot: [3]float64{15.6, 16.9, 18.8},
		itl: [3]float64{15.2, 18.4, 24.6}, e2e: [3]float64{4040, 4421, 4893}, drainS: 0.3, behindMs: 0.9, inFlight: 23, serverTokS: 955.2, serverActive: 15.0},
	{rate: 8, throughput: 6.210, goodput: 3.230, ttft: [3]float64{1840, 4620, 6120}, tpot: [3]float64{24.5, 26.2, 28.9},
		itl: [3]float64{23.8, 29.5, 41.2}, e2e: [3]float64{8080, 10905, 12604}, drainS: 0.4, behindMs: 1.2, inFlight: 64, preemptions: 14,
		serverTokS: 1601.4, serverActive: 41.7},
	{rate: 16, throughput: 6.320, goodput: 0.610, ttft: [3]float64{9850, 17400, 19900}, tpot: [3]float64{26.1, 27.8, 30.5},
		itl: [3]float64{25.2, 31.0, 44.9}, e2e: [3]float64{16502, 24310, 27105}, drainS: 0.5, behindMs: 212.0, inFlight: 64, preemptions: 31,
		serverTokS: 1630.0, serverActive: 44.2},
}

// loadResult is a Valid rate of requests of 1,024 in and 256 out.
func loadResult(at time.Time, lr loadRate, requests int, arrivals engine.Arrivals) engine.LoadResult {
	const out = 256
	pct := func(v [3]float64, n int) engine.Percentiles {
		return engine.Percentiles{P50: v[0], P90: v[1], P99: v[2], Mean: (v[0] + v[1]) / 2, N: n}
	}
	dur := math.Round(float64(requests)/lr.throughput*1000) / 1000
	res := engine.LoadResult{
		RateRPS: lr.rate, Arrivals: arrivals, Status: engine.StatusValid,
		Requests: requests, Completed: requests, DurationS: dur,
		RequestThroughputRPS: lr.throughput, OutputTokPerSec: lr.throughput * out, InputTokens: requests * 1024, OutputTokens: requests * out,
		TTFTMs: pct(lr.ttft, requests), TPOTMs: pct(lr.tpot, requests), ITLMs: pct(lr.itl, requests*(out-1)), E2EMs: pct(lr.e2e, requests),
		GoodputRPS: lr.goodput, BehindMs: lr.behindMs, MaxInFlight: lr.inFlight, DrainS: lr.drainS,
		Server:    &engine.ServerCheck{Samples: int(dur * 4), Active: lr.serverActive, ActiveMedian: lr.serverActive, TokPerSec: lr.serverTokS, TokSource: "vllm:generation_tokens_total", Preemptions: lr.preemptions},
		StartedAt: at, FinishedAt: at.Add(time.Duration(dur * float64(time.Second))),
	}
	if lr.preemptions > 0 {
		res.Flags = append(res.Flags, engine.Flag{Kind: engine.FlagPreempted, Message: "preempted " + Int(lr.preemptions) + " times: KV cache pressure"})
	}
	if lr.behindMs >= 100 {
		res.Flags = append(res.Flags, engine.Flag{Kind: "behind_schedule", Message: "the client sent up to 212 ms after the schedule: its latencies still count from the schedule"})
	}
	return res
}

// loadReport is a simulated load test at 1, 2, 4, 8 and 16 requests per
// second, Poisson, 200 requests each, with an SLO; past saturation (8 and
// 16) its rates are flagged.
func loadReport() engine.Report {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	plan := engine.LoadPlan{RatesRPS: []float64{1, 2, 4, 8, 16}, Arrivals: engine.ArrivalsPoisson, Requests: 200, MaxConcurrency: 64,
		InputTokens: engine.TokenRange{Min: 1024, Max: 1024}, OutputTokens: engine.TokenRange{Min: 256, Max: 256}, Seed: 42, API: "chat",
		SLO: engine.SLO{TTFT: 2 * time.Second, ITL: 50 * time.Millisecond}}
	var results []engine.LoadResult
	for _, lr := range simulatedRates {
		res := loadResult(at, lr, 200, engine.ArrivalsPoisson)
		at = res.FinishedAt.Add(2 * time.Second)
		results = append(results, res)
	}
	return engine.Report{
		SchemaVersion: engine.SchemaVersion,
		Hardware:      engine.HardwareInfo{Whose: engine.HardwareOfSimulator, OS: "linux"},
		Server:        engine.ServerInfo{Name: "vllm", Version: "0.32.0", Simulated: true, SimProfile: "tiny", MaxModelLen: 8192, KVCacheTokens: 98304, MaxNumSeqs: 64},
		Run: engine.RunInfo{Model: "tiny", ServedModel: "tiny", BenchmarkTool: "speedmatrix v0.1.0", API: "chat", Endpoint: "sim:tiny",
			StartedAt: results[0].StartedAt, FinishedAt: at, Complete: true},
		LaunchCommand: "speedmatrix sim --profile tiny",
		Load:          &engine.LoadSection{Plan: plan, Results: results},
	}
}

// loadFailedReport is a real server's sweep: its limit measured first,
// three rates, the last Failed, one throttled and one with too few samples
// for its p99.
func loadFailedReport() engine.Report {
	r := loadReport()
	r.Server.Simulated, r.Server.SimProfile = false, ""
	r.Hardware = engine.HardwareInfo{Whose: engine.HardwareOfServer, Type: "Discrete GPU", OS: "linux",
		GPUs: []engine.GPUInfo{{Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30}}}
	r.Run.Endpoint, r.Run.Complete = "http://user:secret@gpu-box:8000", false
	r.Run.Incomplete = "the server stopped answering at 6.4 req/s"
	r.LaunchCommand = "vllm serve tiny --api-key <redacted>"
	l := r.Load
	l.Plan.RatesRPS, l.Plan.Sweep, l.Plan.SweepRates, l.Plan.Requests = nil, true, 3, 60
	l.Plan.InputTokens, l.Plan.OutputTokens = engine.TokenRange{Min: 512, Max: 2048}, engine.TokenRange{Min: 128, Max: 384}
	l.Plan.Arrivals, l.Plan.Dataset, l.Plan.SLO = engine.ArrivalsConstant, "prompts.jsonl", engine.SLO{TTFT: 2 * time.Second, Percentile: 90}
	l.LimitRPS = 6.42
	at := r.Run.StartedAt
	l.Results = nil
	for i, rate := range []float64{2.14, 4.28, 6.42} {
		lr := simulatedRates[i+1] // 2, 4 and 8 req/s, the nearest
		lr.rate, lr.throughput = rate, rate*0.97
		lr.goodput, lr.serverTokS = lr.throughput, lr.throughput*256*1.004
		res := loadResult(at, lr, 60, engine.ArrivalsConstant)
		at = res.FinishedAt.Add(2 * time.Second)
		l.Results = append(l.Results, res)
	}
	r.Run.FinishedAt = at
	l.Results[1].Telemetry = &engine.Telemetry{Throttle: &engine.Throttle{Verdict: engine.ThrottlePowerCap, Samples: 40,
		Reasons: []engine.ThrottleReason{{Reason: engine.ThrottlePowerCap, Share: 0.35, GPUs: []int{0}, PerGPU: []engine.GPUShare{{Index: 0, Share: 0.35}}}}}}
	l.Results[1].Flags = []engine.Flag{{Kind: engine.FlagThrottled, Message: "GPU 0 throttled: power cap, 35 % of the window"}}
	failed := &l.Results[2]
	failed.Status, failed.Error, failed.Completed, failed.Failed = engine.StatusFailed, "POST /v1/chat/completions: connection refused: is the server still running?", 22, 38
	failed.Flags = []engine.Flag{{Kind: engine.FlagNotDrained, Message: "not drained: 12 requests still running 30 s after the rate"}}
	failed.Server.NotComparable = "the server restarted"
	return r
}
