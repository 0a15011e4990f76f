package engine

import (
	"fmt"
	"math"
	"time"
)

// What a load test's requests hold in the client's memory, measured with
// `speedmatrix load --burst` against the simulator (the client's peak
// resident memory at 1,000 and at 4,000 requests open at once, with
// 32-token and 4,096-token prompts): about 48 KiB per open request (its
// goroutines, its connection and their buffers) and 9 bytes per token of
// its prompt (the prompt's text and the request's body). A request that
// has ended keeps only its record, some 330 bytes and 8 per output token,
// which MaxLoadRequests and MaxLoadOutputTokens bound.
const (
	openRequestBytes     = 48 << 10
	openPromptTokenBytes = 9
	// MaxLoadOpenBytes is the memory a load test's open requests may hold
	// at once: a burst or a cap past it is refused, and a rate with no cap
	// holds no more requests open than fit in it (MaxOpen).
	MaxLoadOpenBytes = 1 << 30
	// openPromptCharsPerToken turns a dataset prompt's length in bytes
	// into tokens for the sizing, on the low side of English text (about
	// 4), so that a prompt's tokens are not underestimated.
	openPromptCharsPerToken = 3
)

// OpenRequestBytes is the client memory one request holds while it is
// open, with a prompt of promptTokens tokens.
func OpenRequestBytes(promptTokens int) int64 {
	return openRequestBytes + openPromptTokenBytes*int64(max(promptTokens, 0))
}

// MaxOpenFor is the most requests with prompts of promptTokens tokens that
// a load test holds open at once: as many as fit in MaxLoadOpenBytes.
func MaxOpenFor(promptTokens int) int {
	return int(MaxLoadOpenBytes / OpenRequestBytes(promptTokens))
}

// DatasetPromptTokens is how many tokens a dataset prompt of n bytes is
// taken to have when the requests open at once are sized (MaxOpenFor).
func DatasetPromptTokens(n int) int {
	return (n + openPromptCharsPerToken - 1) / openPromptCharsPerToken
}

// MaxOpen is the most requests p holds open at once: MaxOpenFor its
// longest prompt. A dataset's prompts are sized once it is read
// (DatasetPromptTokens); before that only the request itself counts.
func (p LoadPlan) MaxOpen() int { return MaxOpenFor(p.InputTokens.Max) }

// OpenProblem is why n requests at once, each with a prompt of
// promptTokens tokens, are more than a load test holds open: "" when they
// fit. It names the memory they would take and the most that fit.
func OpenProblem(n, promptTokens int) string {
	most := MaxOpenFor(promptTokens)
	if n <= most {
		return ""
	}
	each := OpenRequestBytes(promptTokens)
	return fmt.Sprintf("%d requests open at once would take about %s of this machine's memory (%s each with %d-token prompts): use at most %d",
		n, bytesWords(float64(n)*float64(each)), bytesWords(float64(each)), promptTokens, most)
}

// bytesWords writes a size of memory: "57 KiB", "5.4 GiB".
func bytesWords(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", b/(1<<10))
}

// DurationOf is s seconds as a time.Duration, computed in floating point
// so that a rate, count or duration from a flag or a file can't wrap it
// round: past the longest Duration it is the longest, below the shortest
// the shortest, and not a number is 0. Check a bound on s itself, in
// seconds, before converting: the longest Duration is 292 years.
func DurationOf(s float64) time.Duration {
	ns := s * float64(time.Second)
	switch {
	case math.IsNaN(ns):
		return 0
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(ns)
}
