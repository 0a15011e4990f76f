package openai

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Sample is one line of Prometheus text: a metric name, its labels and its value.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Metrics is what Speed Matrix reads from a server's /metrics page: the
// figures its MetricNames give. Every engine's names fill the same fields
// (engine/servers has each engine's table), so the trust checks read any of
// them. The comments name vLLM's metrics. A sample whose value no server
// could mean (BadValue) is left out of the figures and listed in Bad.
type Metrics struct {
	Running, Waiting float64 // vllm:num_requests_running / _waiting, summed over label sets
	// KVCacheUsage is vllm:kv_cache_usage_perc (0..1; older vLLM:
	// vllm:gpu_cache_usage_perc), the largest over label sets.
	KVCacheUsage float64
	// NumGPUBlocks and BlockSize are labels of vllm:cache_config_info;
	// blocks are summed over engines (data parallel ranks).
	NumGPUBlocks, BlockSize             int
	GenerationTokens, PromptTokens      float64 // vllm:generation_tokens_total, vllm:prompt_tokens_total
	PrefixCacheHits, PrefixCacheQueries float64 // vllm:prefix_cache_hits[_total], vllm:prefix_cache_queries[_total]
	// HasPrefixCache is set when the page has both prefix-cache counters.
	HasPrefixCache bool
	// HasRequests is set when the page has vllm:num_requests_running: the
	// server's load can be read from it.
	HasRequests bool
	// HasGenerationTokens is set when vllm:generation_tokens_total is there.
	HasGenerationTokens bool
	// ITLCount and TTFTCount are the _count of the inter-token latency
	// histogram (vllm:inter_token_latency_seconds, older vLLM:
	// vllm:time_per_output_token_seconds) and of
	// vllm:time_to_first_token_seconds: one observation per output token
	// after the first, and one per first token.
	ITLCount, TTFTCount float64
	HasITL              bool
	// Preemptions is vllm:num_preemptions_total (older: vllm:num_preemptions).
	Preemptions float64
	// Speculative decoding: vllm:spec_decode_num_drafts_total,
	// _num_draft_tokens_total and _num_accepted_tokens_total; HasSpecDecode
	// when any of them is there.
	SpecDrafts, SpecDraftTokens, SpecAcceptedTokens float64
	HasSpecDecode                                   bool
	// GenThroughput is SGLang's sglang:gen_throughput gauge (generated
	// tokens per second over its last log interval), summed over data
	// parallel ranks; HasGenThroughput when the page has it.
	GenThroughput    float64
	HasGenThroughput bool
	// CacheHitRate is sglang:cache_hit_rate (0..1), the largest over label
	// sets; HasCacheHitRate when the page has it.
	CacheHitRate    float64
	HasCacheHitRate bool
	// SpecAcceptLength is sglang:spec_accept_length, the mean accepted
	// length of speculative decoding; HasSpecAcceptLength when present.
	SpecAcceptLength    float64
	HasSpecAcceptLength bool
	// Bad are the samples of figures that were left out: not a number,
	// infinite, negative or absurdly large. A page whose
	// vllm:num_requests_running is bad still HasRequests.
	Bad     []BadValue
	Samples []Sample // every sample parsed
}

// maxPlausible is the largest value a figure may have: 2^53, beyond which
// a float64 no longer counts by one.
const maxPlausible = 1 << 53

// plausible reports whether v can be a count, a rate or a share: a finite
// number from 0 to maxPlausible.
func plausible(v float64) bool { return v >= 0 && v <= maxPlausible }

// BadValue is a sample of a figure whose value no server could mean.
type BadValue struct {
	Name   string // the metric's name: "vllm:num_requests_running"
	Figure Figure
	Value  float64
}

// String says it as messages do: "vllm:num_requests_running = +Inf".
func (b BadValue) String() string {
	return b.Name + " = " + strconv.FormatFloat(b.Value, 'g', -1, 64)
}

// BadOf returns the first bad sample of one of figs, if any.
func (m Metrics) BadOf(figs ...Figure) (BadValue, bool) {
	for _, b := range m.Bad {
		if slices.Contains(figs, b.Figure) {
			return b, true
		}
	}
	return BadValue{}, false
}

// HasPrefix reports whether the page has a metric whose name starts with
// p ("vllm:", "sglang:"): which engine serves it.
func (m Metrics) HasPrefix(p string) bool {
	for _, s := range m.Samples {
		if strings.HasPrefix(s.Name, p) {
			return true
		}
	}
	return false
}

// KVCacheTokens is the server's KV cache size in tokens
// (NumGPUBlocks × BlockSize), 0 when unknown.
func (m Metrics) KVCacheTokens() int { return m.NumGPUBlocks * m.BlockSize }

// Metrics scrapes GET /metrics and reads the figures c.MetricNames name.
// Lines that do not parse are skipped; it fails only when the page holds no
// sample at all.
func (c *Client) Metrics(ctx context.Context) (Metrics, error) {
	const endpoint = "GET /metrics"
	rctx, cancel := context.WithTimeout(ctx, c.requestTimeout())
	defer cancel()
	req, err := c.newRequest(rctx, http.MethodGet, "/metrics", nil)
	if err != nil {
		return Metrics{}, err
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return Metrics{}, c.timedOut(ctx, rctx, endpoint, transportError(ctx, endpoint, c.BaseURL, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Metrics{}, c.answerError(ctx, resp, endpoint, "")
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes))
	if err != nil {
		return Metrics{}, c.timedOut(ctx, rctx, endpoint, fmt.Errorf("%s: %w", endpoint, err))
	}
	m, err := ParseMetrics(string(body), c.MetricNames)
	if err != nil && len(m.Samples) == 0 {
		return m, fmt.Errorf("GET /metrics: %w: is this a vLLM or SGLang server?", err)
	}
	return m, nil
}

// metricsAcc holds what needs all samples before it becomes a figure.
type metricsAcc struct {
	kvNew, kvOld                float64
	hasKVNew, hasKVOld          bool
	hits, hitsTotal             float64
	queries, queriesTotal       float64
	hasHitsTotal, hasQueryTotal bool
	hasHits, hasQueries         bool
	itlNew, itlOld              float64
	hasITLNew, hasITLOld        bool
}

// ParseMetrics parses Prometheus text exposition format (and the
// OpenMetrics variant) and reads the figures that names give. It returns
// every sample that parses, and an error (ErrMalformed) naming the first
// line that does not.
func ParseMetrics(text string, names MetricNames) (Metrics, error) {
	var m Metrics
	var acc metricsAcc
	var firstErr error
	for n := 1; text != ""; n++ {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		s, err := parseSample(line)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("%w: metrics line %d: %v", ErrMalformed, n, err)
			}
			continue
		}
		m.Samples = append(m.Samples, s)
		fig, ok := names[s.Name]
		switch {
		case !ok:
		case fig != CacheConfig && !plausible(s.Value): // an info metric's value says nothing
			m.Bad = append(m.Bad, BadValue{Name: s.Name, Figure: fig, Value: s.Value})
			m.HasRequests = m.HasRequests || fig == Running
		default:
			m.add(fig, s, &acc)
		}
	}
	m.finish(&acc)
	return m, firstErr
}

func (m *Metrics) add(fig Figure, s Sample, acc *metricsAcc) {
	v := s.Value
	switch fig {
	case Running:
		m.Running += v
		m.HasRequests = true
	case Waiting:
		m.Waiting += v
	case KVCacheUsage:
		acc.kvNew, acc.hasKVNew = maxSeen(acc.kvNew, acc.hasKVNew, v), true
	case KVCacheUsageOld:
		acc.kvOld, acc.hasKVOld = maxSeen(acc.kvOld, acc.hasKVOld, v), true
	case CacheConfig:
		blocks, _ := strconv.Atoi(s.Labels["num_gpu_blocks"])
		m.NumGPUBlocks += blocks
		if size, err := strconv.Atoi(s.Labels["block_size"]); err == nil && m.BlockSize == 0 {
			m.BlockSize = size
		}
	case GenerationTokens:
		m.GenerationTokens += v
		m.HasGenerationTokens = true
	case ITLCount:
		acc.itlNew, acc.hasITLNew = acc.itlNew+v, true
	case ITLCountOld:
		acc.itlOld, acc.hasITLOld = acc.itlOld+v, true
	case TTFTCount:
		m.TTFTCount += v
	case Preemptions:
		m.Preemptions += v
	case SpecDrafts:
		m.SpecDrafts, m.HasSpecDecode = m.SpecDrafts+v, true
	case SpecDraftTokens:
		m.SpecDraftTokens, m.HasSpecDecode = m.SpecDraftTokens+v, true
	case SpecAcceptedTokens:
		m.SpecAcceptedTokens, m.HasSpecDecode = m.SpecAcceptedTokens+v, true
	case PromptTokens:
		m.PromptTokens += v
	case PrefixCacheHits:
		acc.hitsTotal, acc.hasHitsTotal = acc.hitsTotal+v, true
	case PrefixCacheHitsOld:
		acc.hits, acc.hasHits = acc.hits+v, true
	case PrefixCacheQueries:
		acc.queriesTotal, acc.hasQueryTotal = acc.queriesTotal+v, true
	case PrefixCacheQueriesOld:
		acc.queries, acc.hasQueries = acc.queries+v, true
	case GenThroughput:
		m.GenThroughput += v
		m.HasGenThroughput = true
	case CacheHitRate:
		m.CacheHitRate = max(m.CacheHitRate, v)
		m.HasCacheHitRate = true
	case SpecAcceptLength:
		m.SpecAcceptLength = max(m.SpecAcceptLength, v)
		m.HasSpecAcceptLength = true
	}
}

// finish settles the figures that have an old and a new name: the new
// name wins when both are there, so nothing is counted twice.
func (m *Metrics) finish(acc *metricsAcc) {
	m.KVCacheUsage, _ = newerName(acc.kvNew, acc.hasKVNew, acc.kvOld, acc.hasKVOld)
	m.ITLCount, m.HasITL = newerName(acc.itlNew, acc.hasITLNew, acc.itlOld, acc.hasITLOld)
	var hasHits, hasQueries bool
	m.PrefixCacheHits, hasHits = newerName(acc.hitsTotal, acc.hasHitsTotal, acc.hits, acc.hasHits)
	m.PrefixCacheQueries, hasQueries = newerName(acc.queriesTotal, acc.hasQueryTotal, acc.queries, acc.hasQueries)
	m.HasPrefixCache = hasHits && hasQueries
}

// newerName is the figure under the new name when the page has it, else
// the one under the old name; ok says whether either was there.
func newerName(newV float64, hasNew bool, oldV float64, hasOld bool) (v float64, ok bool) {
	switch {
	case hasNew:
		return newV, true
	case hasOld:
		return oldV, true
	}
	return 0, false
}

func maxSeen(cur float64, seen bool, v float64) float64 {
	if !seen || v > cur {
		return v
	}
	return cur
}
