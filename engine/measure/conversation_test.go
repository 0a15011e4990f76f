package measure

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/sim"
)

// writeConversations writes n conversations of turns user turns each, in
// the messages form, each user turn words words long and each assistant
// answer answerWords words long.
func writeConversations(t *testing.T, n, turns, words, answerWords int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		msgs := []map[string]string{{"role": "system", "content": fmt.Sprintf("You are assistant %d.", i)}}
		for k := range turns {
			msgs = append(msgs, map[string]string{"role": "user", "content": sentence(fmt.Sprintf("c%dt%d", i, k), words)})
			msgs = append(msgs, map[string]string{"role": "assistant", "content": sentence(fmt.Sprintf("a%dt%d", i, k), answerWords)})
		}
		line, _ := json.Marshal(map[string]any{"messages": msgs})
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "chats.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sentence is words words of plain text, the first one tag.
func sentence(tag string, words int) string {
	w := []string{tag}
	for i := 1; i < words; i++ {
		w = append(w, []string{"the", "model", "reads", "every", "turn", "again", "before", "it", "answers"}[i%9])
	}
	return strings.Join(w, " ")
}

func conversationPlan(path string, open int, answers engine.Answers) engine.LoadPlan {
	return engine.LoadPlan{Dataset: path, Conversations: &engine.ConversationPlan{Open: open, Answers: answers},
		Arrivals: engine.ArrivalsConversations, OutputTokens: engine.TokenRange{Min: 16, Max: 16}, Seed: 5, API: engine.APIChat}
}

// TestConversationReplay replays conversations of four turns on the
// simulator, whose prefix cache is a real block-hash cache and whose chat
// template puts the history first: every turn completes, each turn index
// has its row, the prompts grow from turn to turn, and the server finds
// the history in its cache.
func TestConversationReplay(t *testing.T) {
	t.Parallel()
	srv := simServer(t, sim.Options{TimeScale: 10})
	path := writeConversations(t, 5, 4, 60, 40)
	rep, _, err := runLoadAll(t, t.Context(), conversationPlan(path, 2, engine.AnswersModel), Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	sum := rep.Load.Conversations
	if sum == nil || sum.Name != "chats.jsonl" || sum.Conversations != 5 || sum.Turns != 20 || sum.Answers != engine.AnswersModel || sum.Shortened != 0 {
		t.Fatalf("summary %+v", sum)
	}
	if len(rep.Load.Results) != 1 {
		t.Fatalf("%d results, want 1", len(rep.Load.Results))
	}
	res := rep.Load.Results[0]
	if res.Status != engine.StatusValid || res.Completed != 20 || res.Requests != 20 || res.Arrivals != engine.ArrivalsConversations || res.OutputTokens != 20*16 {
		t.Fatalf("%s: %d of %d completed, %d output tokens, flags %v", res.Status, res.Completed, res.Requests, res.OutputTokens, res.Flags)
	}
	if res.MaxInFlight > 2 {
		t.Errorf("%d requests in flight, more than the 2 conversations at once", res.MaxInFlight)
	}
	if len(res.Turns) != 4 {
		t.Fatalf("turns %+v, want 4 rows", res.Turns)
	}
	for i, row := range res.Turns {
		if row.Turn != i+1 || row.Requests != 5 || row.Completed != 5 || row.TTFTMs.N != 5 || !(row.TTFTMs.P50 > 0) {
			t.Errorf("turn %d: %+v", i+1, row)
		}
		// Each turn sends the one before it, its answer and a new turn.
		if i > 0 && !(row.PromptTokens > res.Turns[i-1].PromptTokens+16+40) {
			t.Errorf("turn %d's prompt %.0f tokens, want more than turn %d's %.0f and its answer", i+1, row.PromptTokens, i, res.Turns[i-1].PromptTokens)
		}
	}
	// The simulator's template renders the history first, the same from
	// turn to turn: turns 2 to 4 find every whole block of the prompt
	// before them in the cache (the answers are not cached, as vLLM's).
	want := 0.0
	for _, row := range res.Turns[:3] {
		want += 5 * float64(int(row.PromptTokens)/16*16)
	}
	if pc := res.PrefixCache; !pc.Measured() || pc.HitTokens < 0.9*want || pc.ServerHitRate < 0.3 {
		t.Errorf("prefix cache %+v, want the history found in it (%.0f tokens)", pc, want)
	}
}

// recordingSim is the simulator behind a recorder of the chat requests'
// bodies it was sent, which answers HTTP 500 to those refuse picks (nil:
// none).
func recordingSim(t *testing.T, o sim.Options, refuse func(body string) bool) (url string, bodies func() []string) {
	t.Helper()
	if o.Profile.Name == "" {
		o.Profile, _ = sim.LookupProfile("tiny")
	}
	s, err := sim.New(o)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			got = append(got, string(b))
			mu.Unlock()
			if refuse != nil && refuse(string(b)) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, `{"object":"error","message":"refused by the test","type":"InternalServerError","code":500}`)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// TestConversationAnswers: with the dataset's answers the history holds
// them, word for word, and the prompts grow by them; with the model's the
// dataset's answers are never sent.
func TestConversationAnswers(t *testing.T) {
	t.Parallel()
	prompts := map[engine.Answers][]engine.TurnStats{}
	for _, answers := range []engine.Answers{engine.AnswersDataset, engine.AnswersModel} {
		url, bodies := recordingSim(t, sim.Options{TimeScale: 10}, nil)
		path := writeConversations(t, 2, 3, 30, 200)
		rep, _, err := runLoadAll(t, t.Context(), conversationPlan(path, 2, answers), Subject{Target: Target{BaseURL: url}}, testOptions())
		if err != nil {
			t.Fatal(err)
		}
		res := rep.Load.Results[0]
		if res.Completed != 6 || rep.Load.Conversations.Answers != answers {
			t.Fatalf("%s: %d of 6 completed, summary %+v", answers, res.Completed, rep.Load.Conversations)
		}
		prompts[answers] = res.Turns
		sentAnswer := slices.ContainsFunc(bodies(), func(b string) bool {
			return strings.Contains(b, `{"role":"assistant","content":"`+sentence("a1t1", 200)+`"}`)
		})
		if sentAnswer != (answers == engine.AnswersDataset) {
			t.Errorf("%s answers: the dataset's answer to turn 2 was sent: %v", answers, sentAnswer)
		}
	}
	// A dataset answer of 200 words is some 200 tokens; the model's 16.
	for i := 1; i < 3; i++ {
		d, m := prompts[engine.AnswersDataset][i].PromptTokens, prompts[engine.AnswersModel][i].PromptTokens
		if !(d > m+float64(i)*150) {
			t.Errorf("turn %d: prompts of %.0f tokens with the dataset's answers, %.0f with the model's", i+1, d, m)
		}
	}
}

// TestConversationOutgrowsContext: on a model of a small context, a
// conversation drops its oldest turns to fit, and a turn too long even
// alone is skipped, not sent; both are counted and said, and every turn
// sent completes within the context. With /tokenize (vLLM) the history is
// counted exactly, without it (SGLang) estimated from the last count.
func TestConversationOutgrowsContext(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{sim.ModeVLLM, sim.ModeSGLang} {
		t.Run(mode, func(t *testing.T) {
			p, _ := sim.LookupProfile("tiny")
			p.MaxModelLen = 512
			srv := simServer(t, sim.Options{TimeScale: 10, Profile: p, Mode: mode})
			var b strings.Builder
			msgs := []map[string]string{}
			for k := range 8 {
				words := 70
				if k == 5 {
					words = 900 // past 512 tokens alone
				}
				msgs = append(msgs, map[string]string{"role": "user", "content": sentence(fmt.Sprintf("t%d", k), words)}, map[string]string{"role": "assistant", "content": "ok"})
			}
			line, _ := json.Marshal(map[string]any{"messages": msgs})
			b.Write(append(line, '\n'))
			b.WriteString(`{"prompt": "a short one"}` + "\n")
			path := filepath.Join(t.TempDir(), "long.jsonl")
			os.WriteFile(path, []byte(b.String()), 0o644)
			plan := conversationPlan(path, 1, engine.AnswersModel)
			plan.OutputTokens = engine.TokenRange{Min: 32, Max: 32}
			rep, events, err := runLoadAll(t, t.Context(), plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
			if err != nil {
				t.Fatal(err)
			}
			sum, res := rep.Load.Conversations, rep.Load.Results[0]
			if sum.Shortened != 1 || sum.DroppedTurns < 2 || sum.SkippedTurns != 1 {
				t.Errorf("summary %+v, want 1 conversation shortened and 1 turn skipped", sum)
			}
			if res.Requests != 9 || res.Completed != 8 || res.Failed != 0 || res.Status != engine.StatusValid {
				t.Errorf("%s: %d of %d completed, %d failed, %s", res.Status, res.Completed, res.Requests, res.Failed, res.Error)
			}
			for _, row := range res.Turns {
				if row.PromptTokens+32 > 512 {
					t.Errorf("turn %d: prompts of %.0f tokens, past the context", row.Turn, row.PromptTokens)
				}
			}
			said := 0
			for _, ev := range events {
				if ev.Kind == engine.EventLog && (strings.Contains(ev.Log, "long.jsonl line 1: the conversation outgrew the model's context at turn") ||
					strings.Contains(ev.Log, "long.jsonl line 1: turn 6 is skipped")) {
					said++
				}
			}
			if said != 2 {
				t.Errorf("the shortening and the skipped turn were said %d times, want 2", said)
			}
			for _, ev := range events {
				if ev.Kind == engine.EventLog && strings.Contains(ev.Log, "did not count a conversation's messages") && mode == sim.ModeVLLM {
					t.Errorf("vLLM's /tokenize takes messages, but: %s", ev.Log)
				}
			}
		})
	}
}

// TestConversationTurnFails: a turn that fails ends its conversation (the
// turns after it follow from an answer it never got); the others go on.
func TestConversationTurnFails(t *testing.T) {
	t.Parallel()
	url, bodies := recordingSim(t, sim.Options{TimeScale: 10}, func(b string) bool { return strings.Contains(b, sentence("c1t1", 20)) })
	path := writeConversations(t, 3, 4, 20, 5)
	rep, _, err := runLoadAll(t, t.Context(), conversationPlan(path, 2, engine.AnswersModel), Subject{Target: Target{BaseURL: url}}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Load.Results[0]
	if res.Requests != 12 || res.Completed != 9 || res.Failed != 1 || res.Status != engine.StatusValid {
		t.Fatalf("%s: %d completed and %d failed of %d, want 9 and 1 of 12 (%s)", res.Status, res.Completed, res.Failed, res.Requests, res.Error)
	}
	if slices.ContainsFunc(bodies(), func(b string) bool { return strings.Contains(b, "c1t2") }) {
		t.Error("the conversation went on after its failed turn")
	}
	if row := res.Turns[1]; row.Requests != 3 || row.Completed != 2 || res.Turns[2].Requests != 2 {
		t.Errorf("turns %+v", res.Turns)
	}
}

// TestConversationReplayInterrupted: a replay stopped part-way keeps what
// its turns measured, as a cancelled rate.
func TestConversationReplayInterrupted(t *testing.T) {
	t.Parallel()
	srv := simServer(t, sim.Options{TimeScale: 10})
	path := writeConversations(t, 10, 4, 20, 5)
	plan := conversationPlan(path, 2, engine.AnswersModel)
	plan.Conversations.ThinkTime = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var last engine.Event
	for ev := range runLoadWith(ctx, plan, Subject{Target: Target{BaseURL: srv.URL}}, testOptions()) {
		if ev.Kind == engine.EventProgress && ev.Progress.Load != nil && ev.Progress.Load.Completed >= 3 {
			cancel()
		}
		last = ev
	}
	if last.Kind != engine.EventDone || !errors.Is(last.Err, ErrInterrupted) {
		t.Fatalf("last event %v, err %v", last.Kind, last.Err)
	}
	res := last.Report.Load.Results
	if len(res) != 1 || res[0].Status != engine.StatusCancelled || res[0].Completed < 3 || res[0].Completed == 40 || len(res[0].Turns) == 0 ||
		last.Report.Load.Conversations == nil {
		t.Fatalf("results %+v", res)
	}
}

// TestConversationsRefused: a dataset a replay can't send is refused
// before a request is sent, naming the file and the line.
func TestConversationsRefused(t *testing.T) {
	t.Parallel()
	srv := simServer(t, sim.Options{TimeScale: 10})
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(path, []byte(`{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}
{"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}
`), 0o644)
	_, _, err := runLoadAll(t, t.Context(), conversationPlan(path, 1, engine.AnswersDataset), Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	var plan *engine.PlanError
	if !errors.As(err, &plan) || !strings.Contains(err.Error(), "bad.jsonl line 2: user turns 1 and 2 have no assistant answer between them") {
		t.Fatalf("err = %v", err)
	}
}

// conversationCases are the conversation dataset table, and the fuzz
// test's seeds: what each line replays as, its turns' user texts and
// answers, or the error.
var conversationCases = []struct {
	name, in string
	answers  engine.Answers
	want     []string // per conversation: system messages, then "user>answer" per turn, joined by |
	err      string
}{
	{"prompt", `{"prompt": "hi"}`, engine.AnswersModel, []string{"hi>"}, ""},
	{"sharegpt", `{"conversations": [{"from": "system", "value": "s"}, {"from": "human", "value": "q1"}, {"from": "gpt", "value": "a1"}, {"from": "human", "value": "q2"}]}`,
		engine.AnswersDataset, []string{"s|q1>a1|q2>"}, ""},
	{"messages with parts", `{"messages": [{"role": "developer", "content": "d"}, {"role": "user", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]}, {"role": "assistant", "content": "a"}]}`,
		engine.AnswersDataset, []string{"d|xy>a"}, ""},
	{"answers joined, a leading answer left out", `{"messages": [{"role": "assistant", "content": "hello"}, {"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}]}`,
		engine.AnswersDataset, []string{"q>a\n\nb"}, ""},
	{"users in a row with the model's answers", `{"messages": [{"role": "user", "content": "q1"}, {"role": "user", "content": "q2"}]}`,
		engine.AnswersModel, []string{"q1>|q2>"}, ""},
	{"users in a row with the dataset's answers", "{\"prompt\": \"x\"}\n" + `{"messages": [{"role": "user", "content": "q1"}, {"role": "user", "content": "q2"}]}`,
		engine.AnswersDataset, nil, "c.jsonl line 2: user turns 1 and 2 have no assistant answer between them"},
	{"no user turn", `{"conversations": [{"from": "gpt", "value": "a"}]}`, engine.AnswersModel, nil, "c.jsonl line 1: no user turn"},
	{"no turns", `{"messages": []}`, engine.AnswersModel, nil, "c.jsonl line 1: an empty conversation"},
	{"empty user turn", `{"messages": [{"role": "user", "content": " "}]}`, engine.AnswersModel, nil, "c.jsonl line 1: message 1 is an empty user turn"},
	{"late system message", `{"messages": [{"role": "user", "content": "q"}, {"role": "system", "content": "s"}]}`, engine.AnswersModel, nil,
		"c.jsonl line 1: message 2 is a system message after the first user turn"},
	{"tool message", `{"messages": [{"role": "user", "content": "q"}, {"role": "tool", "content": "t"}]}`, engine.AnswersModel, nil, `c.jsonl line 1: message 2 has the role "tool"`},
	{"not JSON", "{\"prompt\": \"a\"}\n\nnope\n", engine.AnswersModel, nil, "c.jsonl line 3: not JSON ("},
	{"empty file", "\n", engine.AnswersModel, nil, "c.jsonl: no conversation"},
	{"too many turns", `{"messages": [` + strings.Repeat(`{"role": "user", "content": "q"},`, engine.MaxConversationTurns) + `{"role": "user", "content": "q"}]}`,
		engine.AnswersModel, nil, "c.jsonl line 1: more than 256 user turns"},
	{"line too long", `{"prompt": "` + strings.Repeat("x", MaxDatasetLineBytes) + `"}`, engine.AnswersModel, nil, "c.jsonl line 1: longer than 1 MiB"},
}

func TestParseConversations(t *testing.T) {
	t.Parallel()
	for _, tc := range conversationCases {
		t.Run(tc.name, func(t *testing.T) {
			set, err := parseConversations(strings.NewReader(tc.in), "c.jsonl", tc.answers)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("err %v, want one starting %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			turns := 0
			for _, c := range set.convs {
				parts := slices.Clone(c.system)
				for _, t := range c.turns {
					parts = append(parts, t.user+">"+t.answer)
				}
				got = append(got, strings.Join(parts, "|"))
				turns += len(c.turns)
			}
			if !slices.Equal(got, tc.want) || set.turns != turns {
				t.Errorf("got %q (%d turns), want %q", got, set.turns, tc.want)
			}
		})
	}
}

// TestConversationsTooMany: a file of more conversations than a dataset's
// bound is refused at the first one past it.
func TestConversationsTooMany(t *testing.T) {
	t.Parallel()
	in := strings.Repeat("{\"prompt\": \"a\"}\n", MaxDatasetPrompts+1)
	if _, err := parseConversations(strings.NewReader(in), "big.jsonl", engine.AnswersModel); err == nil || !strings.Contains(err.Error(), "more than 100000 prompts") {
		t.Errorf("err %v, want too many", err)
	}
}

// FuzzParseConversations: any input gives conversations, each with a user
// turn that has text, or a one-line error naming the file, never a panic.
func FuzzParseConversations(f *testing.F) {
	for _, tc := range conversationCases {
		if len(tc.in) < 4096 {
			f.Add(tc.in, tc.answers == engine.AnswersDataset)
		}
	}
	f.Fuzz(func(t *testing.T, in string, dataset bool) {
		answers := engine.AnswersModel
		if dataset {
			answers = engine.AnswersDataset
		}
		set, err := parseConversations(strings.NewReader(in), "d.jsonl", answers)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "d.jsonl") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line naming the file", err)
			}
			return
		}
		for _, c := range set.convs {
			if len(c.turns) == 0 || len(c.turns) > engine.MaxConversationTurns || c.line < 1 {
				t.Fatalf("a conversation of %d turns at line %d", len(c.turns), c.line)
			}
			for i, turn := range c.turns {
				if strings.TrimSpace(turn.user) == "" || dataset && i < len(c.turns)-1 && !turn.answered {
					t.Fatalf("turn %d of %+v", i+1, c)
				}
			}
		}
	})
}
