package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ArrivalsConversations: each request is a conversation's next turn, due
// when the reply to the turn before it ended plus the think time
// (LoadPlan.Conversations).
const ArrivalsConversations Arrivals = "conversations"

// The settings of a conversation replay a PlanError can be about.
const (
	FieldConversations PlanField = "conversations"
	FieldThinkTime     PlanField = "think_time"
	FieldAnswers       PlanField = "answers"
)

// Answers is what a replayed conversation's history holds as the
// assistant's turns.
type Answers string

// The answers a conversation replay can keep.
const (
	// AnswersModel keeps the model's own streamed answers (their content,
	// not their reasoning), as a chat client does.
	AnswersModel Answers = "model"
	// AnswersDataset keeps the dataset's assistant turns, so that every
	// run sends the same histories.
	AnswersDataset Answers = "dataset"
)

// Bounds of a conversation replay.
const (
	// MaxConversationTurns is the most user turns one conversation of a
	// dataset may have.
	MaxConversationTurns = 256
	// MaxTurnRows is how many turn indexes LoadResult.Turns tells apart:
	// later turns are pooled into the last row.
	MaxTurnRows = 64
	// MaxThinkTime is the longest pause between turns a replay waits.
	MaxThinkTime = time.Hour
)

// ConversationPlan replays a dataset's conversations turn by turn instead
// of rates: Open conversations at once, each turn sent with the history so
// far (LoadPlan.Dataset is the file).
type ConversationPlan struct {
	// Open is how many conversations are replayed at once: a closed loop,
	// a conversation that ends makes room for the next.
	Open int `json:"open"`
	// ThinkTime is the pause between a reply's end and the next user
	// turn: fixed, or the mean of exponential pauses when ThinkExp.
	ThinkTime time.Duration `json:"think_time_ns,omitempty"`
	ThinkExp  bool          `json:"think_exponential,omitempty"`
	Answers   Answers       `json:"answers"`
}

// ThinkTimeText is the think time as ParseThinkTime reads it: "0s", "2s",
// "exp:2s".
func (c ConversationPlan) ThinkTimeText() string {
	s := c.ThinkTime.String()
	if c.ThinkExp {
		return "exp:" + s
	}
	return s
}

// ParseThinkTime reads a think time: a duration ("2s", "500ms", "0") for a
// fixed pause, or "exp:2s" for exponential pauses of that mean. Its errors
// name the item, not the field or flag it came from.
func ParseThinkTime(s string) (d time.Duration, exp bool, err error) {
	v := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(strings.ToLower(v), "exp:"); ok {
		v, exp = strings.TrimSpace(rest), true
	}
	if v == "0" {
		return 0, exp, nil
	}
	d, err = time.ParseDuration(v)
	if err != nil || d < 0 || d > MaxThinkTime {
		return 0, false, fmt.Errorf("%q is not a think time: write a pause of up to an hour such as 2s or 500ms, or exp:2s for random pauses of that mean", strings.TrimSpace(s))
	}
	return d, exp, nil
}

// ConversationSummary is what was replayed of a dataset's conversations,
// in report.json: what a reader needs to judge the figures beside the file.
type ConversationSummary struct {
	Name          string  `json:"name"` // the file's base name
	Conversations int     `json:"conversations"`
	Turns         int     `json:"turns"` // user turns in all
	Open          int     `json:"open"`  // replayed at once
	Answers       Answers `json:"answers"`
	ThinkTime     string  `json:"think_time"` // as given: "2s", "exp:2s"
	// Shortened is how many conversations dropped their oldest turns to
	// fit the model's context, and DroppedTurns how many turn pairs they
	// dropped in all.
	Shortened    int `json:"shortened"`
	DroppedTurns int `json:"dropped_turns"`
	// SkippedTurns is how many turns were not sent: a message too long for
	// the context even alone.
	SkippedTurns int `json:"skipped_turns"`
}

// TurnStats is what the requests of one turn index did in a conversation
// replay: the first turns of every conversation, the second ones, and so
// on, the turns from MaxTurnRows on pooled in its last row.
type TurnStats struct {
	Turn      int         `json:"turn"`     // from 1
	Requests  int         `json:"requests"` // sent
	Completed int         `json:"completed"`
	TTFTMs    Percentiles `json:"ttft_ms"` // of the completed, from when each was due
	// PromptTokens is the mean prompt the server counted for them.
	PromptTokens float64 `json:"prompt_tokens"`
}

// conversationValidation checks a conversation replay's plan on a server
// with these limits: the dataset's conversations are checked when it is
// read, the rest here. bad holds what is wrong already.
func conversationValidation(p LoadPlan, l Limits, bad []PlanProblem) error {
	add := func(f PlanField, format string, a ...any) {
		bad = append(bad, PlanProblem{f, fmt.Sprintf(format, a...)})
	}
	c := p.Conversations
	if strings.TrimSpace(p.Dataset) == "" {
		add(FieldDataset, "a conversation replay needs a JSONL dataset of conversations")
	}
	if c.Open < 1 || c.Open > MaxConcurrency {
		add(FieldConversations, "%d conversations at once: use 1 to %d", c.Open, MaxConcurrency)
	}
	if c.ThinkTime < 0 || c.ThinkTime > MaxThinkTime {
		add(FieldThinkTime, "%s between turns: use 0 to an hour", c.ThinkTime)
	}
	if c.Answers != AnswersModel && c.Answers != AnswersDataset {
		add(FieldAnswers, "%q is not what a history holds: use model or dataset", c.Answers)
	}
	if p.MaxConcurrency != 0 {
		add(FieldMaxConcurrency, "a conversation replay keeps its conversations open at once, one request each: drop the cap")
	}
	if s := rangeProblem(p.OutputTokens, 1); s != "" {
		add(FieldOutputTokens, "%s", s)
	} else if l.MaxModelLen > 0 && p.OutputTokens.Max >= l.MaxModelLen {
		add(FieldOutputTokens, "%d output tokens leave no room for a prompt in the model's max_model_len %d: lower them", p.OutputTokens.Max, l.MaxModelLen)
	}
	// Requests are the dataset's turns, once it is read.
	if n := p.Requests; n > 0 && p.OutputTokens.Max > 0 && int64(n)*int64(p.OutputTokens.Max) > MaxLoadOutputTokens {
		add(FieldOutputTokens, "%d turns of up to %d output tokens are more tokens than a replay keeps (%d million): lower the output tokens or replay fewer conversations",
			n, p.OutputTokens.Max, MaxLoadOutputTokens>>20)
	}
	if p.API != APIChat {
		add(FieldAPI, "%q: a conversation is replayed as chat messages: use chat", p.API)
	}
	bad = append(bad, sloProblems(p.SLO)...)
	if len(bad) > 0 {
		return &PlanError{Problems: bad}
	}
	return nil
}

// Line says what a conversation replay replayed, in one line:
// "4 conversations of chats.jsonl (14 turns), 2 at once, the model's own
// answers in the history, think time exp:2s; 1 shortened to fit the
// context (2 turn pairs dropped), 1 turn skipped".
func (s ConversationSummary) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %s (%s), %d at once, ", Count(s.Conversations, "conversation", "conversations"), s.Name,
		Count(s.Turns, "turn", "turns"), s.Open)
	if s.Answers == AnswersDataset {
		b.WriteString("the dataset's answers in the history")
	} else {
		b.WriteString("the model's own answers in the history")
	}
	b.WriteString(", think time " + s.ThinkTime)
	if s.Shortened > 0 {
		fmt.Fprintf(&b, "; %d shortened to fit the context (%s dropped)", s.Shortened, Count(s.DroppedTurns, "turn pair", "turn pairs"))
	}
	if s.SkippedTurns > 0 {
		fmt.Fprintf(&b, "; %s skipped, too long for the context", Count(s.SkippedTurns, "turn", "turns"))
	}
	return b.String()
}

// TurnLabel names row t of LoadResult.Turns: "3", or "64+" for the row
// that pools the later turns.
func TurnLabel(t TurnStats) string {
	if t.Turn >= MaxTurnRows {
		return strconv.Itoa(MaxTurnRows) + "+"
	}
	return strconv.Itoa(t.Turn)
}
