package probe

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestEach: every index runs once, at most width at a time; the error is
// the lowest failing index's; an ended context stops it.
func TestEach(t *testing.T) {
	var running, most atomic.Int32
	seen := make([]int, 20)
	err := each(context.Background(), 20, 4, func(_ context.Context, i int) error {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		seen[i]++
		return nil
	})
	if err != nil || most.Load() > 4 {
		t.Fatalf("each: %v, %d at once (want at most 4)", err, most.Load())
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("index %d ran %d times", i, n)
		}
	}
	err = each(context.Background(), 10, 1, func(_ context.Context, i int) error {
		if i >= 3 {
			return fmt.Errorf("failed at %d", i)
		}
		return nil
	})
	if err == nil || err.Error() != "failed at 3" {
		t.Errorf("err = %v, want the first failure (index 3)", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := each(ctx, 10, 2, func(ctx context.Context, _ int) error { return ctx.Err() }); !errors.Is(err, context.Canceled) {
		t.Errorf("an ended context: %v", err)
	}
	if err := each(context.Background(), 0, 4, nil); err != nil {
		t.Errorf("no items: %v", err)
	}
}
