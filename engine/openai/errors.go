package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/secret"
)

// Sentinel errors a caller can branch on with errors.Is.
var (
	// ErrUnauthorized: the server rejected the API key (HTTP 401 or 403).
	ErrUnauthorized = errors.New("unauthorized")
	// ErrModelNotFound: the server does not serve the requested model (404).
	ErrModelNotFound = errors.New("model not found")
	// ErrContextTooLong: the prompt plus max output exceed the model's context (400).
	ErrContextTooLong = errors.New("context too long")
	// errStalled: a stream got no first token within
	// Client.FirstTokenTimeout of sending, or no further token for
	// Client.StallTimeout.
	errStalled = errors.New("stream stalled")
	// ErrTimeout: a non-streaming request got no answer within
	// Client.RequestTimeout.
	ErrTimeout = errors.New("timed out")
	// errIncomplete: the stream ended before the server finished the answer.
	errIncomplete = errors.New("stream incomplete")
	// ErrNotSupported: the server does not have this endpoint (e.g. /tokenize).
	ErrNotSupported = errors.New("not supported by the server")
	// ErrUnreachable: no connection to the server could be made.
	ErrUnreachable = errors.New("server unreachable")
	// ErrMalformed: the server sent something that is not valid for the API
	// (an event that is not JSON, a metrics line that does not parse).
	ErrMalformed = errors.New("malformed response")
	// ErrRejected: the server turned the request away for now (HTTP 429
	// Too Many Requests, 503 Service Unavailable); APIError.RetryAfter says
	// when it asked to be tried again.
	ErrRejected = errors.New("rejected by the server")
)

// APIError is an HTTP error answer (or an error event inside a stream)
// from the server.
type APIError struct {
	StatusCode int    // HTTP status; for an error event inside a stream, the code it carried
	Message    string // the server's message, on one line
	Type       string // the server's error type, e.g. "BadRequestError"
	Code       string // the server's error code, if any
	// Endpoint is the request that failed, e.g. "POST /v1/chat/completions".
	Endpoint string
	// Model is the model the request asked for, when there was one.
	Model string
	// Available lists the server's models, filled in for ErrModelNotFound
	// when they could be fetched.
	Available []string
	// RetryAfter is how long the answer's Retry-After header asked the
	// client to wait (0: it did not say).
	RetryAfter time.Duration
}

// Error is a one-line message saying what happened and what to change.
func (e *APIError) Error() string {
	switch {
	case e.unauthorized():
		return fmt.Sprintf("the server rejected the API key (%d): it needs the key it was started with", e.StatusCode)
	case e.modelNotFound():
		what := "the requested model"
		if e.Model != "" {
			what = strconv.Quote(e.Model)
		}
		return fmt.Sprintf("the server has no model %s (404): %s", what, pickModel(e.Available))
	case e.contextTooLong():
		return fmt.Sprintf("%s (%d): the prompt and the max output don't fit the model's context", e.Message, e.StatusCode)
	}
	prefix := ""
	if e.Endpoint != "" {
		prefix = e.Endpoint + ": "
	}
	if e.rejected() {
		return fmt.Sprintf("%sthe server rejected requests (%d): %s: it is overloaded or limits its clients' rate", prefix, e.StatusCode, e.Message)
	}
	if e.StatusCode == 404 || e.StatusCode == 405 {
		return fmt.Sprintf("%sthe server answered %d (%s): it does not serve this endpoint", prefix, e.StatusCode, e.Message)
	}
	if e.StatusCode == 0 {
		return fmt.Sprintf("%sthe server reported an error: %s: check the server log", prefix, e.Message)
	}
	return fmt.Sprintf("%sthe server answered %d: %s: check the server log", prefix, e.StatusCode, e.Message)
}

// Is makes errors.Is(err, ErrUnauthorized) and the other sentinels work.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.unauthorized()
	case ErrModelNotFound:
		return e.modelNotFound()
	case ErrContextTooLong:
		return e.contextTooLong()
	case ErrNotSupported:
		return !e.modelNotFound() && (e.StatusCode == 404 || e.StatusCode == 405 || e.StatusCode == 501)
	case ErrRejected:
		return e.rejected()
	}
	return false
}

// rejected reports a status that turns the request away for now: 429, 503.
func (e *APIError) rejected() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode == http.StatusServiceUnavailable
}

// retryAfter reads a Retry-After header, delay-seconds or an HTTP date, as
// the wait from now; 0 when it is missing, unreadable or in the past.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if s, err := strconv.ParseUint(h, 10, 64); err == nil {
		return time.Duration(min(s, 1<<32)) * time.Second // no overflow
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func (e *APIError) unauthorized() bool { return e.StatusCode == 401 || e.StatusCode == 403 }

func (e *APIError) modelNotFound() bool {
	return e.StatusCode == 404 && strings.Contains(strings.ToLower(e.Message), "model")
}

func (e *APIError) contextTooLong() bool {
	if e.StatusCode != 400 && e.StatusCode != 413 && e.StatusCode != 0 {
		return false
	}
	m := strings.ToLower(e.Message)
	return strings.Contains(m, "maximum context length") || strings.Contains(m, "max_model_len") ||
		strings.Contains(m, "maximum model length")
}

func pickModel(available []string) string {
	if len(available) == 0 {
		return "it lists its models at /v1/models"
	}
	const most = 8
	q := make([]string, 0, most)
	for i, id := range available {
		if i == most {
			q = append(q, fmt.Sprintf("and %d more", len(available)-most))
			break
		}
		q = append(q, strconv.Quote(id))
	}
	return "it serves " + strings.Join(q, ", ")
}

// wireError is every error body shape seen from vLLM, OpenAI and FastAPI:
// {"error": {"message","type","code"}}, {"error": "Unauthorized"},
// {"object": "error", "message", "type", "code"} and {"detail": ...}.
type wireError struct {
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Detail  json.RawMessage `json:"detail"`
}

// parseErrorBody turns an error answer into an APIError. It never fails:
// a body that is not JSON becomes the message.
func parseErrorBody(status int, body []byte) *APIError {
	e := &APIError{StatusCode: status}
	var w wireError
	if json.Unmarshal(body, &w) == nil {
		e.fillFrom(w)
	}
	if e.Message == "" {
		e.Message = string(body)
	}
	e.Message = oneLine(e.Message)
	if e.Message == "" {
		e.Message = "no message"
	}
	return e
}

func (e *APIError) fillFrom(w wireError) {
	var inner wireError
	var s string
	switch {
	case json.Unmarshal(w.Error, &s) == nil && s != "":
		e.Message = s
	case len(w.Error) > 0 && w.Error[0] == '{' && json.Unmarshal(w.Error, &inner) == nil:
		e.Message, e.Type, e.Code = inner.Message, inner.Type, rawCode(inner.Code)
	case w.Message != "":
		e.Message, e.Type, e.Code = w.Message, w.Type, rawCode(w.Code)
	case json.Unmarshal(w.Detail, &s) == nil:
		e.Message = s
	default:
		var list []struct {
			Msg string `json:"msg"`
		}
		if json.Unmarshal(w.Detail, &list) == nil && len(list) > 0 {
			e.Message = list[0].Msg
		}
	}
	e.Type, e.Code = engine.BoundName(e.Type), engine.BoundName(e.Code)
}

func rawCode(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	return string(raw)
}

// oneLine folds a message onto one line and cuts it to a readable length
// (engine.BoundText: what hides or reorders text is removed too). It
// folds no more of s than it keeps.
func oneLine(s string) string {
	const most = 300
	return engine.BoundText(strings.Join(strings.Fields(engine.BoundText(s, 4*most)), " "), most)
}

// unreachableError is a failure to connect at all.
type unreachableError struct {
	url string
	err error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("cannot reach %s: is the server running? (%v)", secret.URL(e.url), e.err)
}

func (e *unreachableError) Unwrap() []error { return []error{ErrUnreachable, e.err} }

// NoAnswer reports whether a request got no answer at all: no connection
// (ErrUnreachable), or none within the request timeout (ErrTimeout).
func NoAnswer(err error) bool {
	return errors.Is(err, ErrTimeout) || errors.Is(err, ErrUnreachable)
}

// transportError explains an error from http.Client.Do.
func transportError(ctx context.Context, endpoint, baseURL string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", endpoint, ctxErr)
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return &unreachableError{url: baseURL, err: op}
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return &unreachableError{url: baseURL, err: dns}
	}
	return fmt.Errorf("%s: %w (check the server log)", endpoint, err)
}
