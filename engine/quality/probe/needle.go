package probe

import (
	"context"
	"errors"
	"fmt"

	"speedmatrix/engine/openai"
	"speedmatrix/engine/quality"
)

// needleAnswerTokens is how many tokens a needle answer may take: six
// digits and a little wrapping.
const needleAnswerTokens = 16

// needleReasoningTokens is how many a reasoning model's needle answer may
// take, asked again when its first needleAnswerTokens were all reasoning:
// the task file's default answer length.
const needleReasoningTokens = DefaultTaskTokens

// maxAnswerBytes bounds the answer text a trial or a task reads: a
// reasoning answer of DefaultTaskTokens and more.
const maxAnswerBytes = 64 << 10

// chatAnswer is the part of a chat answer read.
type chatAnswer struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
			// vLLM's reasoning parsers name it reasoning_content (and
			// reasoning in later builds).
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// Needle runs trials needle trials at each context (fitted to the server
// with the answer after them), by chat, greedy; trial i of a context is
// built from seed+i, so another run with the same seed and text pairs with
// this one; DefaultParallel trials are asked at once. Where ref (which may be nil) ran the same trials, each context
// is paired with it (McNemar). save gets the contexts so far after each.
func Needle(ctx context.Context, s Server, contexts []int, trials int, seed uint64, text string, ref []quality.NeedleContext, events func(Event), save func([]quality.NeedleContext) error) ([]quality.NeedleContext, error) {
	o := Options{Text: text, Events: events}.withDefaults()
	trials = min(cmpOr(trials, DefaultNeedleTrials), quality.MaxNeedleTrials)
	count := func(t string) (int, error) {
		ids, err := s.Client.Tokenize(ctx, s.Model, t)
		return len(ids), err
	}
	var out []quality.NeedleContext
	for _, c := range s.fitted(contexts, needleAnswerTokens) {
		correct := make([]bool, trials)
		err := each(ctx, trials, o.Parallel, func(ctx context.Context, i int) error {
			o.event(Event{Phase: PhaseNeedle, ContextTokens: c, Done: i, Of: trials})
			ok, err := s.needleTrial(ctx, o.Text, c, count, seed+uint64(i))
			if err != nil {
				return fmt.Errorf("needle at %d tokens, trial %d: %w", c, i+1, err)
			}
			correct[i] = ok
			return nil
		})
		if err != nil {
			return out, err
		}
		n := quality.NewNeedleContext(c, seed, correct)
		for _, r := range ref {
			if r.ContextTokens == c && r.Seed == seed && len(r.Correct) == trials {
				p, err := quality.Pair(r.Correct, correct)
				if err == nil {
					n.Reference = &p
				}
			}
		}
		out = append(out, n)
		if err := save(out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// needleTrial builds one trial and asks it.
func (s Server) needleTrial(ctx context.Context, text string, c int, count quality.TokenCounter, seed uint64) (bool, error) {
	tr, err := quality.NewNeedleTrial(text, c, count, seed)
	if err != nil {
		return false, err
	}
	answer, err := s.chat(ctx, tr.Prompt, needleAnswerTokens)
	var cut *reasoningCutError
	if errors.As(err, &cut) { // a reasoning model: room to reason, then answer
		answer, err = s.chat(ctx, tr.Prompt, needleReasoningTokens)
		if errors.As(err, &cut) {
			return false, nil // still reasoning: no answer is a wrong one
		}
	}
	if err != nil {
		return false, err
	}
	return quality.CheckNeedle(answer, tr.Key), nil
}

// reasoningCutError is a chat answer whose tokens were all reasoning, cut
// at MaxTokens before any content.
type reasoningCutError struct{ MaxTokens int }

func (e *reasoningCutError) Error() string {
	return fmt.Sprintf("the model reasoned for all of its %d tokens and gave no answer: give it more (--task-tokens)", e.MaxTokens)
}

// chat is the server's greedy answer to one user message, at most
// maxTokens long and maxAnswerBytes read.
func (s Server) chat(ctx context.Context, prompt string, maxTokens int) (string, error) {
	req := map[string]any{
		"model": s.Model, "max_tokens": maxTokens, "temperature": 0,
		"messages": []map[string]string{{"role": "user", "content": prompt}},
	}
	var ans chatAnswer
	if err := s.Client.PostJSON(ctx, "/v1/chat/completions", req, &ans, s.Model); err != nil {
		return "", err
	}
	if len(ans.Choices) == 0 {
		return "", fmt.Errorf("%w: a chat answer without choices", openai.ErrMalformed)
	}
	c := ans.Choices[0]
	if c.Message.Content == "" && c.FinishReason == "length" && c.Message.ReasoningContent+c.Message.Reasoning != "" {
		return "", &reasoningCutError{MaxTokens: maxTokens}
	}
	answer := c.Message.Content
	return answer[:min(len(answer), maxAnswerBytes)], nil
}
