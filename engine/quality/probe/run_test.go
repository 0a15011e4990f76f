package probe

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"speedmatrix/engine/quality"
	"speedmatrix/engine/sim"
)

// TestQualityRunResumes: a phase stopped after its first context and run
// again with that report as Prior asks only what is left, and ends with
// the figures of a phase that ran through.
func TestQualityRunResumes(t *testing.T) {
	s := simServer(t, sim.Numerics{KVCacheDType: "fp8"}, 0)
	ref, _ := record(t, simServer(t, sim.Numerics{}, 0), Options{Contexts: []int{512, 1024}, Probes: 2, ContinuationTokens: 24})
	o := RunOptions{NeedleTrials: 3, Seed: 7, Budget: quality.DefaultBudget()}
	whole, err := Run(context.Background(), s, ref, o, func(quality.Report) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var first quality.Report
	_, err = Run(ctx, s, ref, o, func(r quality.Report) error {
		first = r
		cancel() // after the first context: the next request fails
		return nil
	})
	if !errors.Is(err, context.Canceled) || len(first.Contexts) != 1 {
		t.Fatalf("stopped with %v after %d contexts; want context.Canceled after 1", err, len(first.Contexts))
	}
	var asked []Event
	o.Prior, o.Events = &first, func(e Event) { asked = append(asked, e) }
	resumed, err := Run(context.Background(), s, ref, o, func(quality.Report) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range asked {
		if e.Phase == PhaseCompare && e.ContextTokens == 512 {
			t.Fatalf("resumed phase compared 512 again: %+v", e)
		}
	}
	if !reflect.DeepEqual(resumed.Contexts, whole.Contexts) || !reflect.DeepEqual(resumed.Needle, whole.Needle) || !reflect.DeepEqual(resumed.Verdicts, whole.Verdicts) {
		t.Errorf("resumed phase differs from one run through:\n%+v\n%+v", resumed.Contexts, whole.Contexts)
	}
	other := first
	other.Reference.Tokenizer = "sha256:another"
	o.Prior = &other
	if _, err := Run(context.Background(), s, ref, o, func(quality.Report) error { return nil }); !errors.Is(err, ErrPriorReference) {
		t.Errorf("a prior of another reference: %v, want ErrPriorReference", err)
	}
}
