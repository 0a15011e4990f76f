// Package openai is a streaming client for OpenAI-compatible inference
// servers such as vLLM: chat and text completions over server-sent events
// with the arrival time of every chunk, plus the server's side endpoints
// (/v1/models, /tokenize, /detokenize, /health, /version) and a parser for
// the Prometheus text that /metrics serves.
//
// It is an adapter; engine/secret hides the password of a server URL in its
// errors. What it may import is one table for the whole tree, allowedImports
// in imports_test.go, which TestImportRules checks. It sends a URL's user-
// info as basic auth when there is no API key. It is built so that the
// client is never the bottleneck of a benchmark: one buffer per stream,
// timestamps taken as each read returns, and a hand-written parser for the
// common chunk shapes that falls back to encoding/json for anything unusual.
package openai

import (
	"cmp"
	"net"
	"net/http"
	"strings"
	"time"
)

// Defaults for the Client's timeouts, used where its field is zero.
const (
	// DefaultFirstTokenTimeout is how long a stream may wait for its first
	// token: a 128K prefill on a slow GPU takes over a minute.
	DefaultFirstTokenTimeout = 5 * time.Minute
	// DefaultStallTimeout is how long a stream that has produced a token
	// may then go without another.
	DefaultStallTimeout = 30 * time.Second
	// DefaultRequestTimeout bounds every non-streaming request.
	DefaultRequestTimeout = 30 * time.Second
)

// Client talks to one OpenAI-compatible server.
type Client struct {
	// BaseURL is the server's root, e.g. http://127.0.0.1:8000 (no /v1).
	BaseURL string
	// APIKey is sent as a bearer token when it is not empty. It never
	// appears in errors.
	APIKey string
	// HTTP does the requests. It must not have a Timeout: streams are long
	// and are bounded by their context and the timeouts below instead.
	HTTP *http.Client
	// FirstTokenTimeout ends a stream with errStalled when no token arrived
	// this long after the request was sent, whatever else did (keep-alives,
	// empty chunks): a deadline (DefaultFirstTokenTimeout when zero).
	FirstTokenTimeout time.Duration
	// StallTimeout ends a stream with errStalled when, after its first
	// token, no further token arrived for this long, whatever else did
	// (DefaultStallTimeout when zero).
	StallTimeout time.Duration
	// RequestTimeout bounds each non-streaming request, answer included
	// (DefaultRequestTimeout when zero); it ends with ErrTimeout.
	RequestTimeout time.Duration
	// MetricNames are the /metrics names Metrics reads (engine/servers has
	// every engine's); none: Metrics keeps the samples and reads no figure.
	MetricNames MetricNames
}

// New returns a client for the server at baseURL. A trailing slash or /v1 is
// dropped, so both http://host:8000 and http://host:8000/v1/ work.
func New(baseURL, apiKey string) *Client {
	return &Client{
		BaseURL: normalizeBaseURL(baseURL),
		APIKey:  apiKey,
		HTTP:    &http.Client{Transport: newTransport()},
	}
}

func normalizeBaseURL(u string) string {
	u = strings.TrimSpace(u)
	u = strings.TrimRight(u, "/")
	u = strings.TrimSuffix(u, "/v1")
	return strings.TrimRight(u, "/")
}

// newTransport is tuned for many concurrent streams to one host: the
// default transport keeps only two idle connections per host, which would
// make a benchmark at concurrency 128 dial a new connection for almost
// every request.
func newTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   1024,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		// Compressed event streams would delay chunks in the gzip reader.
		DisableCompression: true,
		ForceAttemptHTTP2:  true,
	}
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c *Client) firstTokenTimeout() time.Duration {
	return cmp.Or(c.FirstTokenTimeout, DefaultFirstTokenTimeout)
}

func (c *Client) stallTimeout() time.Duration { return cmp.Or(c.StallTimeout, DefaultStallTimeout) }

func (c *Client) requestTimeout() time.Duration {
	return cmp.Or(c.RequestTimeout, DefaultRequestTimeout)
}
