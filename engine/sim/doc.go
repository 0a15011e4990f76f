// Package sim is an in-process simulator of a vLLM server: it speaks vLLM's
// OpenAI-compatible HTTP API (/v1/models, /v1/completions,
// /v1/chat/completions, /tokenize, /detokenize, /health, /version, /metrics)
// and times its answers with a performance model of vLLM's continuous
// batching scheduler: a serialized front end, a waiting queue, max-num-seqs,
// chunked prefill whose cost grows with the prompt and its square, decode
// steps whose cost grows with the batch and the context it holds, a paged KV
// cache with recompute preemption, a prefix cache of block-aligned prompt
// prefixes with LRU eviction, and optionally speculative decoding
// (Profile.SpecDecode; the built-in tiny-spec). /metrics advances vLLM's
// counters and histograms with every scheduler step, as vLLM does.
//
// Faults stand for servers a client should not trust blindly: errors,
// dropped or stalled streams, a slow start, a generation counter that moves
// only when requests end, sequences that run on after their client left,
// and another client's load on the same server.
//
// It is the demo target of Speed Matrix on machines without a GPU and the
// peer of the engine's tests. Every figure it produces is simulated: the
// profiles gemma-4-e2b-rtxpro6000 and gemma-4-26b-a4b-nvfp4-rtx3090 are
// fitted to the two reference reports in docs/reference (model_test.go
// checks every cell of theirs in virtual time, seed_test.go runs both
// matrices through measure.Run), they are not measurements.
//
// Time: one scheduler goroutine runs steps back to back in model time and
// sleeps in real time until each ends; Options.TimeScale makes model time
// run that many times faster. A server that wakes late catches up (the rate
// holds) unless it falls more than maxLag behind, when it skips ahead rather
// than burst. Latencies in /metrics are model seconds.
//
// Noise: each step's time varies around the model's by a seeded per-step
// jitter, a slow clock drift and rare hiccups (Profile.Noise, noise.go),
// keeping its mean, so that a client's precision estimates have real
// variation to measure; the zero Noise gives exact step times.
//
// Text: a fixed vocabulary of generated words, plus pieces of up to four
// letters for other words (ordinary English costs about a token per four
// characters) and byte fallback, so every text round-trips through
// /tokenize and /detokenize; output is generated words drawn from
// the seed and the prompt, varied enough that a loop detector stays quiet,
// except for requests a profile's Loop makes repeat a phrase.
//
// The package is an adapter; engine/roofline gives the physical facts of a
// profile's setup (roofline.go). What it may import is one table for the
// whole tree, allowedImports in imports_test.go, which TestImportRules
// checks.
package sim

// simulatorField is the key in the /version answer that names the simulator
// profile; no real vLLM sends it.
const simulatorField = "speedmatrix_simulator_profile"
