package charts

import (
	"fmt"
	"math"
	"slices"

	"speedmatrix/engine"
	"speedmatrix/engine/sweep"
)

// testConfig is a configuration of a made-up sweep: how fast it runs each
// cell relative to a common curve, and how many tokens fit its KV cache.
type testConfig struct {
	cfg       sweep.Config
	speed     func(ctx, conc int) float64
	capTokens int
}

// sweepCIPct is every made-up entry's 95 % half-width: two runs' noise is twice it.
const sweepCIPct = 3.0

// makeSweep is a sweep of cs over 8K–128K × 1–128, with the answer worked
// out as sweep.json holds it: per cell the fastest Valid configuration and
// its margins, "no difference" within both runs' noise.
func makeSweep(cs []testConfig, simulated bool) sweep.Sweep {
	s := sweep.Sweep{FormatVersion: 1, Server: "server.toml", Simulated: simulated, Answer: &sweep.Answer{}}
	s.Plan.DecodeContexts = []int{8 * engine.K, 16 * engine.K, 32 * engine.K, 64 * engine.K, 128 * engine.K}
	s.Plan.Concurrency = []int{1, 2, 4, 8, 16, 32, 64, 128}
	for _, c := range cs {
		s.Configs = append(s.Configs, c.cfg)
	}
	for _, ctx := range s.Plan.DecodeContexts {
		for _, n := range s.Plan.Concurrency {
			s.Answer.Cells = append(s.Answer.Cells, answerCell(cs, ctx, n))
		}
	}
	return s
}

func answerCell(cs []testConfig, ctx, n int) sweep.CellAnswer {
	c := sweep.CellAnswer{ContextTokens: ctx, Concurrency: n, Label: engine.ContextLabel(ctx) + " × " + fmt.Sprint(n)}
	for _, tc := range cs {
		e := sweep.Entry{Config: tc.cfg.Name}
		switch {
		case tc.cfg.Status == sweep.StatusFailed:
		case ctx*n > tc.capTokens:
			e.Status = engine.StatusOverCapacity
		default:
			e.Status, e.TokS, e.CIPct = engine.StatusValid, 60*math.Pow(float64(n), 0.8)*(1-float64(ctx)/(300*engine.K))*tc.speed(ctx, n), sweepCIPct
		}
		c.Entries = append(c.Entries, e)
	}
	valid := slices.DeleteFunc(slices.Clone(c.Entries), func(e sweep.Entry) bool { return e.Status != engine.StatusValid })
	slices.SortStableFunc(valid, func(a, b sweep.Entry) int { return int(math.Copysign(1, b.TokS-a.TokS)) })
	if len(valid) == 0 {
		return c
	}
	best := valid[0]
	c.Best = best.Config
	margin := func(of sweep.Entry) *sweep.Margin {
		if of.Status != engine.StatusValid {
			return &sweep.Margin{Of: of.Config, Status: of.Status}
		}
		g := best.TokS/of.TokS - 1
		return &sweep.Margin{Of: of.Config, Gain: g, NoisePct: 2 * sweepCIPct, NoDifference: 100*g <= 2*sweepCIPct}
	}
	if base := c.Entries[0]; best.Config != base.Config {
		c.OverBaseline = margin(base)
	}
	if len(valid) > 1 {
		c.OverRunnerUp = margin(valid[1])
	}
	return c
}

// exampleConfigs are the four configurations of the example picture: the
// baseline, more sequences (faster with many requests), a three-key
// variant that changes the output and fits twice the tokens, and one that
// failed to start.
func exampleConfigs() []testConfig {
	return []testConfig{
		{cfg: sweep.Config{Name: sweep.BaselineName, Folder: "baseline", Baseline: true, Status: sweep.StatusDone},
			speed: func(int, int) float64 { return 1 }, capTokens: 1024 * engine.K},
		{cfg: sweep.Config{Name: "max_num_seqs=64", Folder: "max_num_seqs=64", Status: sweep.StatusDone, Settings: settings("max_num_seqs", "64")},
			speed: func(_, n int) float64 { return 0.9 + 0.05*math.Log2(float64(n)) }, capTokens: 1024 * engine.K},
		{cfg: sweep.Config{Name: "max_num_seqs=64 enforce_eager=true kv_cache_dtype=fp8", Folder: "max_num_seqs=64_enforce_eager=true_kv_cache_dtype=fp8",
			Status: sweep.StatusDone, ChangesOutput: []string{"kv_cache_dtype"}, Settings: settings("max_num_seqs", "64", "enforce_eager", "true", "kv_cache_dtype", `"fp8"`)},
			speed: func(ctx, n int) float64 { return 0.92 + 0.03*math.Log2(float64(n)) + float64(ctx)/(1024*engine.K) }, capTokens: 2048 * engine.K},
		{cfg: sweep.Config{Name: "gpu_memory_utilization=0.98", Folder: "gpu_memory_utilization=0.98", Status: sweep.StatusFailed, Settings: settings("gpu_memory_utilization", "0.98"),
			Reason: "CUDA out of memory: tried to allocate 2.00 GiB"}},
	}
}

// manyConfigs is the baseline and n−1 variants of four keys each, whose
// winners spread over the grid.
func manyConfigs(n int) []testConfig {
	cs := exampleConfigs()[:1]
	for i := 1; i < n; i++ {
		seqs, eager, dtype, util := fmt.Sprint(1<<(i%8+1)), fmt.Sprint(i%2 == 0), []string{"auto", "fp8"}[i/8%2], fmt.Sprintf("0.%d", 80+i)
		name := "max_num_seqs=" + seqs + " enforce_eager=" + eager + " kv_cache_dtype=" + dtype + " gpu_memory_utilization=" + util
		cfg := sweep.Config{Name: name, Folder: fmt.Sprintf("c%02d", i), Status: sweep.StatusDone,
			Settings: settings("max_num_seqs", seqs, "enforce_eager", eager, "kv_cache_dtype", `"`+dtype+`"`, "gpu_memory_utilization", util)}
		if i >= 8 {
			cfg.ChangesOutput = []string{"kv_cache_dtype"}
		}
		peak := float64(int(1) << (i%8 + 1))
		cs = append(cs, testConfig{cfg: cfg, capTokens: (512 + 128*i) * engine.K,
			speed: func(_, conc int) float64 { return 1.3 - 0.1*math.Abs(math.Log2(float64(conc)/peak)) + 0.002*float64(i) }})
	}
	return cs
}

// settings pairs keys and values, values written as in TOML.
func settings(kv ...string) []sweep.Setting {
	var ss []sweep.Setting
	for i := 0; i+1 < len(kv); i += 2 {
		ss = append(ss, sweep.Setting{Key: kv[i], Value: kv[i+1]})
	}
	return ss
}
