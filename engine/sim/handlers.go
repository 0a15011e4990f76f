package sim

import (
	"cmp"
	"errors"
	"net/http"
	"strings"
	"time"
)

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /health", s.handleHealth)
	m.HandleFunc("GET /version", s.handleVersion)
	m.HandleFunc("GET /metrics", s.handleMetrics)
	m.HandleFunc("GET /v1/models", s.handleModels)
	m.HandleFunc("POST /v1/completions", s.handleCompletions)
	m.HandleFunc("POST /v1/chat/completions", s.handleChat)
	if s.isSGLang() {
		s.sglangRoutes(m)
	} else {
		m.HandleFunc("POST /tokenize", s.handleTokenize)
		m.HandleFunc("POST /detokenize", s.handleDetokenize)
	}
	s.mux = http.NewServeMux()
	s.mux.Handle("/", s.guard(m))
}

// guard applies the start-up delay fault and vLLM's API key check (which
// covers /v1/* only, as vLLM's --api-key does).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" && time.Since(s.start) < s.opts.Faults.StartupDelay {
			writeError(w, http.StatusServiceUnavailable, "", "The simulated server is still starting up (fault injection: start-up delay).")
			return
		}
		if s.opts.APIKey != "" && strings.HasPrefix(r.URL.Path, "/v1") &&
			r.Header.Get("Authorization") != "Bearer "+s.opts.APIKey {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "Unauthorized"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }

// handleVersion answers like vLLM, plus simulatorField naming the profile so
// that a report made against `speedmatrix sim` over HTTP is labelled simulated.
func (s *Server) handleVersion(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"version": s.version(), simulatorField: s.prof.Name})
}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	created := s.start.Unix()
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []map[string]any{{
			"id": s.prof.ServedModel, "object": "model", "created": created, "owned_by": s.engine(),
			"root": s.prof.Model, "parent": nil, "max_model_len": s.prof.MaxModelLen,
			"permission": []map[string]any{{
				"id": "modelperm-sim", "object": "model_permission", "created": created,
				"allow_create_engine": false, "allow_sampling": true, "allow_logprobs": true,
				"allow_search_indices": false, "allow_view": true, "allow_fine_tuning": false,
				"organization": "*", "group": nil, "is_blocking": false,
			}},
		}},
	})
}

// answerError writes err as vLLM would: a badRequest with its code, else 500.
func answerError(w http.ResponseWriter, err error) {
	var br *badRequest
	if errors.As(err, &br) {
		writeErrorAs(w, br.Code, cmp.Or(br.Type, errorTypes[br.Code]), br.Param, br.Msg)
		return
	}
	writeError(w, http.StatusInternalServerError, "", err.Error())
}

func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	var body genBody
	ids, err := s.tokenized(r, &body, s.bodyIDs)
	if err == nil {
		err = s.checkModel(body.Model)
	}
	if err != nil {
		answerError(w, err)
		return
	}
	if ids == nil {
		ids = []int32{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": len(ids), "max_model_len": s.prof.MaxModelLen, "tokens": ids, "token_strs": nil})
}

// bodyIDs tokenises a /tokenize body: chat messages or a prompt.
func (s *Server) bodyIDs(body *genBody) ([]int32, error) {
	if len(body.Messages) > 0 {
		return s.chatIDs(body.Messages, body.AddGenerationPrompt)
	}
	return s.promptIDs(body.Prompt, body.AddSpecialTokens)
}

func (s *Server) handleDetokenize(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model  string  `json:"model"`
		Tokens []int64 `json:"tokens"`
	}
	if err := decodeBody(r, &body); err != nil {
		answerError(w, err)
		return
	}
	ids, err := s.checkIDs(body.Tokens)
	if err == nil {
		err = s.checkModel(body.Model)
	}
	if err != nil {
		answerError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"prompt": string(s.tok.decode(nil, ids))})
}

func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	arrivalS := s.modelNowS()
	var body genBody
	ids, err := s.tokenized(r, &body, func(b *genBody) ([]int32, error) {
		return s.promptIDs(b.Prompt, b.AddSpecialTokens)
	})
	if err == nil && len(ids) == 0 {
		err = badf("prompt", "The decoder prompt cannot be empty.")
	}
	s.generate(w, r, &body, ids, body.MaxTokens, false, arrivalS, err)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	arrivalS := s.modelNowS()
	var body genBody
	ids, err := s.tokenized(r, &body, func(b *genBody) ([]int32, error) {
		b.needleKey = findNeedle(b.Messages)
		return s.chatIDs(b.Messages, b.AddGenerationPrompt)
	})
	limit := body.MaxCompletionTokens
	if limit == nil {
		limit = body.MaxTokens
	}
	s.generate(w, r, &body, ids, limit, true, arrivalS, err)
}

// tokenized decodes r's body into body and tokenises its prompt, holding
// one of the simulator's few intake slots meanwhile. A decode cell sends all
// its requests at once, and each holds its prompt up to three times while
// it is read (the body, its text, its ids: a megabyte at 64K tokens): 128
// streams at once took 95 MB. A few at a time take what a few need; the
// model's clock is not delayed, as front-end time counts from arrival. The
// prompt is dropped from body before the slot is given back: nothing holds
// it for as long as the answer streams.
func (s *Server) tokenized(r *http.Request, body *genBody, tokenize func(*genBody) ([]int32, error)) ([]int32, error) {
	s.intake <- struct{}{}
	defer func() {
		body.Prompt, body.Messages = nil, nil
		<-s.intake
	}()
	if err := decodeBody(r, body); err != nil {
		return nil, err
	}
	return tokenize(body)
}

// genRequest is one validated generation request being served.
type genRequest struct {
	chat            bool
	id              string
	created         int64
	promptLen       int
	maxTokens       int
	stopAt          int
	reason          string
	reasoningTokens int
	textBase        uint64 // draws a looping request's phrase
	includeUsage    bool
	continuousUsage bool
	q               *seq
	lp              lpRequest
	prompt          []int32 // the prompt's ids, kept for prompt_logprobs and return_token_ids only
	out             textState
}

// generate validates and serves a generation request that arrived at model
// time arrivalS. The model's front-end time counts from arrival, so the
// simulator's own parsing and tokenising (real time) overlap it rather than
// adding to it.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, body *genBody, ids []int32, limit *int, chat bool, arrivalS float64, err error) {
	lp := noLogprobs
	if err == nil {
		lp, err = logprobParams(body, chat)
	}
	if err == nil {
		err = s.checkModel(body.Model)
	}
	if err == nil && body.N != nil && *body.N != 1 {
		err = badf("n", "n=%d is not supported by the simulator; use n=1", *body.N)
	}
	var maxTokens int
	if err == nil {
		maxTokens, err = s.maxTokens(len(ids), limit, body.MinTokens)
	}
	if err == nil {
		err = s.checkCap(lp)
	}
	if err != nil {
		answerError(w, err)
		return
	}
	if s.faults.failNext(s.opts.Faults.ErrorRate) {
		writeError(w, http.StatusInternalServerError, "", "Simulated internal server error (fault injection: error rate).")
		return
	}
	g := s.newGenRequest(body, ids, maxTokens, chat)
	g.lp = lp
	if lp.prompt != -1 || lp.tokenIDs {
		g.prompt = ids
	}
	g.q.arrivalS = arrivalS
	s.trackRID(g)
	if !s.submit(g.q) {
		writeError(w, http.StatusServiceUnavailable, "", "The simulated server is shutting down.")
		return
	}
	defer s.untrackRID(r, g)
	if body.Stream {
		s.stream(w, r, g)
		return
	}
	s.respond(w, r, g)
}

func (s *Server) newGenRequest(body *genBody, ids []int32, maxTokens int, chat bool) *genRequest {
	hashes := blockHashes(ids, s.prof.BlockSize)
	h := uint64(s.opts.Seed)
	st := lmStart(s.lm.key)
	for _, id := range ids {
		h = mix64(h ^ uint64(uint32(id)))
		st = st.then(id)
	}
	g := &genRequest{
		chat: chat, created: time.Now().Unix(), promptLen: len(ids), maxTokens: maxTokens,
		textBase: h, stopAt: maxTokens, reason: "length", out: textState{state: st},
	}
	g.id = s.faults.requestID(chat)
	if s.isSGLang() && body.RID != "" {
		g.id = body.RID // SGLang's chunks carry the request's rid as their id
	}
	if !body.IgnoreEOS {
		// Without ignore_eos the model ends its answer after a length drawn
		// from the prompt: 64 to 1,087 tokens, at least min_tokens.
		natural := max(64+int(mix64(h^0xe05)%1024), body.MinTokens)
		if natural < maxTokens {
			g.stopAt, g.reason = natural, "stop"
		}
	}
	if chat && s.prof.ReasoningParser != "" {
		g.reasoningTokens = s.prof.ReasoningTokens
	}
	if body.needleKey != "" {
		// The answer follows the reasoning, and ends the reply.
		answer := s.lm.needleAnswer(body.needleKey, st.h, len(ids))
		g.out.forced, g.out.forcedAt = s.tok.encode(nil, answer), g.reasoningTokens
		if end := max(g.reasoningTokens+len(g.out.forced), body.MinTokens); !body.IgnoreEOS {
			g.stopAt, g.reason = min(end, maxTokens), "stop"
			if end >= maxTokens {
				g.reason = "length"
			}
		}
	}
	if o := body.StreamOptions; o != nil && o.IncludeUsage {
		g.includeUsage, g.continuousUsage = true, o.ContinuousUsageStats
	}
	g.q = &seq{promptLen: len(ids), hashes: hashes, stopAt: g.stopAt, reason: g.reason, specKey: h, out: newStream()}
	return g
}
