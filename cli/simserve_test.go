package cli

import (
	"bytes"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine/launch"
	"speedmatrix/engine/sim"
)

// TestStandInProfile: each flag changes the served profile as the speed
// model says (sim serve -h), from tiny: 64 sequences, 98,304 tokens of KV
// cache at 0.9 of 8 GiB (3 GiB, 32 KiB a token), 8,192 tokens a request.
func TestStandInProfile(t *testing.T) {
	t.Parallel()
	tiny, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args          []string
		maxNumSeqs    int
		kvTokens      int
		maxModelLen   int
		decodeFactor  float64
		startup       time.Duration
		noPrefixCache bool
		served        string
		ignored       []string
	}{
		{nil, 64, 98304, 8192, 1, 2 * time.Second, false, "m", nil},
		{[]string{"--max-num-seqs", "2"}, 2, 98304, 8192, 1, 2 * time.Second, false, "m", nil},
		{[]string{"--max-num-seqs=8", "--served-model-name", "tiny"}, 8, 98304, 8192, 1, 2 * time.Second, false, "tiny", nil},
		{[]string{"--enforce-eager"}, 64, 98304, 8192, 1.25, time.Second, false, "m", nil},
		{[]string{"--enforce-eager", "--no-enforce-eager"}, 64, 98304, 8192, 1, 2 * time.Second, false, "m", nil},
		{[]string{"--kv-cache-dtype", "fp8"}, 64, 196608, 8192, 0.95, 2 * time.Second, false, "m", nil},
		{[]string{"--kv-cache-dtype", "fp8_e5m2", "--enforce-eager"}, 64, 196608, 8192, 1.1875, time.Second, false, "m", nil},
		{[]string{"--kv-cache-dtype", "auto"}, 64, 98304, 8192, 1, 2 * time.Second, false, "m", nil},
		{[]string{"--gpu-memory-utilization", "0.95"}, 64, 111408, 8192, 1, 2 * time.Second, false, "m", nil},
		{[]string{"--gpu-memory-utilization", "0.8", "--kv-cache-dtype", "fp8"}, 64, 144176, 8192, 0.95, 2 * time.Second, false, "m", nil},
		{[]string{"--kv-cache-memory-bytes", "1073741824"}, 64, 32768, 8192, 1, 2 * time.Second, false, "m", nil},
		{[]string{"--max-model-len", "4096"}, 64, 98304, 4096, 1, 2 * time.Second, false, "m", nil},
		{[]string{"--no-enable-prefix-caching"}, 64, 98304, 8192, 1, 2 * time.Second, true, "m", nil},
		{[]string{"--enable-prefix-caching"}, 64, 98304, 8192, 1, 2 * time.Second, false, "m", nil},
		{[]string{"--quantization", "awq", "--async-scheduling", "--tensor-parallel-size", "2", "--kv-cache-dtype", "int4_per_token_head", "--unknown", "x", "--unknown", "x"},
			64, 98304, 8192, 1, 2 * time.Second, false, "m",
			[]string{"--quantization awq", "--async-scheduling", "--tensor-parallel-size 2", "--unknown x", "--kv-cache-dtype int4_per_token_head"}},
	} {
		a, err := parseServeArgs(append([]string{"m"}, tc.args...))
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		s, err := standInFor(a)
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		p := s.profile
		if s.failure != startsFine || p.MaxNumSeqs != tc.maxNumSeqs || p.KVCacheTokens != tc.kvTokens || p.MaxModelLen != tc.maxModelLen ||
			s.startup != tc.startup || p.NoPrefixCaching != tc.noPrefixCache || p.ServedModel != tc.served || p.Model != "m" {
			t.Errorf("%v: failure %d, max_num_seqs %d, KV %d, max_model_len %d, start-up %v, no prefix cache %v, served %q, model %q",
				tc.args, s.failure, p.MaxNumSeqs, p.KVCacheTokens, p.MaxModelLen, s.startup, p.NoPrefixCaching, p.ServedModel, p.Model)
		}
		if want := tiny.Perf.WithDecodeFactor(tc.decodeFactor); !reflect.DeepEqual(p.Perf, want) {
			t.Errorf("%v: decode curves %v, want tiny's × %g %v", tc.args, p.Perf.DecodeBaseS, tc.decodeFactor, want.DecodeBaseS)
		}
		if !slices.Equal(a.ignored, tc.ignored) {
			t.Errorf("%v: ignores %q, want %q", tc.args, a.ignored, tc.ignored)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%v: %v", tc.args, err)
		}
	}
}

// TestSimServeBadFlags: what vLLM's argparse refuses, the stand-in
// refuses with its words and exit status 2, before logging anything.
func TestSimServeBadFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		env  string // SPEEDMATRIX_SIM_TIME_SCALE
		want string
	}{
		{[]string{"m", "--max-num-seqs", "abc"}, "", "error: argument --max-num-seqs: invalid int value: 'abc'"},
		{[]string{"m", "--port=80x"}, "", "error: argument --port: invalid int value: '80x'"},
		{[]string{"m", "--gpu-memory-utilization", "most"}, "", "error: argument --gpu-memory-utilization: invalid float value: 'most'"},
		{[]string{"m", "--max-num-seqs"}, "", "error: argument --max-num-seqs: expected one argument"},
		{[]string{"m", "--max-num-seqs", "0"}, "", "error: argument --max-num-seqs: 0 is not a positive number"},
		{[]string{"m", "--enforce-eager=yes"}, "", "error: argument --enforce-eager: ignored explicit argument 'yes'"},
		{[]string{"--port", "8000"}, "", "error: the following arguments are required: model_tag"},
		{[]string{"m", "n"}, "", "error: unrecognized arguments: n"},
		{[]string{"m", "--sim-profile", "nope"}, "", "error: argument --sim-profile: unknown simulator profile \"nope\""},
		{[]string{"m"}, "fast", "SPEEDMATRIX_SIM_TIME_SCALE=\"fast\" is not a positive number"},
	} {
		var out, errOut bytes.Buffer
		env := func(k string) string {
			if k == timeScaleEnv {
				return tc.env
			}
			return ""
		}
		err := cliFor(t).simServe(t.Context(), tc.args, env, &out, &errOut)
		if ExitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) || out.Len() > 0 {
			t.Errorf("%v: exit %d, error %v, want exit 2 with %q and no log:\n%s", tc.args, ExitCode(err), err, tc.want, out.String())
		}
	}
}

// TestSimServeStartFailures: settings vLLM cannot start with end the
// stand-in with exit status 1 and vLLM's own lines, which the launcher
// recognises.
func TestSimServeStartFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args     []string
		lines    []string // in the log
		fatal    string   // the launcher's summary of it
		estimate string   // in the launcher's advice
	}{
		{[]string{"--gpu-memory-utilization", "0.99"},
			[]string{"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 8.00 GiB of which 81.92 MiB is free.",
				"RuntimeError: CUDA out of memory occurred when warming up sampler with 64 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.",
				"GPU KV cache size: 121,888 tokens"},
			"the GPU ran out of memory", ""},
		{[]string{"--gpu-memory-utilization", "1.2", "--enforce-eager", "--max-num-seqs", "8"},
			[]string{"torch.OutOfMemoryError: CUDA out of memory.", "warming up sampler with 8 dummy requests"},
			"the GPU ran out of memory", ""},
		{[]string{"--gpu-memory-utilization", "0.5"},
			[]string{"ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."},
			"the model left no GPU memory for the KV cache", ""},
		{[]string{"--gpu-memory-utilization", "0.6", "--max-model-len", "32768"},
			[]string{"ValueError: To serve at least one request with the models's max seq len (32768), (1.00 GiB KV cache is needed, which is larger than the available KV cache memory (0.60 GiB)."},
			"the KV cache cannot hold one request of --max-model-len tokens", "--max-model-len 19648 fits"},
	} {
		var out bytes.Buffer
		err := cliFor(t).simServe(t.Context(), append([]string{"m"}, tc.args...), func(string) string { return "" }, &out, io.Discard)
		if ExitCode(err) != 1 || !strings.Contains(err.Error(), "start-up failed as vLLM's would") {
			t.Errorf("%v: exit %d (%v), want 1", tc.args, ExitCode(err), err)
		}
		log := out.String()
		for _, want := range append(tc.lines, "RuntimeError: Engine core initialization failed. See root cause above.") {
			if !strings.Contains(log, want) {
				t.Errorf("%v: log lacks %q:\n%s", tc.args, want, log)
			}
		}
		f := logFacts(log)
		if f.Fatal == nil || f.Fatal.Summary != tc.fatal || !strings.Contains(f.Fatal.Advice, tc.estimate) {
			t.Errorf("%v: the launcher reads %+v, want %q", tc.args, f.Fatal, tc.fatal)
		}
	}
}

// logFacts is what the launcher reads in a log.
func logFacts(log string) launch.LogFacts {
	var f launch.LogFacts
	for line := range strings.Lines(log) {
		f.Add(strings.TrimSuffix(line, "\n"))
	}
	return f
}

// TestStandInLog: the launcher reads the stand-in's start-up log as a
// vLLM's: version, KV cache, maximum concurrency, quantization; the API key
// is never in it, and the ignored flags are named once.
func TestStandInLog(t *testing.T) {
	t.Parallel()
	a, err := parseServeArgs([]string{"org/model", "--api-key", "sk-standin-secret", "--quantization", "awq", "--max-model-len", "4096",
		"--max-num-seqs", "2", "--enforce-eager", "--served-model-name", "tiny", "--async-scheduling"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := standInFor(a)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	l := vllmLog{w: &out, pid: 7}
	logStartup(l, a, s, 1)
	logKVCache(l, profileSize{kvTokens: s.profile.KVCacheTokens, maxModelLen: s.profile.MaxModelLen})
	log := out.String()
	f := logFacts(log)
	if f.Version != "0.32.0" || f.KVCacheTokens != 98304 || f.MaxConcurrency != 24 || f.ConcurrencyTokens != 4096 ||
		f.Quantization != "awq" || f.DType != "bfloat16" || f.KVCacheGiB != 3 || f.WeightGiB != 2 || !f.LooksLikeServer || f.Fatal != nil {
		t.Errorf("the launcher reads %+v from:\n%s", f, log)
	}
	for _, want := range []string{
		"non-default args: {'model_tag': 'org/model', 'api_key': ['<redacted>'], 'quantization': 'awq', 'max_model_len': 4096, 'max_num_seqs': 2, 'enforce_eager': True, 'served_model_name': ['tiny'], 'async_scheduling': True}",
		"stand-in ignores: --quantization awq, --async-scheduling (no effect on its simulated speed)",
		"every figure it serves is simulated", "enforce_eager=True", "served_model_name=tiny",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "sk-standin-secret") {
		t.Errorf("the log shows the API key:\n%s", log)
	}
}
