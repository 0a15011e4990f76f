package measure

import (
	"speedmatrix/engine/openai"
)

// CheckNoSGLangMetrics is the Checks line of an SGLang server without /metrics.
const CheckNoSGLangMetrics = "Server checks not done: the SGLang server serves no /metrics (start it with --enable-metrics), so the idle check, the drain barrier and the server cross-check were skipped"

// NoteSGLangNoKVBudget is the Run note of an SGLang server whose server
// info gives no KV cache size.
const NoteSGLangNoKVBudget = "SGLang's server info gives no KV cache size (max_total_num_tokens), so no cell could be marked Over capacity: set the run's KV budget to have them"

// sglangKind is an SGLang server: its limits come from its server info,
// its metrics are sglang:* (with --enable-metrics), and a request whose
// client disconnects keeps generating until it is aborted by id.
type sglangKind struct {
	info    openai.ServerInfo
	hasInfo bool // the server answered /get_server_info or /server_info
}

func (*sglangKind) Name() string         { return "sglang" }
func (k *sglangKind) Version() string    { return k.info.Version }
func (*sglangKind) abortsByID() bool     { return true }
func (*sglangKind) metrics() metricNames { return sglangMetrics }

var sglangMetrics = metricNames{
	Label:      "SGLang /metrics",
	NoMetrics:  CheckNoSGLangMetrics,
	GenCounter: "sglang:generation_tokens_total",
	Throughput: "sglang:gen_throughput",
}

// limits reads the server info. The KV cache is max_total_num_tokens of
// every data parallel rank: summed over the internal states when they give
// it (newer SGLang, one state per rank), else the top-level figure (rank
// 0's) times dp_size. max_running_requests is per rank unless DP attention
// splits it; the context length is the server args' context_length.
func (k *sglangKind) limits() (serverLimits, string) {
	if !k.hasInfo {
		return serverLimits{}, ""
	}
	i := k.info
	dp := max(1, i.DPSize)
	var l serverLimits
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
