package quality

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"speedmatrix/engine"
)

// maxFlipPromptRunes is how much of a flipped item's prompt a report
// quotes.
const maxFlipPromptRunes = 120

// TasksDigest is "sha256:" and the hash of the items' prompts, answers
// and matchers, each length-prefixed.
func TasksDigest(tasks []Task) string {
	h := sha256.New()
	for _, t := range tasks {
		for _, s := range []string{t.Prompt, t.Answer, string(t.Match)} {
			h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// SummarizeTasks fills r's accuracy, and the pairing with ref (which may be
// nil) when ref holds every item of the same file and this run does too.
func SummarizeTasks(r *TaskRun, tasks []Task, ref *TaskRun) {
	_, r.AccuracyPct, r.CI = Accuracy(r.Correct)
	r.Reference, r.Flipped = nil, nil
	if ref == nil || ref.Digest != r.Digest || len(ref.Correct) != r.Items || len(r.Correct) != r.Items || len(tasks) != r.Items {
		return
	}
	p, err := Pair(ref.Correct, r.Correct)
	if err != nil {
		return
	}
	r.Reference = &p
	for i, now := range r.Correct {
		if now != ref.Correct[i] {
			r.Flipped = append(r.Flipped, Flip{Line: tasks[i].Line, Prompt: engine.BoundText(tasks[i].Prompt, maxFlipPromptRunes), Now: now})
		}
	}
}

// taskProblem is what is wrong with a reference's task run; "" when
// nothing.
func taskProblem(r *TaskRun) string {
	switch {
	case r == nil:
		return ""
	case r.Items < 1 || r.Items > MaxTasks || len(r.Correct) > r.Items:
		return fmt.Sprintf("its task run has %d of %d items; 1 to %d", len(r.Correct), r.Items, MaxTasks)
	case !validFingerprint(r.Digest):
		return "its task run's digest is not sha256: and 64 hex digits"
	case r.Reference != nil || len(r.Flipped) > 0:
		return "its task run is paired with another, which no recording writes"
	}
	return ""
}
