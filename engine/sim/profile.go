package sim

import (
	"fmt"
	"strings"
)

// Profile is one simulated server: the model and GPU it stands for, vLLM's
// limits (max-model-len, KV cache, max-num-seqs) and the performance model
// fitted to that pair. Times in a profile are model seconds (before TimeScale).
type Profile struct {
	Name, Description  string
	Model, ServedModel string // HF id, and the name /v1/models reports
	Version            string // vLLM version reported by /version
	Quantization       string // e.g. "BF16", "NVFP4"
	GPUName            string // the GPU the profile models (simulated)
	VRAMBytes          uint64
	MaxModelLen        int
	KVCacheTokens      int // must be a multiple of BlockSize
	BlockSize          int
	MaxNumSeqs         int
	ReasoningParser    string // "" or e.g. "gemma4": chat streams reasoning deltas first
	// ReasoningTokens is how many output tokens of a chat answer are
	// reasoning when ReasoningParser is set.
	ReasoningTokens int
	// MaxBatchedTokens is vLLM's max-num-batched-tokens: the token budget of
	// one scheduler step (decode tokens first, then prefill chunks).
	MaxBatchedTokens int
	// NoPrefixCaching turns the prefix cache off, as vLLM's
	// --no-enable-prefix-caching does: every prompt is computed in full.
	NoPrefixCaching bool
	Perf            Perf
	// Noise makes step times vary around Perf's as a real server's do;
	// the zero value is exact step times.
	Noise Noise
	Loop  Loop
	// SpecDecode, when set, makes every decode step draft and verify
	// tokens as vLLM's speculative decoding does; nil: one token a step.
	SpecDecode *SpecDecode
	// LaunchCommand is a vllm serve command line that the profile stands for.
	LaunchCommand string
	// Rig is the GPUs the profile models for its simulated telemetry; the
	// zero value is one GPU of the kind GPUName names (see GPURig).
	Rig Rig
	// Roofline, when set, is the model and KV cache of the setup the
	// profile stands for (roofline.go).
	Roofline *Roofline
}

// Perf is the performance model of a profile. All times are model seconds.
//
// A prefill chunk of k new tokens after p tokens already in the KV cache
// costs PrefillPerTokenS·k + PrefillQuadS·((p+k)²−p²), so a whole prompt of
// N tokens costs PrefillPerTokenS·N + PrefillQuadS·N² however it is chunked
// (the quadratic term is attention). A step that only prefills adds
// PrefillStepS (the pass over the weights).
//
// A decode step over B sequences holding ΣL tokens of context costs
// DecodeBaseS(B) + DecodeAttnS(B)·ΣL/B, both curves interpolated linearly
// in log2 B between knots. DecodeBaseS is the pass over the weights (it grows
// with B once the GPU stops being bound by memory bandwidth; for a
// mixture-of-experts model also because more experts are touched);
// DecodeAttnS is the attention time per token of mean context, flat while
// the batch leaves SMs idle and growing about linearly in B beyond.
//
// Requests first pass a serialized front end (template, tokenisation,
// validation) costing FrontendS + FrontendPerTokenS·prompt tokens each.
type Perf struct {
	PrefillStepS      float64
	PrefillPerTokenS  float64
	PrefillQuadS      float64
	DecodeBaseS       []Knot
	DecodeAttnS       []Knot
	FrontendS         float64
	FrontendPerTokenS float64
}

// Knot is one point of a curve over batch size.
type Knot struct {
	Batch   int
	Seconds float64
}

// Loop makes requests degenerate into repeating a fixed phrase of about 40
// tokens, as a model stuck in a loop does.
//
// A request loops when AfterTokens > 0 and, if Rules is not empty, a rule
// matches it. The decision is taken once, when the request has produced
// AfterTokens output tokens: its prompt length and the number of requests
// the server holds at that moment (in the front end, waiting or running,
// rounded up to a power of two) are matched against Rules. A benchmark cell of C concurrent
// requests at context L is therefore seen as (L, C) by every one of its
// requests, whatever unique prefix its prompts carry, and the decision is
// reproducible from run to run.
type Loop struct {
	AfterTokens int
	Rules       []LoopRule
}

// LoopRule matches requests whose prompt has between MinPromptTokens and
// MaxPromptTokens tokens (inclusive) while one of Concurrency requests are
// in flight.
type LoopRule struct {
	MinPromptTokens, MaxPromptTokens int
	Concurrency                      []int
}

// Profiles returns the built-in profiles: tiny (the default), tiny-spec
// (tiny with speculative decoding), gemma-4-e2b-rtxpro6000,
// gemma-4-26b-a4b-nvfp4-rtx3090 and llama-3.3-70b-awq-2x3090-tp2 (two
// GPUs, tensor parallel).
func Profiles() []Profile {
	return []Profile{tinyProfile(), tinySpecProfile(), rtxPro6000Profile(), rtx3090Profile(), llama70bTP2Profile()}
}

// LookupProfile returns the built-in profile with that name.
func LookupProfile(name string) (Profile, error) {
	var names []string
	for _, p := range Profiles() {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return Profile{}, fmt.Errorf("unknown simulator profile %q: use one of %s", name, strings.Join(names, ", "))
}

// Validate reports the first inconsistency in p.
func (p Profile) Validate() error {
	switch {
	case p.Name == "" || p.ServedModel == "":
		return fmt.Errorf("profile needs a name and a served model name")
	case p.BlockSize <= 0 || p.KVCacheTokens < p.BlockSize || p.KVCacheTokens%p.BlockSize != 0:
		return fmt.Errorf("profile %s: KV cache of %d tokens is not a positive multiple of block size %d", p.Name, p.KVCacheTokens, p.BlockSize)
	case p.MaxModelLen <= 0 || p.MaxNumSeqs <= 0 || p.MaxBatchedTokens <= 0:
		return fmt.Errorf("profile %s: max model len, max num seqs and max batched tokens must be positive", p.Name)
	case p.KVCacheTokens < p.MaxModelLen:
		return fmt.Errorf("profile %s: KV cache of %d tokens can't hold one request of max model len %d", p.Name, p.KVCacheTokens, p.MaxModelLen)
	}
	if err := p.Noise.validate(); err != nil {
		return fmt.Errorf("profile %s: %w", p.Name, err)
	}
	if err := p.SpecDecode.validate(); err != nil {
		return fmt.Errorf("profile %s: %w", p.Name, err)
	}
	for _, c := range [][]Knot{p.Perf.DecodeBaseS, p.Perf.DecodeAttnS} {
		if len(c) == 0 {
			return fmt.Errorf("profile %s: decode curves need at least one knot", p.Name)
		}
		for i, k := range c {
			if k.Batch < 1 || k.Seconds < 0 || i > 0 && k.Batch <= c[i-1].Batch {
				return fmt.Errorf("profile %s: decode curve knots must have increasing batch sizes ≥ 1 and times ≥ 0", p.Name)
			}
		}
	}
	return nil
}

// matches reports whether a request with a prompt of promptLen tokens loops
// while inFlight requests are in the scheduler.
func (l Loop) matches(promptLen, inFlight int) bool {
	if len(l.Rules) == 0 {
		return true
	}
	c := powerOfTwoAtLeast(inFlight)
	for _, r := range l.Rules {
		if promptLen < r.MinPromptTokens || promptLen > r.MaxPromptTokens {
			continue
		}
		for _, rc := range r.Concurrency {
			if rc == c {
				return true
			}
		}
	}
	return false
}
