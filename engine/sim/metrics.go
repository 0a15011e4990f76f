package sim

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// histogram is a Prometheus histogram with fixed buckets.
type histogram struct {
	bounds []float64
	counts []int64 // per bucket, not cumulative; last is +Inf
	sum    float64
	n      int64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]int64, len(bounds)+1)}
}

func (h *histogram) observe(v float64, n int) {
	i := sort.SearchFloat64s(h.bounds, v)
	h.counts[i] += int64(n)
	h.sum += v * float64(n)
	h.n += int64(n)
}

// metricsState is what /metrics reports; Server.mu guards it.
type metricsState struct {
	running, waiting int
	kvUsage          float64
	ttft, itl        *histogram
	load             stepLoad
	rate             tokenRate // SGLang's gen_throughput
}

func newMetricsState() metricsState {
	return metricsState{
		// vLLM's buckets for these two histograms.
		ttft: newHistogram([]float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}),
		itl:  newHistogram([]float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}),
	}
}

func promFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eIN") {
		s += ".0"
	}
	return s
}

// handleMetrics writes the server's state in Prometheus text format with
// vLLM's metric names. Times are model seconds. The counters advance with
// every scheduler step (generation tokens only when a request ends under
// Faults.GenTokensAtFinish); the speculative decoding counters appear only
// when the profile decodes speculatively, as in vLLM.
func (s *Server) handleMetrics(w http.ResponseWriter, _ *http.Request) {
	if s.opts.NoMetrics {
		http.NotFound(w, nil)
		return
	}
	var b strings.Builder
	lbl := fmt.Sprintf(`engine="0",model_name=%q`, s.prof.ServedModel)
	metric := func(name, kind, help string, v float64) { writeMetric(&b, name, kind, help, lbl, v) }
	s.mu.Lock()
	m, st := s.metrics, s.core.stats
	finished := make(map[string]int64, len(st.finished))
	for k, v := range st.finished {
		finished[k] = v
	}
	spec := st.spec.clone()
	ttft, itl := *m.ttft, *m.itl
	ttft.counts, itl.counts = append([]int64(nil), m.ttft.counts...), append([]int64(nil), m.itl.counts...)
	m.rate = tokenRate{at: append([]float64(nil), m.rate.at...), tokens: append([]int64(nil), m.rate.tokens...)}
	s.mu.Unlock()
	if s.isSGLang() {
		st.finished, st.spec = finished, spec
		s.writeSGLangMetrics(&b, m, st)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(b.String()))
		return
	}

	metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.", float64(m.running))
	metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.", float64(m.waiting))
	metric("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.", m.kvUsage)
	metric("vllm:prefix_cache_queries_total", "counter", "Prefix cache queries, in terms of number of queried tokens.", float64(st.prefixQueries))
	metric("vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.", float64(st.prefixHits))
	metric("vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.", float64(st.preemptions))
	metric("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.", float64(st.promptTokens))
	metric("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.", float64(st.generationTokens))
	b.WriteString("# HELP vllm:request_success_total Count of successfully processed requests.\n# TYPE vllm:request_success_total counter\n")
	for _, reason := range []string{"length", "stop", "abort"} {
		fmt.Fprintf(&b, "vllm:request_success_total{%s,finished_reason=%q} %s\n", lbl, reason, promFloat(float64(finished[reason])))
	}
	if s.prof.SpecDecode != nil {
		writeSpecMetrics(&b, lbl, spec)
	}
	writeHistogram(&b, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", lbl, &ttft)
	writeHistogram(&b, "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", lbl, &itl)
	fmt.Fprintf(&b, "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n# TYPE vllm:cache_config_info gauge\n")
	fmt.Fprintf(&b, "vllm:cache_config_info{block_size=\"%d\",cache_dtype=\"auto\",enable_prefix_caching=\"%s\",engine=\"0\",gpu_memory_utilization=\"0.9\",model_name=%q,num_cpu_blocks=\"None\",num_gpu_blocks=\"%d\",prefix_caching_hash_algo=\"sha256\"} 1.0\n",
		s.prof.BlockSize, pyBool(!s.prof.NoPrefixCaching), s.prof.ServedModel, s.prof.KVCacheTokens/s.prof.BlockSize)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
}

// writeMetric writes one gauge or counter with its HELP and TYPE lines.
func writeMetric(b *strings.Builder, name, kind, help, lbl string, v float64) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n%s{%s} %s\n", name, help, name, kind, name, lbl, promFloat(v))
}

func writeHistogram(b *strings.Builder, name, help, lbl string, h *histogram) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	var cum int64
	for i, bound := range h.bounds {
		cum += h.counts[i]
		fmt.Fprintf(b, "%s_bucket{%s,le=\"%s\"} %s\n", name, lbl, promFloat(bound), promFloat(float64(cum)))
	}
	cum += h.counts[len(h.bounds)]
	fmt.Fprintf(b, "%s_bucket{%s,le=\"+Inf\"} %s\n", name, lbl, promFloat(float64(cum)))
	fmt.Fprintf(b, "%s_count{%s} %s\n%s_sum{%s} %s\n", name, lbl, promFloat(float64(h.n)), name, lbl, promFloat(h.sum))
}

// tokenRate is a generated-tokens-per-second gauge over the last
// rateWindowS of model time, as SGLang's gen_throughput is over its last
// log interval.
type tokenRate struct {
	at     []float64 // model seconds
	tokens []int64   // cumulative generated tokens at each
}

const rateWindowS = 1.0

func (r *tokenRate) add(nowS float64, tokens int64) {
	if n := len(r.at); n > 0 && tokens == r.tokens[n-1] && nowS-r.at[n-1] < rateWindowS/8 {
		return
	}
	r.at, r.tokens = append(r.at, nowS), append(r.tokens, tokens)
	cut := 0
	for cut < len(r.at)-2 && nowS-r.at[cut+1] >= rateWindowS {
		cut++
	}
	if cut > 0 {
		r.at, r.tokens = append(r.at[:0], r.at[cut:]...), append(r.tokens[:0], r.tokens[cut:]...)
	}
}

// perSecond is the rate over the window; 0 before two samples.
func (r *tokenRate) perSecond() float64 {
	n := len(r.at)
	if n < 2 || r.at[n-1] <= r.at[0] {
		return 0
	}
	return float64(r.tokens[n-1]-r.tokens[0]) / (r.at[n-1] - r.at[0])
}

// pyBool writes b as Python does, as vLLM's labels show it.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
