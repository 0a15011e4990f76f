package openai

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStreamKeepsChunkID: the stream's id is its first chunk's, as SGLang
// sends its request id, for the abort.
func TestStreamKeepsChunkID(t *testing.T) {
	var got struct {
		RID string `json:"rid"`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &got)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"rid-7","choices":[{"delta":{"content":"a"}}]}`+"\n\n"+
			`data: {"id":"other","choices":[{"delta":{"content":"b"},"finish_reason":"length"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	st, err := New(srv.URL, "").Stream(t.Context(), StreamRequest{Model: "m", Prompt: "x", MaxTokens: 2, RID: "rid-7"}, nil)
	if err != nil || st.ID != "rid-7" || got.RID != "rid-7" {
		t.Errorf("id %q, sent rid %q, err %v; want rid-7 both ways", st.ID, got.RID, err)
	}
}

// TestAbortRequest sends {"rid": …} and nothing that aborts all, and
// returns the server's refusal as an error.
func TestAbortRequest(t *testing.T) {
	var body string
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body = r.Method + " " + r.URL.Path + " " + string(b)
		w.WriteHeader(status)
	}))
	defer srv.Close()
	c := New(srv.URL, "")
	if err := c.AbortRequest(t.Context(), "r1"); err != nil || body != `POST /abort_request {"rid":"r1"}` {
		t.Errorf("sent %q, err %v", body, err)
	}
	status = http.StatusBadRequest
	if err := c.AbortRequest(t.Context(), "r1"); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("err %v, want the 400", err)
	}
}

// TestServerInfoFallsBack asks /server_info when /get_server_info is gone.
func TestServerInfoFallsBack(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/server_info" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, `{"internal_states":[{"max_total_num_tokens":5}],"version":"0.5.6"}`)
	}))
	defer srv.Close()
	info, err := New(srv.URL, "").ServerInfo(t.Context())
	if err != nil || info.Version != "0.5.6" || info.InternalStates[0].MaxTotalNumTokens != 5 {
		t.Errorf("info %+v, err %v", info, err)
	}
}
