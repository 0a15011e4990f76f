package servers

import "speedmatrix/engine/openai"

// vLLM, as server.toml and the Engine section name it and as messages
// write it.
const (
	VLLM      = "vllm"
	VLLMTitle = "vLLM"
)

// CheckNoVLLMMetrics is the Checks line of a vLLM (or generic) server
// without /metrics.
const CheckNoVLLMMetrics = "Server checks not done: the server serves no vLLM /metrics, so the idle check, the drain barrier and the server cross-check were skipped"

// vllmEntry is vLLM in Registry: Launch starts it (on GPUs, or its CPU
// build), the simulator speaks as it, and a server that answers /version
// and is known no other way is taken for it.
var vllmEntry = Entry{
	Name: VLLM, Title: VLLMTitle, MetricPrefix: "vllm:", MetricNames: vllmMetricNames,
	kind: func(m openai.Metrics, v openai.ServerVersion) Kind {
		return vllmKind{version: v.Version, kvTokens: m.KVCacheTokens()}
	},
	answersVersion: true, Launches: true, SimMode: VLLM, EnvPrefixes: []string{"VLLM_"},
}

// vllmKind is a vLLM server: it answers /version and serves vllm:* metrics,
// whose vllm:cache_config_info gives its KV cache size (num_gpu_blocks ×
// block_size), and it aborts a request when its client disconnects.
type vllmKind struct {
	version  string
	kvTokens int // from /metrics at detection; 0: not said
}

func (vllmKind) Name() string      { return VLLM }
func (k vllmKind) Version() string { return k.version }
func (k vllmKind) Limits() (Limits, string) {
	return Limits{KVTokens: k.kvTokens}, ""
}
func (vllmKind) AbortsByID() bool { return false }
func (vllmKind) Checks() Checks   { return vllmChecks }

var vllmChecks = Checks{
	Label:       "vLLM /metrics",
	NoMetrics:   CheckNoVLLMMetrics,
	GenCounter:  "vllm:generation_tokens_total",
	ITLCounters: "vllm:inter_token_latency_seconds_count + vllm:time_to_first_token_seconds_count",
}

// vllmMetricNames are vLLM's /metrics names (V1; the older names where a
// newer one replaced them).
var vllmMetricNames = openai.MetricNames{
	"vllm:num_requests_running":                  openai.Running,
	"vllm:num_requests_waiting":                  openai.Waiting,
	"vllm:kv_cache_usage_perc":                   openai.KVCacheUsage,
	"vllm:gpu_cache_usage_perc":                  openai.KVCacheUsageOld,
	"vllm:cache_config_info":                     openai.CacheConfig,
	"vllm:generation_tokens_total":               openai.GenerationTokens,
	"vllm:prompt_tokens_total":                   openai.PromptTokens,
	"vllm:inter_token_latency_seconds_count":     openai.ITLCount,
	"vllm:time_per_output_token_seconds_count":   openai.ITLCountOld,
	"vllm:time_to_first_token_seconds_count":     openai.TTFTCount,
	"vllm:num_preemptions_total":                 openai.Preemptions,
	"vllm:num_preemptions":                       openai.Preemptions,
	"vllm:spec_decode_num_drafts_total":          openai.SpecDrafts,
	"vllm:spec_decode_num_draft_tokens_total":    openai.SpecDraftTokens,
	"vllm:spec_decode_num_accepted_tokens_total": openai.SpecAcceptedTokens,
	"vllm:prefix_cache_hits_total":               openai.PrefixCacheHits,
	"vllm:prefix_cache_hits":                     openai.PrefixCacheHitsOld,
	"vllm:prefix_cache_queries_total":            openai.PrefixCacheQueries,
	"vllm:prefix_cache_queries":                  openai.PrefixCacheQueriesOld,
}
