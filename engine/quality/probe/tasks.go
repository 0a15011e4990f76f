package probe

import (
	"context"
	"errors"
	"fmt"

	"speedmatrix/engine"
	"speedmatrix/engine/quality"
)

// DefaultTaskTokens is how long a task's answer may run: room for a
// worked answer (GSM8K's) before its final line.
const DefaultTaskTokens = 1024

// taskSaveEvery is how many items a task run answers between saves.
const taskSaveEvery = 32

// TooLongError is a task item whose prompt and answer don't fit the model.
type TooLongError struct {
	Line, PromptTokens, AnswerTokens, MaxModelLen int
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("line %d: its prompt of %d tokens and an answer of %d don't fit the model's %d", e.Line, e.PromptTokens, e.AnswerTokens, e.MaxModelLen)
}

// Tasks asks every task by chat, greedy, answers up to maxTokens long
// (DefaultTaskTokens when 0), and checks each with its matcher; the run
// is paired with ref's (which may be nil) when ref ran the same items.
// Every prompt is measured first: one that does not fit the model is a
// *TooLongError before anything is asked. prior (which may be nil) is an
// interrupted run of the same items: its answers are kept and asking goes
// on after them. save gets the run every taskSaveEvery items and at the
// end.
func Tasks(ctx context.Context, s Server, tasks []quality.Task, file string, maxTokens int, ref, prior *quality.TaskRun, events func(Event), save func(quality.TaskRun) error) (quality.TaskRun, error) {
	maxTokens = cmpOr(maxTokens, DefaultTaskTokens)
	o := Options{Events: events}
	if s.MaxModelLen > 0 {
		for _, t := range tasks {
			ids, err := s.Client.Tokenize(ctx, s.Model, t.Prompt)
			if err != nil {
				return quality.TaskRun{}, fmt.Errorf("tokenize line %d: %w", t.Line, err)
			}
			if len(ids)+maxTokens+engine.TemplateReserveTokens > s.MaxModelLen {
				return quality.TaskRun{}, &TooLongError{Line: t.Line, PromptTokens: len(ids), AnswerTokens: maxTokens, MaxModelLen: s.MaxModelLen}
			}
		}
	}
	run := quality.TaskRun{File: engine.BoundName(file), Digest: quality.TasksDigest(tasks), Items: len(tasks), Correct: make([]bool, 0, len(tasks))}
	if prior != nil && prior.Digest == run.Digest && len(prior.Correct) <= len(tasks) {
		run.Correct = append(run.Correct, prior.Correct...)
	}
	for i, t := range tasks {
		if i < len(run.Correct) {
			continue
		}
		o.event(Event{Phase: PhaseTasks, Done: i, Of: len(tasks)})
		answer, err := s.chat(ctx, t.Prompt, maxTokens)
		var cut *reasoningCutError
		if errors.As(err, &cut) { // reasoned to the end: no answer is a wrong one
			answer, err = "", nil
		}
		if err != nil {
			return run, fmt.Errorf("task on line %d: %w", t.Line, err)
		}
		run.Correct = append(run.Correct, t.Correct(answer))
		if (i+1)%taskSaveEvery == 0 || i+1 == len(tasks) {
			quality.SummarizeTasks(&run, tasks, ref)
			if err := save(run); err != nil {
				return run, err
			}
		}
	}
	return run, nil
}
