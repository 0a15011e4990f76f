package measure

// vllmKind is a vLLM server: it answers /version and serves vllm:* metrics,
// whose vllm:cache_config_info gives its KV cache size (num_gpu_blocks ×
// block_size), and it aborts a request when its client disconnects.
type vllmKind struct {
	version  string
	kvTokens int // from /metrics at detection; 0: not said
}

func (vllmKind) Name() string      { return "vllm" }
func (k vllmKind) Version() string { return k.version }
func (k vllmKind) limits() (serverLimits, string) {
	return serverLimits{KVTokens: k.kvTokens}, ""
}
func (vllmKind) abortsByID() bool     { return false }
func (vllmKind) metrics() metricNames { return vllmMetrics }

var vllmMetrics = metricNames{
	Label:       "vLLM /metrics",
	NoMetrics:   CheckNoServerMetrics,
	GenCounter:  "vllm:generation_tokens_total",
	ITLCounters: "vllm:inter_token_latency_seconds_count + vllm:time_to_first_token_seconds_count",
}
