package probe

import (
	"fmt"

	"speedmatrix/engine"
)

// Phase is what a check is doing when it reports an Event.
type Phase string

// The phases and notes of a check.
const (
	PhaseRecord  Phase = "record"  // recording a probe: Done of Of at ContextTokens
	PhaseCompare Phase = "compare" // comparing a probe: Done of Of at ContextTokens
	PhaseNeedle  Phase = "needle"  // a needle trial: Done of Of at ContextTokens
	PhaseTasks   Phase = "tasks"   // a task item: Done of Of
	PhaseCap     Phase = "cap"     // the server allows Cap logprobs, fewer than Asked: the check goes on at Cap
	PhaseSkip    Phase = "skip"    // ContextTokens is beyond the server's MaxModelLen: its probes are skipped
	PhaseContext Phase = "context" // ContextTokens is done (Drift holds its figures when compared)
)

// Event is a check's progress: typed facts the front end words.
type Event struct {
	Phase         Phase
	ContextTokens int
	Done, Of      int
	Cap, Asked    int
	MaxModelLen   int
	// Requests is how many requests a context's teacher forcing sent.
	Requests int
}

// Line is the event in one line, as every front end says it: a context's
// first probe or trial, a task file's first item, a cap, a skip, a
// context compared; "" for the probes, trials and items after the first,
// which each front end counts as it likes.
func (e Event) Line() string {
	c := engine.ContextLabel(e.ContextTokens)
	switch e.Phase {
	case PhaseRecord, PhaseCompare:
		if e.Done == 0 {
			return fmt.Sprintf("%s %s: %d probes", e.Phase, c, e.Of)
		}
	case PhaseNeedle:
		if e.Done == 0 {
			return fmt.Sprintf("needle %s: %d trials", c, e.Of)
		}
	case PhaseTasks:
		if e.Done == 0 {
			return fmt.Sprintf("tasks: %d items", e.Of)
		}
	case PhaseCap:
		return fmt.Sprintf("the server allows %d logprobs a token (its --max-logprobs), not %d: comparing the top %d", e.Cap, e.Asked, e.Cap)
	case PhaseSkip:
		return fmt.Sprintf("%s: skipped, longer than the server's max_model_len of %d with the continuation", c, e.MaxModelLen)
	case PhaseContext:
		return fmt.Sprintf("%s: compared in %d requests (one per probe, one more per divergence)", c, e.Requests)
	}
	return ""
}
