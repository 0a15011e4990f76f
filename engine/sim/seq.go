package sim

// seqState is where a sequence is in the server.
type seqState int

const (
	stFrontend seqState = iota // being templated and tokenised
	stWaiting                  // in the scheduler's waiting queue
	stRunning                  // holds KV blocks; prefilling or decoding
	stDone                     // finished or aborted
)

// seq is one request as the scheduler sees it.
type seq struct {
	promptLen int
	hashes    []uint64 // chained hashes of the prompt's full blocks
	stopAt    int      // output tokens after which it finishes
	arrivalS  float64  // model time it reached the server
	readyS    float64  // model time it leaves the front end
	lastTokS  float64
	generated int // output tokens produced
	computed  int // tokens whose KV is computed
	blocks    []int32
	regBlocks int // prompt blocks registered in the prefix cache
	state     seqState
	loopFrom  int // first looping output token; -1: not looping
	// batch is how many sequences shared the step of its first token,
	// rounded up to a power of two (the batch jitter's key, drift.go).
	batch     int
	decided   bool
	counted   bool   // prompt tokens counted in the metrics
	reason    string // finish reason when it reaches stopAt: "length" or "stop"
	specKey   uint64 // selects its speculative decoding draws
	internal  bool   // a request of Faults.OtherLoad: no client, replaced when done
	lingering bool   // its client left; aborted at abortAtS
	abortAtS  float64
	out       *stream // nil for internal requests
}

// prefillTarget is how many tokens must be in the KV cache before the
// sequence decodes: its prompt, plus its output but the last token when it
// resumes after preemption.
func (q *seq) prefillTarget() int {
	if q.generated == 0 {
		return q.promptLen
	}
	return q.promptLen + q.generated - 1
}

func (q *seq) inDecode() bool { return q.generated > 0 && q.computed >= q.prefillTarget() }
