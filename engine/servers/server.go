package servers

import (
	"context"
	"maps"
	"slices"

	"speedmatrix/engine/openai"
)

// Kind is the engine behind an endpoint, as Detect found it: its name and
// version for the Engine section, the limits it reports, the names of its
// /metrics, and how a request still open at a window's end is stopped on
// the server.
type Kind interface {
	// Name names the engine in the Engine section: "vllm", "sglang",
	// "OpenAI-compatible server".
	Name() string
	// Version is the server's version, "" when it does not say.
	Version() string
	// Limits is what the server says it can hold (zeros: not said), and a
	// note when it should have said and did not.
	Limits() (Limits, string)
	// Checks names the engine's /metrics for the checks and their messages.
	Checks() Checks
	// AbortsByID reports whether a request still streaming when a window
	// closes must be aborted on the server by its id: closing the stream
	// does not stop it there (SGLang). vLLM aborts it on the disconnect.
	AbortsByID() bool
}

// Limits are the limits a server reports; 0 is not said.
type Limits struct {
	KVTokens      int // KV cache size in tokens, over every data parallel rank
	MaxRunning    int // requests it runs at once
	ContextLength int // its max_model_len
}

// Checks name an engine's /metrics: what the Checks line, the messages and
// the cross-check's token source say.
type Checks struct {
	// Label names the page in messages: "vLLM /metrics".
	Label string
	// NoMetrics says what to do when the server serves none.
	NoMetrics string
	// GenCounter is the cumulative generated-token counter.
	GenCounter string
	// ITLCounters are the latency histograms' counts that also count
	// tokens, "" when the engine has none the check uses.
	ITLCounters string
	// Throughput is the generated tokens per second gauge the cross-check
	// falls back on when the counter moves only as requests end; "" if none.
	Throughput string
}

// MetricNames are every engine's /metrics names with the figure each
// gives: a client with them reads any engine's page (the names don't
// overlap: each engine has its own prefix).
var MetricNames = merged(Registry)

func merged(entries []Entry) openai.MetricNames {
	all := openai.MetricNames{}
	for _, e := range entries {
		maps.Copy(all, e.MetricNames)
	}
	return all
}

// Detect asks the server what it is: its /version, SGLang's server info
// (/get_server_info or /server_info), and the names on its /metrics (each
// Registry entry's MetricPrefix). A server that answers none is a generic
// OpenAI-compatible one. It also returns the /version answer (zero when
// there is none), which says whether the server is our simulator. c reads
// the metrics with MetricNames.
//
// A request that gets no answer at all (unreachable, or timed out: a
// server that accepts connections and never answers) ends it at once with
// that request's error, rather than each of the others waiting as long.
func Detect(ctx context.Context, c *openai.Client) (Kind, openai.ServerVersion, error) {
	v, verr := c.VersionInfo(ctx)
	if openai.NoAnswer(verr) {
		return Generic, v, verr
	}
	info, err := c.ServerInfo(ctx)
	if openai.NoAnswer(err) {
		return Generic, v, err
	}
	for _, e := range Registry {
		if e.fromInfo == nil || err != nil {
			continue
		}
		if k, ok := e.fromInfo(info, v); ok {
			return k, v, nil
		}
	}
	m, merr := c.Metrics(ctx)
	if openai.NoAnswer(merr) {
		return Generic, v, merr
	}
	for _, e := range detectOrder() {
		if merr == nil && e.MetricPrefix != "" && m.HasPrefix(e.MetricPrefix) {
			return e.kind(m, v), v, nil
		}
	}
	for _, e := range Registry {
		if verr == nil && e.answersVersion {
			return e.kind(m, v), v, nil
		}
	}
	return Generic, v, nil
}

// detectOrder is Registry with the entries that answersVersion last: an
// engine known by its own metrics is that engine even when it also answers
// /version (SGLang does).
func detectOrder() []Entry {
	order := slices.Clone(Registry)
	slices.SortStableFunc(order, func(a, b Entry) int {
		switch {
		case a.answersVersion == b.answersVersion:
			return 0
		case a.answersVersion:
			return 1
		}
		return -1
	})
	return order
}
