package report

import (
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// conversationReport is the simulated load report made a conversation
// replay: its first rate's figures over four turn indexes.
func conversationReport() engine.Report {
	r := loadReport()
	l := r.Load
	l.Plan = engine.LoadPlan{Dataset: "chats.jsonl", Arrivals: engine.ArrivalsConversations, OutputTokens: engine.TokenRange{Min: 64, Max: 64},
		Conversations: &engine.ConversationPlan{Open: 4, ThinkTime: 2 * time.Second, ThinkExp: true, Answers: engine.AnswersModel}, Seed: 3, API: engine.APIChat}
	l.Conversations = &engine.ConversationSummary{Name: "chats.jsonl", Conversations: 50, Turns: 200, Open: 4, Answers: engine.AnswersModel,
		ThinkTime: "exp:2s", Shortened: 2, DroppedTurns: 5, SkippedTurns: 1}
	res := l.Results[0]
	res.RateRPS, res.Arrivals, res.Requests = 0, engine.ArrivalsConversations, 200
	res.Turns = []engine.TurnStats{
		{Turn: 1, Requests: 50, Completed: 50, TTFTMs: engine.Percentiles{P50: 40, P90: 60, P99: 80, N: 50}, PromptTokens: 300},
		{Turn: 2, Requests: 50, Completed: 50, TTFTMs: engine.Percentiles{P50: 30, P90: 45, P99: 70, N: 50}, PromptTokens: 700},
		{Turn: 3, Requests: 40, Completed: 40, TTFTMs: engine.Percentiles{P50: 31, P90: 44, P99: 69, N: 40}, PromptTokens: 1100},
		{Turn: 64, Requests: 39, Completed: 0},
	}
	l.Results = []engine.LoadResult{res}
	return r
}

// TestConversationMarkdown: report.md says what was replayed and has a
// TTFT by turn table, its pooled last row written 64+.
func TestConversationMarkdown(t *testing.T) {
	md := Markdown(conversationReport())
	for _, want := range []string{
		"Plan: 4 conversations at once, the model's answers, think time exp:2s (seed 3) · prompts from chats.jsonl · output 64 tokens · chat API",
		"Conversations: 50 conversations of chats.jsonl (200 turns), 4 at once, the model's own answers in the history, think time exp:2s; " +
			"2 shortened to fit the context (5 turn pairs dropped); 1 turn skipped, too long for the context.",
		"### TTFT by turn",
		"| Turn | Requests | Completed | Mean prompt tokens | TTFT p50 | TTFT p90 | TTFT p99 |",
		"| 2 | 50 | 50 | 700 | 30.0 ms | 45.0 ms | 70.0 ms",
		"| 64+ | 39 | 0 | — | — | — | — |",
		"| conversations |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(Markdown(loadReport()), "TTFT by turn") {
		t.Error("a load test of rates has a TTFT by turn table")
	}
	if got := LoadLine(*conversationReport().Load); got != "load test · conversation replay · 4 at once" {
		t.Errorf("LoadLine = %q", got)
	}
}

// TestReadRejectsHostileConversations: a replay's figures that no replay
// writes are refused in one line naming what is wrong.
func TestReadRejectsHostileConversations(t *testing.T) {
	cases := []struct {
		name  string
		spoil func(l *engine.LoadSection)
		want  string
	}{
		{"too many turn rows", func(l *engine.LoadSection) {
			for len(l.Results[0].Turns) <= engine.MaxTurnRows {
				l.Results[0].Turns = append(l.Results[0].Turns, l.Results[0].Turns[0])
			}
		}, "its load test at conversations has 65 turn rows, more than the 64"},
		{"more turns than requests", func(l *engine.LoadSection) { l.Results[0].Turns[3].Requests = 61 }, "turn rows of 201 requests in all, more than its 200"},
		{"turn zero", func(l *engine.LoadSection) { l.Results[0].Turns[0].Turn = 0 }, "a turn numbered 0, outside 1–64"},
		{"more completed than sent", func(l *engine.LoadSection) { l.Results[0].Turns[1].Completed = 51 }, "turn 2 with 51 completed of 50 requests"},
		{"absurd TTFT", func(l *engine.LoadSection) { l.Results[0].Turns[2].TTFTMs.P90 = 1e300 }, "turn TTFT p90 of 1e+300, more than"},
		{"negative prompt", func(l *engine.LoadSection) { l.Results[0].Turns[2].PromptTokens = -1 }, "negative turn prompt"},
		{"a long name", func(l *engine.LoadSection) { l.Conversations.Name = strings.Repeat("x", 256) }, "its conversations have a name or a note longer than 255 bytes"},
		{"negative skipped", func(l *engine.LoadSection) { l.Conversations.SkippedTurns = -1 }, "its conversations have -1 skipped turns"},
		{"more shortened than held", func(l *engine.LoadSection) { l.Conversations.Shortened = 51 }, "more conversations shortened (51)"},
		{"answers of no one", func(l *engine.LoadSection) { l.Plan.Conversations.Answers = "oracle" }, "its load plan: conversations whose answers are neither"},
		{"a billion open", func(l *engine.LoadSection) { l.Plan.Conversations.Open = 1e9 }, "its load plan: 1000000000 conversations at once"},
	}
	for _, c := range cases {
		r := conversationReport()
		c.spoil(r.Load)
		path := writeJSON(t, "report.json", r)
		_, _, err := Read(path)
		wantImplausible(t, c.name, err, path, c.want)
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is more than one line: %q", c.name, err)
		}
	}
	if got := loadProblem(conversationReport().Load); got != "" {
		t.Errorf("the replay's report has a problem: %q", got)
	}
}
