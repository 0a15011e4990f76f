package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
)

// addConversationFlags adds the flags of a conversation replay.
func (f *loadFlags) addConversationFlags(fs *flag.FlagSet) {
	fs.IntVar(&f.conversations, "conversations", 0, "with --dataset: replay its conversations turn by turn instead of rates, N at once: each turn sends the history so far and the next user turn")
	fs.StringVar(&f.thinkTime, "think-time", "0", "with --conversations: the pause between a reply and the next user turn: 2s, or exp:2s for random pauses of that mean")
	fs.StringVar(&f.answers, "answers", string(engine.AnswersModel), "with --conversations: what the history holds as the assistant's turns: model (its own answers) or dataset (the dataset's)")
}

// conversationFlags are the flags only a conversation replay takes, and
// conversationRefuses those it can't go with.
var (
	conversationFlags   = []string{"think-time", "answers"}
	conversationRefuses = []string{"rates", "sweep-rates", "burst", "trace", "requests", "arrivals", "input-tokens", "max-concurrency"}
)

// conversationPlan sets the plan's conversation replay from --conversations
// and its options.
func (f loadFlags) conversationPlan(p *engine.LoadPlan) error {
	if !f.set["conversations"] {
		for _, name := range conversationFlags {
			if f.set[name] {
				return fmt.Errorf("load: --%s goes with --conversations N", name)
			}
		}
		return nil
	}
	for _, name := range conversationRefuses {
		if f.set[name] {
			return fmt.Errorf("load: --%s and --conversations: a replay sends each conversation's turns one after the other, N conversations at once; drop --%s", name, name)
		}
	}
	switch {
	case f.dataset == "":
		return errors.New("load: --conversations replays a dataset: give --dataset FILE.jsonl of conversations")
	case engine.API(f.api) == engine.APICompletions:
		return errors.New("load: --api completions and --conversations: a conversation is sent as chat messages; drop --api")
	}
	c := &engine.ConversationPlan{Open: f.conversations, Answers: engine.Answers(strings.ToLower(strings.TrimSpace(f.answers)))}
	var err error
	if c.ThinkTime, c.ThinkExp, err = engine.ParseThinkTime(f.thinkTime); err != nil {
		return fmt.Errorf("load: --think-time: %w", err)
	}
	p.Conversations, p.Arrivals = c, engine.ArrivalsConversations
	return nil
}

// readConversations reads the dataset of a valid replay's plan, once
// here so that a bad file is refused, naming its line, before a server
// starts; the plan's requests are its turns.
func readConversations(p *engine.LoadPlan) error {
	_, turns, err := measure.CheckConversations(p.Dataset, p.Conversations.Answers)
	if err != nil {
		return fmt.Errorf("load: --dataset: %w", err)
	}
	p.Requests = turns
	if err := engine.ValidateLoadPlan(*p, engine.Limits{}); err != nil {
		return loadAdvice(err)
	}
	return nil
}

// conversationLines are what a conversation replay prints under its rate
// line: what was replayed, and the TTFT p50 and mean prompt of each turn.
func conversationLines(r engine.LoadResult, sum *engine.ConversationSummary) []string {
	var lines []string
	if s := report.ConversationLine(sum); s != "" {
		lines = append(lines, s)
	}
	if len(r.Turns) > 0 {
		parts := make([]string, len(r.Turns))
		for i, t := range r.Turns {
			parts[i] = fmt.Sprintf("%s: %s (%.0f)", engine.TurnLabel(t), msText(t.TTFTMs.P50), t.PromptTokens)
			if t.Completed == 0 {
				parts[i] = engine.TurnLabel(t) + ": none completed"
			}
		}
		lines = append(lines, "TTFT p50 by turn (mean prompt tokens): "+strings.Join(parts, " · "))
	}
	return lines
}
