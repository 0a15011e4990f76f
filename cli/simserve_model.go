package cli

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"speedmatrix/engine/launch"
	"speedmatrix/engine/sim"
)

// The stand-in's speed model: how the flags of `vllm serve` change the
// simulator profile it serves (simServeUsage says the same to users).
const (
	// eagerDecodeFactor: without CUDA graphs (--enforce-eager) every
	// decode step launches its kernels one by one, 25 % slower.
	eagerDecodeFactor = 1.25
	// fp8DecodeFactor and fp8KVBytesFactor: an FP8 KV cache
	// (--kv-cache-dtype fp8…) takes half the bytes a token, so the same
	// memory holds twice the tokens and attention reads less: decode
	// steps 5 % faster.
	fp8DecodeFactor  = 0.95
	fp8KVBytesFactor = 0.5
	// oomUtilization: from this --gpu-memory-utilization up, nothing is
	// left for CUDA graphs and the sampler's warm-up, and start-up fails
	// out of memory as vLLM's does.
	oomUtilization = 0.99
	// startupGraphs and startupEager are how long a start takes (model
	// time, divided by the time scale): capturing CUDA graphs takes the
	// difference.
	startupGraphs = launch.StandInStartup // what a sweep's estimate assumes of the stand-in
	startupEager  = startupGraphs / 2
	// defaultSimProfile is the profile served without --sim-profile.
	defaultSimProfile = "tiny"
)

// startFailure is how a start of vLLM with these settings fails; 0 if it
// does not.
type startFailure int

const (
	startsFine      startFailure = iota
	failOutOfMemory              // the sampler's warm-up runs out of GPU memory
	failNoKVMemory               // the weights and activations leave the KV cache nothing
	failKVTooSmall               // the KV cache cannot hold one request of max_model_len
)

// standIn is what the stand-in serves for a command line: the profile
// after the speed model, its KV cache memory and weights, how long it
// takes to start, and how vLLM would fail to start, if it would.
type standIn struct {
	profile      sim.Profile
	kvMemBytes   float64 // what vLLM logs as Available KV cache memory
	weightsBytes float64 // each GPU's share of the weights
	utilization  float64 // the --gpu-memory-utilization in force
	// kvBytesFactor is a token's KV bytes against the profile's (0.5: FP8).
	kvBytesFactor float64
	startup       time.Duration
	failure       startFailure
	// fitTokens is the KV cache in tokens, also when too small to start.
	fitTokens int
	// numerics and maxLogprobs are what the served model computes: its
	// logprobs drift from the reference's under --dtype, --kv-cache-dtype
	// and --quantization (engine/sim's drift.go), whatever the speed model
	// makes of them.
	numerics    sim.Numerics
	maxLogprobs int
}

// standInFor applies the speed model to the profile --sim-profile names
// (tiny without it). It returns an *argError for a profile it does not know.
func standInFor(a serveArgs) (standIn, error) {
	p, err := sim.LookupProfile(cmp.Or(a.simProfile, defaultSimProfile))
	if err != nil {
		return standIn{}, &argError{"argument --sim-profile: " + err.Error()}
	}
	p.Model = a.model
	p.ServedModel = cmp.Or(a.served, a.model)
	p.MaxModelLen = cmp.Or(a.maxModelLen, p.MaxModelLen)
	p.MaxNumSeqs = cmp.Or(a.maxNumSeqs, p.MaxNumSeqs)
	// vLLM wants a step's token budget to hold one token of every sequence.
	p.MaxBatchedTokens = max(cmp.Or(a.maxBatchedTokens, p.MaxBatchedTokens), p.MaxNumSeqs)
	p.Quantization = cmp.Or(a.quantization, p.Quantization)
	p.NoPrefixCaching = a.noPrefixCaching
	s := standIn{startup: startupGraphs, utilization: cmp.Or(a.gpuMemoryUtilization, p.GPUMemoryUtilization()),
		numerics:    sim.Numerics{DType: a.dtype, KVCacheDType: a.kvCacheDType, Quantization: a.quantization},
		maxLogprobs: cmp.Or(a.maxLogprobs, sim.DefaultMaxLogprobs)}
	if err := checkNumerics(s.numerics, true); err != nil {
		return standIn{}, err
	}
	if !maxLogprobsOK(s.maxLogprobs) {
		return standIn{}, &argError{fmt.Sprintf("argument --max-logprobs: %d: %s", s.maxLogprobs, maxLogprobsRange)}
	}
	factor := 1.0
	s.kvBytesFactor = 1
	if a.enforceEager {
		factor *= eagerDecodeFactor
		s.startup = startupEager
	}
	if isFP8(a.kvCacheDType) {
		factor *= fp8DecodeFactor
		s.kvBytesFactor = fp8KVBytesFactor
	}
	p.Perf = p.Perf.WithDecodeFactor(factor)
	rig := p.GPURig()
	s.weightsBytes = float64(rig.WeightsBytes) / float64(rig.GPUs())
	s.fitTokens, s.kvMemBytes = p.KVCacheAt(s.utilization, s.kvBytesFactor)
	if a.kvCacheMemoryBytes > 0 {
		// vLLM then sizes the cache by it (per GPU) and not by the utilization.
		s.kvMemBytes = float64(a.kvCacheMemoryBytes) * float64(rig.GPUs())
		s.fitTokens = p.KVTokensIn(s.kvMemBytes, s.kvBytesFactor)
	}
	switch {
	case s.kvMemBytes <= 0:
		s.failure = failNoKVMemory
	case s.fitTokens < p.MaxModelLen:
		s.failure = failKVTooSmall
	case s.utilization >= oomUtilization:
		s.failure = failOutOfMemory
	}
	if s.fitTokens > 0 {
		p.KVCacheTokens = s.fitTokens
	}
	s.profile = p
	return s, nil
}

// isFP8 reports whether a --kv-cache-dtype is one of vLLM's FP8 caches
// (fp8, fp8_e4m3, fp8_e5m2, …).
func isFP8(dtype string) bool { return strings.HasPrefix(dtype, "fp8") }

// kvDTypeModeled reports whether the speed model knows a --kv-cache-dtype:
// the model's own (auto, bfloat16, float16) or an FP8 one.
func kvDTypeModeled(dtype string) bool {
	switch dtype {
	case "", "auto", "bfloat16", "float16", "half":
		return true
	}
	return isFP8(dtype)
}
