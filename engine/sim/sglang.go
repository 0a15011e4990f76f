package sim

import (
	"fmt"
	"net/http"
	"strings"
)

// SGLangVersion is the version the simulator reports in SGLang mode.
const SGLangVersion = "0.5.6"

// sglangState is SGLang mode's bookkeeping: the requests by rid, for
// /abort_request, and what the aborts found. Server.mu guards it.
type sglangState struct {
	byRID   map[string]*seq
	ended   map[string]bool // answered in full while the client was there
	aborted map[string]bool
	// unknown holds the rids aborted before their request was read.
	unknown map[string]bool
	stats   AbortStats
	ranOn   int
}

func newSGLangState() sglangState {
	return sglangState{byRID: map[string]*seq{}, ended: map[string]bool{}, aborted: map[string]bool{}, unknown: map[string]bool{}}
}

// AbortStats counts the aborts an SGLang-mode simulator received.
type AbortStats struct {
	// Received is every POST /abort_request; Live those that named a
	// request still generating; Ended those whose request had already
	// finished; Unknown those whose rid it never served; Repeated those
	// naming a request aborted before.
	Received int `json:"received"`
	Live     int `json:"live"`
	Ended    int `json:"ended"`
	Unknown  int `json:"unknown"`
	Repeated int `json:"repeated"`
	// Early counts the aborts that arrived before their request was read:
	// the request is then dropped when it arrives.
	Early int `json:"early"`
	// AbortAll counts the requests that asked to abort everything.
	AbortAll int `json:"abort_all"`
	// RanOn counts the requests that arrived while a request whose client
	// had left was still generating: work of one cell running on into the
	// next.
	RanOn int `json:"ran_on"`
}

// Aborts returns what /abort_request received so far (SGLang mode).
func (s *Server) Aborts() AbortStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sglang.stats
	st.RanOn = s.sglang.ranOn
	return st
}

func (s *Server) isSGLang() bool { return s.opts.Mode == ModeSGLang }

// engine names the engine the simulator speaks as.
func (s *Server) engine() string {
	if s.isSGLang() {
		return ModeSGLang
	}
	return ModeVLLM
}

// version is the engine's version in /version and the server info.
func (s *Server) version() string {
	if s.isSGLang() {
		return SGLangVersion
	}
	return s.prof.Version
}

// sglangRoutes are SGLang's own endpoints. Like older SGLang, the
// simulator then has no /tokenize, so a client sizes prompts without it.
func (s *Server) sglangRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /get_server_info", s.handleServerInfo)
	m.HandleFunc("GET /server_info", s.handleServerInfo)
	m.HandleFunc("GET /get_model_info", s.handleModelInfo)
	m.HandleFunc("POST /abort_request", s.handleAbort)
	m.HandleFunc("GET /speedmatrix_sim/aborts", s.handleAbortStats)
}

// handleAbortStats serves Aborts as JSON, a simulator-only endpoint for
// checking by hand that every open request was aborted once.
func (s *Server) handleAbortStats(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.Aborts())
}

// trackRID remembers g's sequence by its id, for /abort_request. A
// request whose abort came first is marked done, so that it never runs.
func (s *Server) trackRID(g *genRequest) {
	if !s.isSGLang() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sglang.unknown[g.id] {
		delete(s.sglang.unknown, g.id)
		s.sglang.stats.Unknown--
		s.sglang.stats.Early++
		s.sglang.aborted[g.id] = true
		g.q.state = stDone
		return
	}
	s.sglang.byRID[g.id] = g.q
}

// untrackRID forgets g once its answer is done while its client is still
// there; a request whose client left stays known, for its abort.
func (s *Server) untrackRID(r *http.Request, g *genRequest) {
	if !s.isSGLang() || r.Context().Err() != nil {
		return
	}
	s.mu.Lock()
	delete(s.sglang.byRID, g.id)
	s.sglang.ended[g.id] = true
	s.mu.Unlock()
}

// handleServerInfo answers as SGLang's /get_server_info does: its server
// args, the scheduler's max_total_num_tokens, one internal state per data
// parallel rank, and the version.
func (s *Server) handleServerInfo(w http.ResponseWriter, _ *http.Request) {
	p := s.prof
	s.mu.Lock()
	tput := s.metrics.rate.perSecond()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"model_path": p.Model, "tokenizer_path": p.Model, "served_model_name": p.ServedModel,
		"host": "127.0.0.1", "port": 30000, "tp_size": p.GPURig().GPUs(), "dp_size": 1,
		"context_length": p.MaxModelLen, "max_running_requests": p.MaxNumSeqs,
		"mem_fraction_static": 0.88, "enable_metrics": !s.opts.NoMetrics, "enable_dp_attention": false,
		"max_total_num_tokens": p.KVCacheTokens, "max_req_input_len": p.MaxModelLen - 5,
		"internal_states": []map[string]any{{
			"dp_rank": 0, "max_total_num_tokens": p.KVCacheTokens, "max_running_requests": p.MaxNumSeqs,
			"last_gen_throughput": tput,
		}},
		"version":      SGLangVersion,
		simulatorField: p.Name,
	})
}

func (s *Server) handleModelInfo(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"model_path": s.prof.Model, "tokenizer_path": s.prof.Model, "is_generation": true})
}

// handleAbort aborts the request named by rid, as SGLang does: 200 also
// when it has ended or was never seen.
func (s *Server) handleAbort(w http.ResponseWriter, r *http.Request) {
	var body struct {
		RID      string `json:"rid"`
		AbortAll bool   `json:"abort_all"`
	}
	if err := decodeBody(r, &body); err != nil {
		answerError(w, err)
		return
	}
	s.mu.Lock()
	s.sglang.stats.Received++
	var live *seq
	switch q, ok := s.sglang.byRID[body.RID]; {
	case body.AbortAll:
		s.sglang.stats.AbortAll++
	case s.sglang.aborted[body.RID]:
		s.sglang.stats.Repeated++
	case ok && q.state != stDone:
		s.sglang.stats.Live++
		live = q
	case ok || s.sglang.ended[body.RID]:
		s.sglang.stats.Ended++
	default:
		s.sglang.stats.Unknown++
		s.sglang.unknown[body.RID] = true
	}
	if _, ok := s.sglang.byRID[body.RID]; ok {
		s.sglang.aborted[body.RID] = true
		delete(s.sglang.byRID, body.RID)
	}
	s.mu.Unlock()
	if live != nil {
		s.abort(live)
	}
	w.WriteHeader(http.StatusOK)
}

// writeSGLangMetrics writes the state in SGLang's names, as it serves them
// with --enable-metrics.
func (s *Server) writeSGLangMetrics(b *strings.Builder, m metricsState, st coreStats) {
	lbl := fmt.Sprintf(`model_name=%q,engine_type="unified",tp_rank="0",pp_rank="0"`, s.prof.ServedModel)
	metric := func(name, kind, help string, v float64) { writeMetric(b, name, kind, help, lbl, v) }
	hit := 0.0
	if st.prefixQueries > 0 {
		hit = float64(st.prefixHits) / float64(st.prefixQueries)
	}
	metric("sglang:num_running_reqs", "gauge", "The number of running requests.", float64(m.running))
	metric("sglang:num_queue_reqs", "gauge", "The number of requests in the waiting queue.", float64(m.waiting))
	metric("sglang:token_usage", "gauge", "The token usage.", m.kvUsage)
	metric("sglang:gen_throughput", "gauge", "The generation throughput (token/s).", m.rate.perSecond())
	metric("sglang:cache_hit_rate", "gauge", "The prefix cache hit rate.", hit)
	metric("sglang:prompt_tokens_total", "counter", "Number of prefill tokens processed.", float64(st.promptTokens))
	metric("sglang:generation_tokens_total", "counter", "Number of generation tokens processed.", float64(st.generationTokens))
	metric("sglang:num_requests_total", "counter", "Number of requests processed.", float64(st.finished["length"]+st.finished["stop"]+st.finished["abort"]))
	metric("sglang:num_aborted_requests_total", "counter", "Number of requests aborted.", float64(st.finished["abort"]))
	if s.prof.SpecDecode != nil {
		metric("sglang:spec_accept_length", "gauge", "The average acceptance length of speculative decoding.", meanAcceptLength(st.spec))
	}
}

// meanAcceptLength is tokens per verify step: 1 + accepted ÷ drafts.
func meanAcceptLength(sp specStats) float64 {
	if sp.drafts == 0 {
		return 0
	}
	return 1 + float64(sp.accepted)/float64(sp.drafts)
}
