package probe

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
