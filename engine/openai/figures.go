package openai

// Figure is one figure Metrics reads from a /metrics page. A server's
// MetricNames say which of its metric names gives which figure; the
// comments name vLLM's metric.
type Figure int

// The figures Metrics reads. An Old figure is a metric that a newer name
// replaced: the newer one wins when a page has both.
const (
	Running               Figure = iota + 1 // num_requests_running, summed
	Waiting                                 // num_requests_waiting, summed
	KVCacheUsage                            // kv_cache_usage_perc (0..1), the largest
	KVCacheUsageOld                         // gpu_cache_usage_perc
	CacheConfig                             // cache_config_info: labels num_gpu_blocks (summed) and block_size
	GenerationTokens                        // generation_tokens_total
	PromptTokens                            // prompt_tokens_total
	ITLCount                                // inter_token_latency_seconds_count
	ITLCountOld                             // time_per_output_token_seconds_count
	TTFTCount                               // time_to_first_token_seconds_count
	Preemptions                             // num_preemptions_total
	SpecDrafts                              // spec_decode_num_drafts_total
	SpecDraftTokens                         // spec_decode_num_draft_tokens_total
	SpecAcceptedTokens                      // spec_decode_num_accepted_tokens_total
	PrefixCacheHits                         // prefix_cache_hits_total
	PrefixCacheHitsOld                      // prefix_cache_hits
	PrefixCacheQueries                      // prefix_cache_queries_total
	PrefixCacheQueriesOld                   // prefix_cache_queries
	GenThroughput                           // SGLang's gen_throughput gauge (tok/s), summed
	CacheHitRate                            // SGLang's cache_hit_rate (0..1), the largest
	SpecAcceptLength                        // SGLang's spec_accept_length, the largest
)

// MetricNames says which figure each of a server's metric names gives.
type MetricNames map[string]Figure
