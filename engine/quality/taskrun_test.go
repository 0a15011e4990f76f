package quality

import (
	"math"
	"strings"
	"testing"
)

// TestAccuracy: counts, the share and its Wilson interval in percent.
func TestAccuracy(t *testing.T) {
	right, pct, ci := Accuracy([]bool{true, true, false, true})
	if w := Wilson(3, 4); right != 3 || pct != 75 || math.Abs(ci.Lo-100*w.Lo) > 1e-9 || math.Abs(ci.Hi-100*w.Hi) > 1e-9 {
		t.Errorf("3 of 4: %d, %g %%, %v", right, pct, ci)
	}
	if right, pct, ci := Accuracy(nil); right != 0 || pct != 0 || ci != (Interval{Lo: 0, Hi: 100}) {
		t.Errorf("no items: %d, %g, %v", right, pct, ci)
	}
}

// TestTaskRunPairs: a run pairs with the reference's only over the same
// items, all of them answered, and lists what flipped.
func TestTaskRunPairs(t *testing.T) {
	tasks := []Task{{Line: 1, Prompt: "a", Answer: "x", Match: MatchExact}, {Line: 2, Prompt: strings.Repeat("b", 500), Answer: "y", Match: MatchExact}}
	ref := &TaskRun{Digest: TasksDigest(tasks), Items: 2, Correct: []bool{true, true}}
	r := TaskRun{Digest: TasksDigest(tasks), Items: 2, Correct: []bool{true, false}}
	SummarizeTasks(&r, tasks, ref)
	if r.Reference == nil || r.Reference.BeforeOnly != 1 || len(r.Flipped) != 1 || r.Flipped[0].Line != 2 || r.Flipped[0].Now || len([]rune(r.Flipped[0].Prompt)) > maxFlipPromptRunes {
		t.Fatalf("paired %v, flipped %+v", r.Reference, r.Flipped)
	}
	other := append([]Task{}, tasks...)
	other[0].Answer = "z"
	r.Digest = TasksDigest(other)
	if SummarizeTasks(&r, other, ref); r.Reference != nil || r.Flipped != nil {
		t.Errorf("another file's items paired: %v", r.Reference)
	}
	r = TaskRun{Digest: ref.Digest, Items: 2, Correct: []bool{true}}
	if SummarizeTasks(&r, tasks, ref); r.Reference != nil {
		t.Errorf("a run of 1 of 2 items paired: %v", r.Reference)
	}
}
