// Package sim is an in-process simulator of a vLLM server, or of an SGLang
// one in SGLang mode (Options.Mode: SGLang's /get_server_info,
// /abort_request and sglang: metrics, sglang.go). It speaks vLLM's
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
// /tokenize and /detokenize. Output is the greedy choice of a pseudo-model
// (lm.go): a deterministic next-token distribution given every token so far,
// drawn from a hash of the prefix and the model's name, with a language
// model's shape (a peaked head, a power-law tail); its text is generated
// words and punctuation, varied enough that a loop detector stays quiet,
// except for requests a profile's Loop makes repeat a phrase.
//
// Logprobs: the pseudo-model's distributions are served as vLLM 0.32 serves
// logprobs (lpjson.go; testdata/vllm-0.32.0-cpu holds the real answers the
// shapes are tested against): logprobs on completions, logprobs and
// top_logprobs on chat, streaming or not; prompt_logprobs (teacher-forced,
// consistent with generation); return_token_ids and
// return_tokens_as_token_ids; Options.MaxLogprobs as --max-logprobs, with
// vLLM's 400s. A request that asks for none of it costs the argmax alone.
//
// Drift: Options.Numerics (vLLM's --dtype, --kv-cache-dtype,
// --quantization) add bounded noise to every logit (drift.go): a KV cache
// of 8 or 4 bits more the longer the context, quantized weights the same at
// every context, float32 or float16 a little; greedy text changes where the
// noise reorders the head. A small jitter keyed to how many sequences shared
// a request's first step stands for GPUs' batch non-invariance: a request
// alone gets exactly the reference's logprobs every time. TestDriftCalibration
// measures what each setting gives, teacher-forced against the reference,
// and METHODOLOGY's simulator section tabulates it, so that a quality check
// of the simulator knows its answer.
//
// Needle: a chat whose last message ends with NeedleQuestion and which holds
// NeedleKeyIntro and six digits is answered with the digits (needle.go); a
// lossy KV cache gets one digit wrong with a chance that grows with the
// prompt's length.
//
// The package is an adapter; engine/roofline gives the physical facts of a
// profile's setup (roofline.go). What it may import is one table for the
// whole tree, allowedImports in imports_test.go, which TestImportRules
// checks.
package sim

// simulatorField is the key in the /version answer that names the simulator
// profile; no real vLLM sends it.
const simulatorField = "speedmatrix_simulator_profile"
