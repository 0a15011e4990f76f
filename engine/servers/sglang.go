package servers

import "speedmatrix/engine/openai"

// SGLang, as server.toml and the Engine section name it and as messages
// write it.
const (
	SGLang      = "sglang"
	SGLangTitle = "SGLang"
)

// CheckNoSGLangMetrics is the Checks line of an SGLang server without /metrics.
const CheckNoSGLangMetrics = "Server checks not done: the SGLang server serves no /metrics (start it with --enable-metrics), so the idle check, the drain barrier and the server cross-check were skipped"

// NoteSGLangNoKVBudget is the Run note of an SGLang server whose server
// info gives no KV cache size.
const NoteSGLangNoKVBudget = "SGLang's server info gives no KV cache size (max_total_num_tokens), so no cell could be marked Over capacity: set the run's KV budget to have them"

// sglangEntry is SGLang in Registry: Launch starts it on GPUs, the
// simulator speaks as it, and its server info or sglang:* metrics give it
// away. Its Unsupported keys are vLLM's own (SGLang overlaps scheduling by
// default; its eager mode is --disable-cuda-graph, in extra_args).
var sglangEntry = Entry{
	Name: SGLang, Title: SGLangTitle, MetricPrefix: "sglang:", MetricNames: sglangMetricNames,
	fromInfo: func(info openai.ServerInfo, v openai.ServerVersion) (Kind, bool) {
		if !isSGLang(info) {
			return nil, false
		}
		if info.Version == "" {
			info.Version = v.Version
		}
		return &sglangKind{info: info, hasInfo: true}, true
	},
	kind: func(_ openai.Metrics, v openai.ServerVersion) Kind {
		return &sglangKind{info: openai.ServerInfo{Version: v.Version}}
	},
	Unsupported: []string{"async_scheduling", "distributed_executor_backend", "ray_address", "ray_executable",
		"enforce_eager", "kv_cache_memory_bytes", "device", "cpu_kvcache_space_gib", "cpu_omp_threads_bind", "cpu_num_reserved_cpus"},
	Launches: true, SimMode: SGLang,
}

// sglangKind is an SGLang server: its limits come from its server info,
// its metrics are sglang:* (with --enable-metrics), and a request whose
// client disconnects keeps generating until it is aborted by id.
type sglangKind struct {
	info    openai.ServerInfo
	hasInfo bool // the server answered /get_server_info or /server_info
}

func (*sglangKind) Name() string      { return SGLang }
func (k *sglangKind) Version() string { return k.info.Version }
func (*sglangKind) AbortsByID() bool  { return true }
func (*sglangKind) Checks() Checks    { return sglangChecks }

// isSGLang reports whether a server info answer has the shape of SGLang's:
// an SGLang-only field, not just any JSON.
func isSGLang(i openai.ServerInfo) bool {
	return i.MaxTotalNumTokens > 0 || i.InternalStates != nil || i.ContextLength > 0 && i.ModelPath != ""
}

var sglangChecks = Checks{
	Label:      "SGLang /metrics",
	NoMetrics:  CheckNoSGLangMetrics,
	GenCounter: "sglang:generation_tokens_total",
	Throughput: "sglang:gen_throughput",
}

// sglangMetricNames are SGLang's /metrics names (served with
// --enable-metrics).
var sglangMetricNames = openai.MetricNames{
	"sglang:num_running_reqs":        openai.Running,
	"sglang:num_queue_reqs":          openai.Waiting,
	"sglang:token_usage":             openai.KVCacheUsage,
	"sglang:generation_tokens_total": openai.GenerationTokens,
	"sglang:prompt_tokens_total":     openai.PromptTokens,
	"sglang:gen_throughput":          openai.GenThroughput,
	"sglang:cache_hit_rate":          openai.CacheHitRate,
	"sglang:spec_accept_length":      openai.SpecAcceptLength,
}

// Limits reads the server info. The KV cache is max_total_num_tokens of
// every data parallel rank: summed over the internal states when they give
// it (newer SGLang, one state per rank), else the top-level figure (rank
// 0's) times dp_size. max_running_requests is per rank unless DP attention
// splits it; the context length is the server args' context_length.
func (k *sglangKind) Limits() (Limits, string) {
	if !k.hasInfo {
		return Limits{}, ""
	}
	i := k.info
	dp := max(1, i.DPSize)
	var l Limits
	l.ContextLength = i.ContextLength
	for _, s := range i.InternalStates {
		l.KVTokens += s.MaxTotalNumTokens
	}
	if l.KVTokens == 0 {
		l.KVTokens = i.MaxTotalNumTokens * dp
	}
	running := i.MaxRunningRequests
	if running == 0 && len(i.InternalStates) > 0 {
		running = i.InternalStates[0].MaxRunningRequests
	}
	if !i.EnableDPAttention {
		running *= dp
	}
	l.MaxRunning = running
	if l.KVTokens == 0 {
		return l, NoteSGLangNoKVBudget
	}
	return l, ""
}
