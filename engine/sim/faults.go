package sim

import (
	"math/rand/v2"
	"strconv"
	"sync"
)

// faultState draws the error-rate fault and numbers requests.
type faultState struct {
	mu  sync.Mutex
	rng *rand.Rand
	n   uint64
}

// failNext reports whether the next request should fail, with probability rate.
func (f *faultState) failNext(rate float64) bool {
	if rate <= 0 {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rng.Float64() < rate
}

// requestID is a fresh vLLM-style request id.
func (f *faultState) requestID(chat bool) string {
	f.mu.Lock()
	f.n++
	n := f.n
	f.mu.Unlock()
	prefix := "cmpl-sim"
	if chat {
		prefix = "chatcmpl-sim"
	}
	return prefix + strconv.FormatUint(n, 16)
}
