package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strings"
)

// Numerics are the server settings that change what the model computes,
// named as vLLM names them: --dtype, --kv-cache-dtype and --quantization.
// The zero value is the model as the profile serves it (bfloat16 weights
// and KV cache), which is what every drift is measured against.
type Numerics struct {
	DType        string // "", auto, bfloat16; float16 or half; float32 or float
	KVCacheDType string // "", auto, bfloat16, float16; fp8…; int4_per_token_head, nvfp4…
	Quantization string // "", or awq, gptq, fp8, modelopt_fp4, …
	// BatchInvariant turns the batch jitter off: a request's logits then
	// do not depend on how many others share its steps.
	BatchInvariant bool
}

// The calibration of the drift, in nats of logit noise (each source adds
// σ·ε to every candidate's logit, ε bounded with variance 1; see lm.go).
// drift_test.go measures what they give, teacher-forced against the
// reference, and METHODOLOGY's simulator section tabulates it.
const (
	// sigmaKV8 is an 8-bit KV cache's σ at kvRefTokens of context; σ
	// grows as (context/kvRefTokens)^kvGrowth: the error of every cached
	// key and value adds up in attention over more of them.
	sigmaKV8    = 0.087
	sigmaKV4    = 0.25 // a 4-bit KV cache
	kvRefTokens = 512
	kvGrowth    = 0.4
	// sigmaW8 and sigmaW4 are 8-bit and 4-bit weights': the same at
	// every position, whatever the context.
	sigmaW8 = 0.08
	sigmaW4 = 0.27
	// sigmaDType is float16's or float32's against bfloat16: rounding.
	sigmaDType = 0.043
	// sigmaBatch is the batch jitter: a request whose steps it shares
	// with others computes with other kernels' reduction order than when
	// alone (GPUs are not batch-invariant). Far below any setting's.
	sigmaBatch = 0.006
	// needleErrPerVar turns the drift's variance into the chance that a
	// needle's answer has a wrong digit (needle.go).
	needleErrPerVar = 0.8
	needleErrMax    = 0.95
)

// kvScales are the KV cache dtypes vLLM accepts, as σ in units of
// sigmaKV8 or sigmaKV4 (the second value says which).
var kvScales = map[string]struct {
	scale float64
	bits  int
}{
	"": {0, 16}, "auto": {0, 16}, "bfloat16": {0, 16}, "float16": {0, 16},
	"fp8": {1, 8}, "fp8_e4m3": {1, 8}, "fp8_inc": {1, 8}, "fp8_ds_mla": {1, 8},
	"fp8_per_token_head": {1, 8}, "int8_per_token_head": {1, 8},
	"fp8_e5m2":            {2, 8}, // two mantissa bits, not three
	"turboquant_k8v4":     {0.6, 4},
	"int4_per_token_head": {1, 4}, "turboquant_4bit_nc": {1, 4}, "ultraquant_4bit": {1, 4},
	"nvfp4": {1, 4}, "nvfp4_4over6": {1, 4}, "nvfp4_ds_mla": {1, 4},
	"turboquant_k3v4_nc": {1.25, 4}, "turboquant_3bit_nc": {1.5, 4},
}

// quantBits are the quantization methods vLLM accepts, by the width of
// their weights; a method whose width depends on the checkpoint
// (compressed-tensors, quark, …) counts as 4-bit.
var quantBits = map[string]int{
	"":    16,
	"fp8": 8, "fbgemm_fp8": 8, "modelopt": 8, "modelopt_mxfp8": 8, "experts_int8": 8, "deepseek_v4_fp8": 8,
	"fp8_per_tensor": 8, "fp8_per_block": 8, "fp8_per_channel": 8, "int8_per_channel_weight_only": 8, "mxfp8": 8,
	"awq": 4, "auto_awq": 4, "awq_marlin": 4, "gptq": 4, "auto_gptq": 4, "gptq_marlin": 4,
	"modelopt_fp4": 4, "nvfp4_per_token": 4, "mxfp4": 4, "gpt_oss_mxfp4": 4, "moe_wna16": 4,
	"modelopt_mixed": 4, "fp_quant": 4, "humming": 4, "compressed-tensors": 4, "quark": 4,
	"torchao": 4, "inc": 4, "online": 4,
}

// dtypeDrifts are the --dtype values vLLM accepts; true: rounds unlike bfloat16.
var dtypeDrifts = map[string]bool{"": false, "auto": false, "bfloat16": false, "float16": true, "half": true, "float32": true, "float": true}

// canonical spells a setting as the one it is an alias of, so that
// aliases drift alike.
var canonical = map[string]string{"fp8": "fp8_e4m3", "half": "float16", "float": "float32", "auto_awq": "awq", "auto_gptq": "gptq"}

// NumericsError is a Numerics setting vLLM does not accept. Field names
// the Numerics field, so that a front end can name its own flag or field.
type NumericsError struct {
	Field string // "KVCacheDType"
	Value string
	Want  []string // the values it accepts
}

func (e *NumericsError) Error() string {
	return fmt.Sprintf("numerics %s = %q is not one vLLM accepts: use one of %s", e.Field, e.Value, strings.Join(e.Want, ", "))
}

// Validate reports the first setting vLLM does not accept, as a
// *NumericsError.
func (n Numerics) Validate() error {
	if _, ok := dtypeDrifts[n.DType]; !ok {
		return &NumericsError{"DType", n.DType, keys(dtypeDrifts)}
	}
	if _, ok := kvScales[n.KVCacheDType]; !ok {
		return &NumericsError{"KVCacheDType", n.KVCacheDType, keys(kvScales)}
	}
	if _, ok := quantBits[n.Quantization]; !ok {
		return &NumericsError{"Quantization", n.Quantization, keys(quantBits)}
	}
	return nil
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Lossy reports whether n changes what the model computes.
func (n Numerics) Lossy() bool {
	return dtypeDrifts[n.DType] || kvScales[n.KVCacheDType].scale > 0 || quantBits[n.Quantization] < 16
}

// driftSource is one cause of drift: noise of scale sigma drawn from seed.
type driftSource struct {
	seed  uint64
	sigma float64
}

// driftSet is the drift at one position: at most four sources.
type driftSet struct {
	src   [4]driftSource
	n     int
	total float64 // Σσ: a logit moves by less than lmNoiseBound·total
	vari  float64 // Σσ²
}

func (d *driftSet) add(src driftSource) {
	if src.sigma <= 0 {
		return
	}
	d.src[d.n] = src
	d.n++
	d.total += src.sigma
	d.vari += src.sigma * src.sigma
}

// delta is the drift of token id's logit after prefix h.
func (d *driftSet) delta(h uint64, id int32) float64 {
	v := 0.0
	for _, src := range d.src[:d.n] {
		v += src.sigma * noise(src.seed, h, id)
	}
	return v
}

// pseudoModel is the model the simulator serves: its weights (key) and
// the drift its numerics add.
type pseudoModel struct {
	tok    *tokenizer
	key    uint64
	fixed  [2]driftSource // weights and dtype: the same at every context
	kv     driftSource    // σ at kvRefTokens of context
	jitter bool
}

// newPseudoModel is the model named model (its weights: every server of
// that model predicts alike) under numerics n, which must be valid.
func newPseudoModel(tok *tokenizer, model string, n Numerics) *pseudoModel {
	m := &pseudoModel{tok: tok, key: stringHash("model:" + model), jitter: !n.BatchInvariant}
	if bits := quantBits[n.Quantization]; bits < 16 {
		m.fixed[0] = driftSource{seedOf("quantization", n.Quantization), map[int]float64{8: sigmaW8, 4: sigmaW4}[bits]}
	}
	if dtypeDrifts[n.DType] {
		m.fixed[1] = driftSource{seedOf("dtype", n.DType), sigmaDType}
	}
	if kv := kvScales[n.KVCacheDType]; kv.scale > 0 {
		base := map[int]float64{8: sigmaKV8, 4: sigmaKV4}[kv.bits]
		m.kv = driftSource{seedOf("kv", n.KVCacheDType), kv.scale * base}
	}
	return m
}

func seedOf(kind, value string) uint64 {
	if c, ok := canonical[value]; ok {
		value = c
	}
	return stringHash(kind + ":" + value)
}

func stringHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return mix64(h.Sum64())
}

// kvSigma is the KV cache's σ at a position with context tokens before it.
func (m *pseudoModel) kvSigma(context int) float64 {
	if m.kv.sigma == 0 {
		return 0
	}
	return m.kv.sigma * math.Pow(float64(max(context, 1))/kvRefTokens, kvGrowth)
}

// sources is the drift at a position with context tokens before it, in
// a request whose steps were shared by about batch sequences.
func (m *pseudoModel) sources(context, batch int) driftSet {
	var d driftSet
	d.add(m.fixed[0])
	d.add(m.fixed[1])
	d.add(driftSource{m.kv.seed, m.kvSigma(context)})
	if m.jitter && batch > 1 {
		d.add(driftSource{mix64(0xba7c4 ^ uint64(batch)), sigmaBatch})
	}
	return d
}

// needleErrorP is the chance that a needle answer after a prompt of
// promptLen tokens has a wrong digit: zero for the reference, growing
// with the drift's variance (a lossy KV cache's with the context).
func (m *pseudoModel) needleErrorP(promptLen int) float64 {
	s := m.kvSigma(promptLen)
	return min(needleErrMax, needleErrPerVar*s*s)
}
