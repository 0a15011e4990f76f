package report

import (
	"fmt"
	"strings"

	"speedmatrix/engine"
)

// TurnColumns are the headings of report.md's "TTFT by turn" table, one
// row per turn index of a conversation replay.
var TurnColumns = []string{"Turn", "Requests", "Completed", "Mean prompt tokens", "TTFT p50", "TTFT p90", "TTFT p99"}

// TurnRows are the rows of the "TTFT by turn" table for r: its turn
// indexes, the pooled last one written "64+".
func TurnRows(r engine.LoadResult) [][]string {
	rows := make([][]string, len(r.Turns))
	for i, t := range r.Turns {
		rows[i] = []string{engine.TurnLabel(t), Int(t.Requests), Int(t.Completed), Dash, Dash, Dash, Dash}
		if t.Completed > 0 {
			rows[i][3] = Int(int(t.PromptTokens + 0.5))
			rows[i][4], rows[i][5], rows[i][6] = pctMillis(t.TTFTMs, 50), pctMillis(t.TTFTMs, 90), pctMillis(t.TTFTMs, 99)
		}
	}
	return rows
}

// writeTurns writes report.md's "TTFT by turn" table for each result of a
// conversation replay; nothing for the others.
func writeTurns(b *strings.Builder, rs []engine.LoadResult) {
	for _, r := range rs {
		if len(r.Turns) == 0 {
			continue
		}
		b.WriteString("### TTFT by turn\n\nthe first turns of every conversation, the second ones, and so on, each turn sent with " +
			"the history before it: as the server's prefix cache holds that history, a turn's TTFT grows less than its prompt. " +
			"TTFT counts from when the turn was due: the reply before it ended, plus the think time.\n\n")
		writeTable(b, TurnColumns, TurnRows(r))
	}
}

// ConversationLine says what a conversation replay replayed: "Conversations:
// 4 conversations of chats.jsonl (14 turns), 2 at once, …"; "" without one.
func ConversationLine(c *engine.ConversationSummary) string {
	if c == nil {
		return ""
	}
	s := *c
	s.Name = engine.BoundName(s.Name)
	return "Conversations: " + s.Line()
}

// conversationPlanWords is a replay's part of the plan line: "4
// conversations at once, the model's answers, think time exp:2s (seed 5)".
func conversationPlanWords(p engine.LoadPlan) string {
	c := p.Conversations
	answers := "the model's answers"
	if c.Answers == engine.AnswersDataset {
		answers = "the dataset's answers"
	}
	return fmt.Sprintf("%s at once, %s, think time %s (seed %d)", engine.Count(c.Open, "conversation", "conversations"), answers, c.ThinkTimeText(), p.Seed)
}

// conversationLoadLine is LoadLine for a conversation replay: "load test ·
// conversation replay · 4 at once".
func conversationLoadLine(p engine.LoadPlan) string {
	return fmt.Sprintf("load test · conversation replay · %d at once", p.Conversations.Open)
}

// conversationPlanProblem says what no replay's plan holds, "" when it has
// none.
func conversationPlanProblem(c *engine.ConversationPlan) string {
	switch {
	case c == nil:
		return ""
	case c.Open < 0 || c.Open > maxLoadRequests:
		return fmt.Sprintf("%d conversations at once, outside 0–%s", c.Open, Int(maxLoadRequests))
	case c.ThinkTime < 0 || c.ThinkTime > engine.MaxThinkTime:
		return fmt.Sprintf("a think time of %s, outside 0–%s", c.ThinkTime, engine.MaxThinkTime)
	case c.Answers != engine.AnswersModel && c.Answers != engine.AnswersDataset:
		return "conversations whose answers are neither the model's nor the dataset's"
	}
	return ""
}

// conversationProblem says what no replayed dataset holds, as the end of
// "its conversations have …": "" without one.
func conversationProblem(c *engine.ConversationSummary) string {
	if c == nil {
		return ""
	}
	if len(c.Name) > 255 || len(c.ThinkTime) > 255 || len(c.Answers) > 255 {
		return "a name or a note longer than 255 bytes"
	}
	for _, n := range []struct {
		name string
		n    int
	}{{"conversations", c.Conversations}, {"turns", c.Turns}, {"conversations at once", c.Open}, {"shortened conversations", c.Shortened},
		{"dropped turns", c.DroppedTurns}, {"skipped turns", c.SkippedTurns}} {
		if n.n < 0 || n.n > maxLoadRequests {
			return fmt.Sprintf("%d %s, outside 0–%s", n.n, n.name, Int(maxLoadRequests))
		}
	}
	if c.Shortened > c.Conversations || c.SkippedTurns > c.Turns {
		return fmt.Sprintf("more conversations shortened (%d) or turns skipped (%d) than it has", c.Shortened, c.SkippedTurns)
	}
	return ""
}

// turnsProblem says what no replay's turn rows hold, as the end of "its
// load test at … has …": "" when they are plausible.
func turnsProblem(r engine.LoadResult) string {
	if len(r.Turns) > engine.MaxTurnRows {
		return fmt.Sprintf("%d turn rows, more than the %d a replay writes", len(r.Turns), engine.MaxTurnRows)
	}
	sent := 0
	for _, t := range r.Turns {
		sent += max(t.Requests, 0)
		switch {
		case t.Turn < 1 || t.Turn > engine.MaxTurnRows:
			return fmt.Sprintf("a turn numbered %d, outside 1–%d", t.Turn, engine.MaxTurnRows)
		case t.Requests < 0 || t.Requests > r.Requests || t.Completed < 0 || t.Completed > t.Requests:
			return fmt.Sprintf("turn %d with %d completed of %d requests, not counts of its %d", t.Turn, t.Completed, t.Requests, r.Requests)
		}
		figures := []loadFigure{{"turn prompt", t.PromptTokens, engine.MaxContextTokens}, {"turn TTFT sample count", float64(t.TTFTMs.N), maxLoadRequests}}
		for _, p := range []int{50, 90, 99} {
			figures = append(figures, loadFigure{fmt.Sprintf("turn TTFT p%d", p), t.TTFTMs.At(p), maxLatencyMs})
		}
		figures = append(figures, loadFigure{"turn TTFT mean", t.TTFTMs.Mean, maxLatencyMs})
		for _, f := range figures {
			if p := boundProblem(f.name, f.value, f.max); p != "" {
				return "a " + p
			}
		}
	}
	if sent > r.Requests {
		return fmt.Sprintf("turn rows of %d requests in all, more than its %d", sent, r.Requests)
	}
	return ""
}
