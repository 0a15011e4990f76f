package servers

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"speedmatrix/engine/openai"
	"strconv"
	"strings"
	"testing"
)

const vllmV1Metrics = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="gemma"} 3.0
vllm:num_requests_running{engine="1",model_name="gemma"} 2.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="gemma"} 1.0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="gemma"} 0.25
vllm:kv_cache_usage_perc{engine="1",model_name="gemma"} 0.5
# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{engine="0",model_name="gemma"} 1000.0
vllm:prefix_cache_queries_created{engine="0",model_name="gemma"} 1.7e+09
vllm:prefix_cache_hits_total{engine="0",model_name="gemma"} 250.0
vllm:prompt_tokens_total{engine="0",model_name="gemma"} 12345.0
vllm:generation_tokens_total{engine="0",model_name="gemma"} 678.0
vllm:generation_tokens_total{engine="1",model_name="gemma"} 22.0
# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.83",num_cpu_blocks="None",num_gpu_blocks="52000"} 1.0
vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="gemma"} 5.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="gemma"} 1.5 1700000000000
`

// metricsCases is the table of /metrics texts, shared by the parser test
// and the seeds of FuzzParseMetrics.
var metricsCases = []struct {
	name    string
	in      string
	want    openai.Metrics // Samples not compared
	samples int
	err     bool
}{
	{name: "vLLM v1, two engines", in: vllmV1Metrics, samples: 14, want: openai.Metrics{
		Running: 5, Waiting: 1, KVCacheUsage: 0.5, NumGPUBlocks: 52000, BlockSize: 16,
		GenerationTokens: 700, PromptTokens: 12345, PrefixCacheHits: 250, PrefixCacheQueries: 1000, HasPrefixCache: true,
		HasRequests: true, HasGenerationTokens: true}},
	{name: "histogram counts, preemptions, speculative decoding", samples: 8, in: "vllm:inter_token_latency_seconds_count{engine=\"0\"} 90\n" +
		"vllm:inter_token_latency_seconds_count{engine=\"1\"} 10\nvllm:time_per_output_token_seconds_count 5\n" +
		"vllm:time_to_first_token_seconds_count 4\nvllm:num_preemptions_total 3\n" +
		"vllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_draft_tokens_total 30\nvllm:spec_decode_num_accepted_tokens_total 21\n",
		want: openai.Metrics{ITLCount: 100, HasITL: true, TTFTCount: 4, Preemptions: 3,
			SpecDrafts: 10, SpecDraftTokens: 30, SpecAcceptedTokens: 21, HasSpecDecode: true}},
	{name: "older histogram name", samples: 1, in: "vllm:time_per_output_token_seconds_count 5\n",
		want: openai.Metrics{ITLCount: 5, HasITL: true}},
	{name: "older names", samples: 4, in: "vllm:gpu_cache_usage_perc{model_name=\"m\"} 0.125\nvllm:prefix_cache_hits{a=\"b\"} 3\nvllm:prefix_cache_queries 9\nvllm:num_requests_running 1\n",
		want: openai.Metrics{KVCacheUsage: 0.125, PrefixCacheHits: 3, PrefixCacheQueries: 9, HasPrefixCache: true, Running: 1, HasRequests: true}},
	{name: "new names win over old", samples: 4, in: "vllm:gpu_cache_usage_perc 0.9\nvllm:kv_cache_usage_perc 0.1\nvllm:prefix_cache_hits 5\nvllm:prefix_cache_hits_total 7\n",
		want: openai.Metrics{KVCacheUsage: 0.1, PrefixCacheHits: 7}},
	{name: "escaped label values, CRLF, spaces", samples: 2, in: "vllm:num_requests_waiting{path=\"a\\\"b\\\\c\\nd\" , x=\"}\"} 4\r\n  vllm:num_requests_waiting{} +Inf  \r\n",
		want: openai.Metrics{Waiting: 4, Bad: []openai.BadValue{{Name: "vllm:num_requests_waiting", Figure: openai.Waiting, Value: math.Inf(1)}}}},
	{name: "NaN is kept but not summed", samples: 2, in: "vllm:num_requests_running NaN\nvllm:num_requests_running 2\n",
		want: openai.Metrics{Running: 2, HasRequests: true, Bad: []openai.BadValue{{Name: "vllm:num_requests_running", Figure: openai.Running, Value: math.NaN()}}}},
	{name: "values no server could mean are bad samples", samples: 4,
		in: "vllm:num_requests_running +Inf\nvllm:num_requests_waiting 1e308\nvllm:generation_tokens_total -3\n" +
			"vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"10\"} NaN\n",
		want: openai.Metrics{HasRequests: true, NumGPUBlocks: 10, BlockSize: 16, Bad: []openai.BadValue{
			{Name: "vllm:num_requests_running", Figure: openai.Running, Value: math.Inf(1)},
			{Name: "vllm:num_requests_waiting", Figure: openai.Waiting, Value: 1e308},
			{Name: "vllm:generation_tokens_total", Figure: openai.GenerationTokens, Value: -3}}}},
	{name: "OpenMetrics EOF and exemplar", samples: 2, in: "vllm:generation_tokens_total{a=\"1\"} 10 # {trace_id=\"x\"} 1\nvllm:prompt_tokens_total 3 1700000000.5\n# EOF\n",
		want: openai.Metrics{GenerationTokens: 10, PromptTokens: 3, HasGenerationTokens: true}},
	{name: "quoted name in braces", samples: 1, in: "{\"vllm:num_requests_running\", engine=\"0\"} 4\n",
		want: openai.Metrics{Running: 4, HasRequests: true}},
	{name: "bad lines are skipped with an error", samples: 1, err: true,
		in:   "vllm:num_requests_running{a=\"x} 1\nvllm:num_requests_running 1 2 3\nvllm:num_requests_waiting 7\n9bad 1\nvllm:x one\n",
		want: openai.Metrics{Waiting: 7}},
	{name: "SGLang names, two DP ranks", samples: 9, in: "sglang:num_running_reqs{dp_rank=\"0\"} 3\nsglang:num_running_reqs{dp_rank=\"1\"} 2\n" +
		"sglang:num_queue_reqs 1\nsglang:token_usage 0.28\nsglang:gen_throughput 1520.5\nsglang:cache_hit_rate 0.0075\n" +
		"sglang:spec_accept_length 2.4\nsglang:prompt_tokens_total 8.128902e+06\nsglang:generation_tokens_total 7.557572e+06\n",
		want: openai.Metrics{Running: 5, Waiting: 1, KVCacheUsage: 0.28, GenerationTokens: 7.557572e+06, PromptTokens: 8.128902e+06,
			HasRequests: true, HasGenerationTokens: true, GenThroughput: 1520.5, HasGenThroughput: true, CacheHitRate: 0.0075, HasCacheHitRate: true,
			SpecAcceptLength: 2.4, HasSpecAcceptLength: true}},
	{name: "empty", in: ""},
}

func TestParseMetrics(t *testing.T) {
	for _, tc := range metricsCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := openai.ParseMetrics(tc.in, MetricNames)
			if tc.err != (err != nil) || (err != nil && !errors.Is(err, openai.ErrMalformed)) {
				t.Fatalf("err = %v, want error: %v", err, tc.err)
			}
			if len(got.Samples) != tc.samples {
				t.Errorf("%d samples, want %d: %+v", len(got.Samples), tc.samples, got.Samples)
			}
			got.Samples = nil
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseMetricsLabels(t *testing.T) {
	m, err := openai.ParseMetrics(`vllm:num_requests_waiting{path="a\"b\\c\nd",x="}",y="q\z"} 4 1700000000000`, MetricNames)
	want := map[string]string{"path": "a\"b\\c\nd", "x": "}", "y": "qz"}
	if err != nil || len(m.Samples) != 1 || fmt.Sprint(m.Samples[0].Labels) != fmt.Sprint(want) || m.Samples[0].Value != 4 {
		t.Fatalf("samples %+v, err %v; want labels %q and value 4", m.Samples, err, want)
	}
	if m.KVCacheTokens() != 0 {
		t.Fatalf("KVCacheTokens = %d with no cache_config_info, want 0", m.KVCacheTokens())
	}
	m, _ = openai.ParseMetrics(vllmV1Metrics, MetricNames)
	if m.KVCacheTokens() != 52000*16 {
		t.Fatalf("KVCacheTokens = %d, want %d", m.KVCacheTokens(), 52000*16)
	}
}

// formatSample writes s back as a line of Prometheus text.
func formatSample(s openai.Sample) string {
	keys := make([]string, 0, len(s.Labels))
	for k := range s.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	var b strings.Builder
	b.WriteString(`"` + esc.Replace(s.Name) + `"`)
	for _, k := range keys {
		fmt.Fprintf(&b, `,"%s"="%s"`, esc.Replace(k), esc.Replace(s.Labels[k]))
	}
	return "{" + b.String() + "} " + strconv.FormatFloat(s.Value, 'g', -1, 64)
}

// FuzzParseMetrics: no panic; the figures agree with the samples; every
// sample, written back out, parses to itself.
func FuzzParseMetrics(f *testing.F) {
	for _, tc := range metricsCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, _ := openai.ParseMetrics(in, MetricNames)
		running := 0.0
		for _, s := range m.Samples {
			if (s.Name == "vllm:num_requests_running" || s.Name == "sglang:num_running_reqs") && s.Value >= 0 && s.Value <= 1<<53 {
				running += s.Value
			}
			line := formatSample(s)
			back, err := openai.ParseMetrics(line, MetricNames)
			if err != nil || len(back.Samples) != 1 || formatSample(back.Samples[0]) != line {
				t.Fatalf("%q parsed from %q does not parse back (%v): %+v", line, in, err, back.Samples)
			}
		}
		if running != m.Running {
			t.Fatalf("Running = %v, its plausible samples sum to %v", m.Running, running)
		}
		for _, b := range m.Bad {
			if b.Value >= 0 && b.Value <= 1<<53 {
				t.Fatalf("%v is a bad sample", b)
			}
		}
	})
}

func TestMetricsEngine(t *testing.T) {
	for _, tc := range []struct {
		in           string
		vllm, sglang bool
	}{
		{"vllm:num_requests_running 1\n", true, false},
		{"sglang:num_running_reqs 1\n", false, true},
		{"python_gc_objects_collected_total 3\n", false, false},
	} {
		m, _ := openai.ParseMetrics(tc.in, MetricNames)
		if m.HasPrefix(vllmEntry.MetricPrefix) != tc.vllm || m.HasPrefix(sglangEntry.MetricPrefix) != tc.sglang {
			t.Errorf("%q: vllm %v sglang %v, want %v %v", tc.in, m.HasPrefix(vllmEntry.MetricPrefix), m.HasPrefix(sglangEntry.MetricPrefix), tc.vllm, tc.sglang)
		}
	}
}

// realFile reads a page the real vLLM served (engine/openai's recordings,
// made by scripts/real-vllm.sh --update-testdata).
func realFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "openai", "testdata", "vllm-0.32.0-cpu", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRealVLLMMetrics(t *testing.T) {
	for _, tc := range []struct {
		file                string
		running, generation float64
	}{
		// Idle after the recorder's first requests: nothing running.
		{"metrics-idle.txt", 0, -1},
		// Under load: the recorder's four streams, all running.
		{"metrics-load.txt", 4, -1},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m, err := openai.ParseMetrics(string(realFile(t, tc.file)), MetricNames)
			if err != nil {
				t.Fatal(err)
			}
			if !m.HasPrefix(vllmEntry.MetricPrefix) || m.HasPrefix(sglangEntry.MetricPrefix) {
				t.Errorf("HasVLLM %v, HasSGLang %v: want a vLLM page", m.HasPrefix(vllmEntry.MetricPrefix), m.HasPrefix(sglangEntry.MetricPrefix))
			}
			if m.Running != tc.running || m.Waiting != 0 {
				t.Errorf("running %g, waiting %g; want %g, 0", m.Running, m.Waiting, tc.running)
			}
			// vllm:cache_config_info on the CPU still says num_gpu_blocks:
			// 256 blocks of 128 tokens, the 32,768 tokens the log reports.
			if m.NumGPUBlocks != 256 || m.BlockSize != 128 || m.KVCacheTokens() != 32768 {
				t.Errorf("KV cache %d blocks × %d = %d; want 256 × 128 = 32768", m.NumGPUBlocks, m.BlockSize, m.KVCacheTokens())
			}
			if !m.HasRequests || !m.HasGenerationTokens || !m.HasITL || m.GenerationTokens < 0 {
				t.Errorf("requests %v, generation %v (%g), ITL %v: the checks need all three", m.HasRequests, m.HasGenerationTokens, m.GenerationTokens, m.HasITL)
			}
			// The ITL histogram counts every token after the first, the TTFT
			// one every first token: together they are the generated tokens,
			// give or take one per running request (scraped under load, the
			// real page had 133 against 129 with 4 running).
			if got := m.ITLCount + m.TTFTCount; math.Abs(got-m.GenerationTokens) > m.Running {
				t.Errorf("ITL %g + TTFT %g = %g; generation tokens %g", m.ITLCount, m.TTFTCount, got, m.GenerationTokens)
			}
		})
	}
}
