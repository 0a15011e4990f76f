package measure

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// usageMode says how a fake server reports usage in a stream.
type usageMode int

const (
	usageContinuous usageMode = iota // in every chunk when asked (vLLM's continuous_usage_stats)
	usageFinal                       // only in a last chunk, whatever was asked
	usageNone                        // never
)

// fakeOpts configures a fake OpenAI-compatible server with known timing:
// token j of a request (j = 0, 1, …) is sent at received + TTFT + j·Interval
// on an absolute schedule, so scheduling noise never accumulates.
type fakeOpts struct {
	TTFT           time.Duration
	Interval       time.Duration
	TokensPerChunk int
	Usage          usageMode
	NoTokenize     bool
	MaxModelLen    int
	ListedMaxLen   int    // max_model_len /v1/models reports, when it differs
	KVTokens       int    // /metrics cache_config_info; 0: no /metrics
	BadRunning     string // /metrics says this for num_requests_running ("NaN", "+Inf")
	APIKey         string
	ChatOverhead   int // tokens the chat template adds
	FailStatus     int // answer generation requests with this HTTP status
	FailMessage    string
	FailFrom       int // fail only the requests after this many (0: all)
	FailUntil      int // fail only up to this request (0: no end)
	RetryAfter     string
	DisconnectAt   int // close the stream after this many tokens
	StallAt        int // stop sending after this many tokens (connection kept)
	Malformed      bool
	HugeEventAt    int // after this many tokens, send an event over the client's limit
	LoopAfter      int // after this many tokens, repeat one phrase forever
	Reasoning      int // chat: the first tokens are reasoning deltas
	ExtraTokens    int // send this many tokens past max_tokens: a server that ignores it
	// Hang, when set, makes every request wait without an answer until the
	// client goes away: a server that accepts connections and never answers.
	Hang *atomic.Bool
}

// fakeServer is an httptest server that records what it sent.
type fakeServer struct {
	*httptest.Server
	opts fakeOpts

	mu       sync.Mutex
	vocab    map[string]int
	pieces   []string
	requests int
	inflight int // streams being served
	sent     int // tokens sent, over all requests
	log      []*fakeRequest
}

// clientSentHeader carries, in Unix nanoseconds, when the client sent a
// request (stampClientSent); the fake then counts its schedule from then
// rather than from when its handler ran.
const clientSentHeader = "X-Test-Client-Sent"

// stampClientSent wraps a transport to stamp every request with
// clientSentHeader as it enters the transport, microseconds after the
// engine's own send time. On a busy machine the handler of a request
// written at once can start 10–20 ms later (the process waits for a CPU):
// time the client counts in TTFT and a schedule from the handler's start
// would leave out of the truth.
func stampClientSent(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		at := time.Now()
		req = req.Clone(req.Context()) // a RoundTripper must not modify its request
		req.Header.Set(clientSentHeader, strconv.FormatInt(at.UnixNano(), 10))
		return next.RoundTrip(req)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// fakeRequest is the server's own record of one generation request: the truth.
type fakeRequest struct {
	Received     time.Time // when the handler ran, or the client sent (clientSentHeader)
	PromptTokens int
	Sent         []time.Time // when each token left, one entry per token
}

var pieceRE = regexp.MustCompile(`\s?[A-Za-z0-9]+|\s+|[^\sA-Za-z0-9]`)

func newFakeServer(t *testing.T, o fakeOpts) *fakeServer {
	t.Helper()
	if o.TokensPerChunk == 0 {
		o.TokensPerChunk = 1
	}
	if o.Interval == 0 {
		o.Interval = 20 * time.Millisecond
	}
	if o.MaxModelLen == 0 {
		o.MaxModelLen = 32768
	}
	if o.ChatOverhead == 0 {
		o.ChatOverhead = 9
	}
	f := &fakeServer{opts: o, vocab: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", f.models)
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"version":"0.0.0-fake"}`)
	})
	mux.HandleFunc("GET /metrics", f.metrics)
	mux.HandleFunc("POST /tokenize", f.tokenize)
	mux.HandleFunc("POST /v1/completions", f.generate)
	mux.HandleFunc("POST /v1/chat/completions", f.generate)
	f.Server = httptest.NewServer(hangable(o.Hang, mux))
	t.Cleanup(f.Close)
	return f
}

// hangable serves h, unless hang is set: then it holds every request
// without answering until the client gives up.
func hangable(hang *atomic.Bool, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang != nil && hang.Load() {
			// The server notices a client that left only once the body is read.
			_, _ = io.Copy(io.Discard, r.Body)
			<-r.Context().Done()
			return
		}
		h.ServeHTTP(w, r)
	})
}

// tokens splits text like a BPE tokenizer would, roughly: a word with its
// leading space, a run of spaces, a punctuation mark; ids are assigned on
// first sight. BOS (id 0) starts every text prompt.
func (f *fakeServer) tokens(text string) []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := []int{0}
	if len(f.pieces) == 0 {
		f.pieces = append(f.pieces, "")
	}
	for _, p := range pieceRE.FindAllString(text, -1) {
		id, ok := f.vocab[p]
		if !ok {
			id = len(f.pieces)
			f.vocab[p] = id
			f.pieces = append(f.pieces, p)
		}
		ids = append(ids, id)
	}
	return ids
}

func (f *fakeServer) authorized(w http.ResponseWriter, r *http.Request) bool {
	if f.opts.APIKey == "" || r.Header.Get("Authorization") == "Bearer "+f.opts.APIKey {
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprint(w, `{"error":"Unauthorized"}`)
	return false
}

func (f *fakeServer) models(w http.ResponseWriter, r *http.Request) {
	if !f.authorized(w, r) {
		return
	}
	listed := f.opts.MaxModelLen
	if f.opts.ListedMaxLen != 0 {
		listed = f.opts.ListedMaxLen
	}
	fmt.Fprintf(w, `{"object":"list","data":[{"id":"fake-model","object":"model","max_model_len":%d}]}`, listed)
}

func (f *fakeServer) metrics(w http.ResponseWriter, _ *http.Request) {
	if f.opts.KVTokens == 0 {
		http.NotFound(w, nil)
		return
	}
	f.mu.Lock()
	n, running, sent := f.requests, f.inflight, f.sent
	f.mu.Unlock()
	fmt.Fprintf(w, "# TYPE vllm:cache_config_info gauge\nvllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"%d\"} 1.0\n", f.opts.KVTokens/16)
	gauge := fmt.Sprintf("%d.0", running)
	if f.opts.BadRunning != "" {
		gauge = f.opts.BadRunning
	}
	fmt.Fprintf(w, "vllm:num_requests_running{model_name=\"fake-model\"} %s\nvllm:num_requests_waiting{model_name=\"fake-model\"} 0.0\n", gauge)
	fmt.Fprintf(w, "vllm:prompt_tokens_total{model_name=\"fake-model\"} %d.0\nvllm:generation_tokens_total{model_name=\"fake-model\"} %d.0\n", n, sent)
}

func (f *fakeServer) tokenize(w http.ResponseWriter, r *http.Request) {
	if f.opts.NoTokenize {
		http.NotFound(w, r)
		return
	}
	var req struct{ Prompt string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	ids := f.tokens(req.Prompt)
	if req.Prompt == "" {
		ids = ids[:1]
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"tokens": ids, "count": len(ids), "max_model_len": f.opts.MaxModelLen})
}

// genRequest is the part of a completions or chat request the fake reads.
type genRequest struct {
	Prompt    json.RawMessage `json:"prompt"`
	Messages  []struct{ Content string }
	MaxTokens int  `json:"max_tokens"`
	IgnoreEOS bool `json:"ignore_eos"`
	Options   struct {
		IncludeUsage    bool `json:"include_usage"`
		ContinuousUsage bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
}

func (f *fakeServer) promptTokens(r *http.Request, g genRequest) int {
	if len(g.Messages) > 0 {
		return len(f.tokens(g.Messages[0].Content)) + f.opts.ChatOverhead
	}
	var ids []int
	if json.Unmarshal(g.Prompt, &ids) == nil {
		return len(ids)
	}
	var s string
	_ = json.Unmarshal(g.Prompt, &s)
	return len(f.tokens(s))
}

func (f *fakeServer) generate(w http.ResponseWriter, r *http.Request) {
	rec := &fakeRequest{Received: time.Now()}
	if at, err := strconv.ParseInt(r.Header.Get(clientSentHeader), 10, 64); err == nil {
		rec.Received = time.Unix(0, at)
	}
	if !f.authorized(w, r) {
		return
	}
	var g genRequest
	if err := json.NewDecoder(r.Body).Decode(&g); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	rec.PromptTokens = f.promptTokens(r, g)
	f.mu.Lock()
	f.requests++
	n := f.requests
	f.log = append(f.log, rec)
	f.mu.Unlock()
	if f.opts.FailStatus != 0 && n > f.opts.FailFrom && (f.opts.FailUntil == 0 || n <= f.opts.FailUntil) {
		w.Header().Set("Content-Type", "application/json")
		if f.opts.RetryAfter != "" {
			w.Header().Set("Retry-After", f.opts.RetryAfter)
		}
		w.WriteHeader(f.opts.FailStatus)
		fmt.Fprintf(w, `{"object":"error","message":%q,"type":"BadRequestError","code":%d}`, f.opts.FailMessage, f.opts.FailStatus)
		return
	}
	if rec.PromptTokens+g.MaxTokens > f.opts.MaxModelLen {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"object":"error","message":"This model's maximum context length is %d tokens. However, you requested %d tokens.","type":"BadRequestError","code":400}`,
			f.opts.MaxModelLen, rec.PromptTokens+g.MaxTokens)
		return
	}
	f.stream(w, r, g, rec, n)
}

// stream sends the tokens on their absolute schedule.
func (f *fakeServer) stream(w http.ResponseWriter, r *http.Request, g genRequest, rec *fakeRequest, n int) {
	f.mu.Lock()
	f.inflight++
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inflight--
		f.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	chat := len(g.Messages) > 0
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	k := f.opts.TokensPerChunk
	continuous := f.opts.Usage == usageContinuous && g.Options.ContinuousUsage
	limit := g.MaxTokens + f.opts.ExtraTokens
	for j := 0; j < limit; j += k {
		if f.opts.StallAt > 0 && j >= f.opts.StallAt {
			<-r.Context().Done()
			return
		}
		if f.opts.DisconnectAt > 0 && j >= f.opts.DisconnectAt {
			panic(http.ErrAbortHandler)
		}
		if f.opts.HugeEventAt > 0 && j >= f.opts.HugeEventAt {
			_, _ = io.WriteString(w, "data: "+strings.Repeat("x", 17<<20))
			return
		}
		time.Sleep(time.Until(rec.Received.Add(f.opts.TTFT + time.Duration(j)*f.opts.Interval)))
		if r.Context().Err() != nil {
			return
		}
		m := min(k, limit-j)
		var text strings.Builder
		for i := range m {
			text.WriteString(f.word(rng, j+i))
		}
		ev := chunkJSON(chat, text.String(), chat && j < f.opts.Reasoning, "")
		if continuous {
			ev = withUsage(ev, rec.PromptTokens, j+m)
		}
		if f.opts.Malformed && j > 0 {
			ev = `{"choices": [ {"delta": {"content": "x"`
		}
		f.mu.Lock()
		for range m {
			rec.Sent = append(rec.Sent, time.Now())
		}
		f.sent += m
		f.mu.Unlock()
		fmt.Fprintf(w, "data: %s\n\n", ev)
		fl.Flush()
	}
	fmt.Fprintf(w, "data: %s\n\n", chunkJSON(chat, "", false, "length"))
	if f.opts.Usage != usageNone && g.Options.IncludeUsage {
		fmt.Fprintf(w, "data: %s\n\n", withUsage(`{"choices":[]}`, rec.PromptTokens, g.MaxTokens))
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	fl.Flush()
}

var fakeWords = strings.Fields("river stone lamp orbit cedar violet harbor maple quartz ember falcon meadow " +
	"copper tundra willow canyon signal lantern pebble thunder")

func (f *fakeServer) word(rng *rand.Rand, j int) string {
	if f.opts.LoopAfter > 0 && j >= f.opts.LoopAfter {
		return []string{" and", " then", " it", " went", " round", "."}[j%6]
	}
	return " " + fakeWords[rng.IntN(len(fakeWords))]
}

func chunkJSON(chat bool, text string, reasoning bool, finish string) string {
	fin := "null"
	if finish != "" {
		fin = fmt.Sprintf("%q", finish)
	}
	if !chat {
		return fmt.Sprintf(`{"object":"text_completion","choices":[{"index":0,"text":%q,"finish_reason":%s}]}`, text, fin)
	}
	field := "content"
	if reasoning {
		field = "reasoning_content"
	}
	return fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{%q:%q},"finish_reason":%s}]}`, field, text, fin)
}

func withUsage(ev string, prompt, completion int) string {
	return strings.TrimSuffix(ev, "}") + fmt.Sprintf(`,"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		prompt, completion, prompt+completion)
}

// requests returns a copy of the server's log.
func (f *fakeServer) requestsLog() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]fakeRequest, len(f.log))
	for i, r := range f.log {
		out[i] = *r
		out[i].Sent = append([]time.Time(nil), r.Sent...)
	}
	return out
}
