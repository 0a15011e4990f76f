package probe

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"speedmatrix/engine/quality"
	"speedmatrix/engine/sim"
)

// TestQualityTasks: a task file whose answers are the reference server's
// own answers is all right there; on an int4 KV cache some flip, listed,
// and the pair is tested. An item too long for the model is refused
// before anything is asked.
func TestQualityTasks(t *testing.T) {
	base := simServer(t, sim.Numerics{}, 0)
	var tasks []quality.Task
	for i := range 24 {
		prompt := fmt.Sprintf("Question %d: describe the refraction of light through a prism of glass, in the manner of a treatise.", i)
		answer, err := base.chat(context.Background(), prompt, 64)
		if err != nil {
			t.Fatal(err)
		}
		task, err := quality.NewTask(prompt, answer, quality.MatchExact)
		if err != nil {
			t.Fatal(err)
		}
		task.Line = i + 1
		tasks = append(tasks, task)
	}
	run := func(s Server, ref *quality.TaskRun) quality.TaskRun {
		saves := 0
		r, err := Tasks(context.Background(), s, tasks, "t.jsonl", 64, ref, nil, nil, func(quality.TaskRun) error { saves++; return nil })
		if err != nil || saves != 1 {
			t.Fatalf("tasks: %v, %d saves", err, saves)
		}
		return r
	}
	ref := run(base, nil)
	if ref.AccuracyPct != 100 || ref.Reference != nil {
		t.Fatalf("the reference's own answers: %.0f %%, paired %v", ref.AccuracyPct, ref.Reference)
	}
	int4 := run(simServer(t, sim.Numerics{KVCacheDType: "int4_per_token_head", Quantization: "awq"}, 0), &ref)
	p := int4.Reference
	if p == nil || p.Before != 24 || p.After == 24 || len(int4.Flipped) != 24-p.After || int4.Flipped[0].Now || int4.Flipped[0].Line < 1 {
		t.Fatalf("int4 against the reference: %v, flipped %+v", p, int4.Flipped)
	}
	t.Logf("tasks: %s, %d flipped", p, len(int4.Flipped))
	tasks[3].Prompt += longText(9000)
	_, err := Tasks(context.Background(), base, tasks, "t.jsonl", 64, nil, nil, nil, func(quality.TaskRun) error { t.Fatal("saved"); return nil })
	var tl *TooLongError
	if !errors.As(err, &tl) || tl.Line != 4 {
		t.Fatalf("a prompt past max_model_len: %v, want a TooLongError at line 4", err)
	}
}

// longText is about n words of prose.
func longText(n int) string {
	b := make([]byte, 0, n*6)
	for range n {
		b = append(b, " light"...)
	}
	return string(b)
}
