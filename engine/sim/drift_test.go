package sim

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// teacherForced compares cand with ref as a quality check does: along
// ref's greedy continuation of 128 tokens after 48 probes of context
// tokens, the share of positions whose top token agrees, and the mean KL
// divergence over ref's top 20 with one bucket for the rest. cand's steps
// are shared by batch sequences.
func teacherForced(ref, cand *pseudoModel, context, batch int) (top1, kld float64) {
	const probes, positions, k = 48, 128, 20
	agree := 0
	for p := range probes {
		s := probeState(ref, uint64(p), context)
		for range positions {
			rd := ref.dist(s, ref.sources(s.n, 1), -1)
			cd := cand.dist(s, cand.sources(s.n, batch), -1)
			if rd.id[0] == cd.id[0] {
				agree++
			}
			restP, restQ := 1.0, 1.0
			for j := range k {
				q, _ := cd.lookup(rd.id[j])
				p := math.Exp(rd.lp[j])
				kld += p * (rd.lp[j] - q)
				restP -= p
				restQ -= math.Exp(q)
			}
			if restP > 1e-12 && restQ > 1e-12 {
				kld += restP * math.Log(restP/restQ)
			}
			s = s.then(rd.id[0])
		}
	}
	n := float64(probes * positions)
	return 100 * float64(agree) / n, kld / n
}

// TestDriftCalibration is the calibration METHODOLOGY's simulator section
// tabulates: what each setting's drift gives, teacher-forced against the
// reference at 512 and 8K tokens of context, so that a quality check of the
// simulator knows its answer. The budget a sweep is checked against by
// default (KLD 0.01, top-1 98 %) splits them: FP8 KV within it at 512 and
// over it at 8K, a 4-bit KV cache and AWQ over it everywhere, FP8 weights
// and float32 within; the batch jitter (the noise floor) far below all.
func TestDriftCalibration(t *testing.T) {
	tok := sharedTokenizer()
	ref := newPseudoModel(tok, "m", Numerics{})
	type band struct{ top1Min, top1Max, kldMin, kldMax float64 }
	for _, tc := range []struct {
		name     string
		numerics Numerics
		batch    int
		at512    band
		at8K     band
	}{
		{"reference, alone", Numerics{}, 1, band{100, 100, 0, 0}, band{100, 100, 0, 0}},
		{"reference, batch of 8", Numerics{}, 8, band{99.9, 100, 1e-7, 1e-4}, band{99.9, 100, 1e-7, 1e-4}},
		{"reference, batch-invariant", Numerics{BatchInvariant: true}, 8, band{100, 100, 0, 0}, band{100, 100, 0, 0}},
		{"--dtype float32", Numerics{DType: "float32"}, 1, band{99.5, 100, 1e-4, 1e-3}, band{99.5, 100, 1e-4, 1e-3}},
		{"--kv-cache-dtype fp8", Numerics{KVCacheDType: "fp8"}, 1, band{99, 99.9, 0.001, 0.003}, band{96.5, 98, 0.011, 0.02}},
		{"--kv-cache-dtype fp8_e5m2", Numerics{KVCacheDType: "fp8_e5m2"}, 1, band{98, 99, 0.004, 0.01}, band{90, 94, 0.04, 0.08}},
		{"--kv-cache-dtype int4_per_token_head", Numerics{KVCacheDType: "int4_per_token_head"}, 1, band{96, 98, 0.011, 0.02}, band{83, 90, 0.09, 0.16}},
		{"--quantization fp8", Numerics{Quantization: "fp8"}, 1, band{99.5, 100, 0.0008, 0.002}, band{99.5, 100, 0.0008, 0.002}},
		{"--quantization awq", Numerics{Quantization: "awq"}, 1, band{95.5, 98, 0.011, 0.02}, band{95.5, 98, 0.011, 0.02}},
	} {
		cand := newPseudoModel(tok, "m", tc.numerics)
		var row []string
		for _, at := range []struct {
			context int
			want    band
		}{{512, tc.at512}, {8192, tc.at8K}} {
			top1, kld := teacherForced(ref, cand, at.context, tc.batch)
			row = append(row, fmt.Sprintf("%d: top-1 %.2f %%, KLD %.5f", at.context, top1, kld))
			w := at.want
			if top1 < w.top1Min || top1 > w.top1Max || kld < w.kldMin || kld > w.kldMax {
				t.Errorf("%s at %d tokens: top-1 %.2f %%, KLD %.5f; calibrated for top-1 %g–%g %%, KLD %g–%g",
					tc.name, at.context, top1, kld, w.top1Min, w.top1Max, w.kldMin, w.kldMax)
			}
		}
		t.Logf("%-40s %s", tc.name, strings.Join(row, "; "))
	}
}

// TestNeedleErrorCalibration checks the needle's error chance: none for
// the reference or for weights alone, growing with the context under a
// lossy KV cache, a 4-bit one's above FP8's.
func TestNeedleErrorCalibration(t *testing.T) {
	tok := sharedTokenizer()
	p := func(n Numerics, context int) float64 { return newPseudoModel(tok, "m", n).needleErrorP(context) }
	for _, n := range []Numerics{{}, {Quantization: "awq"}, {DType: "float32"}} {
		if got := p(n, 131072); got != 0 {
			t.Errorf("%+v: needle error chance %g at 128K, want 0", n, got)
		}
	}
	fp8, int4 := Numerics{KVCacheDType: "fp8"}, Numerics{KVCacheDType: "int4_per_token_head"}
	for _, tc := range []struct {
		n        Numerics
		context  int
		min, max float64
	}{
		{fp8, 512, 0.004, 0.008}, {fp8, 8192, 0.04, 0.07}, {fp8, 32768, 0.14, 0.2},
		{int4, 512, 0.04, 0.06}, {int4, 2048, 0.14, 0.18}, {int4, 8192, 0.4, 0.5}, {int4, 131072, needleErrMax, needleErrMax},
	} {
		if got := p(tc.n, tc.context); got < tc.min || got > tc.max {
			t.Errorf("%s at %d tokens: needle error chance %.3f, calibrated for %g–%g", tc.n.KVCacheDType, tc.context, got, tc.min, tc.max)
		}
	}
}

// TestNumericsValidate checks that a setting vLLM does not accept is
// named, with what it accepts.
func TestNumericsValidate(t *testing.T) {
	for _, tc := range []struct {
		n     Numerics
		field string
	}{
		{Numerics{DType: "fp64"}, "DType"},
		{Numerics{KVCacheDType: "int4"}, "KVCacheDType"},
		{Numerics{Quantization: "q4_k_m"}, "Quantization"},
		{Numerics{DType: "half", KVCacheDType: "nvfp4", Quantization: "gptq"}, ""},
	} {
		err := tc.n.Validate()
		var ne *NumericsError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%+v: %v", tc.n, err)
		case tc.field != "" && (!errors.As(err, &ne) || ne.Field != tc.field || len(ne.Want) == 0):
			t.Errorf("%+v: %v, want a NumericsError for %s", tc.n, err, tc.field)
		}
	}
	if _, err := New(Options{Profile: tinyProfile(), Numerics: Numerics{KVCacheDType: "int4"}}); err == nil {
		t.Error("New accepted a KV cache dtype vLLM refuses")
	}
}
