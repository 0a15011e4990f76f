package quality

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The needle's two phrases: NeedleKeyIntro and the key make the needle
// sentence, NeedleQuestion follows the haystack. The simulator answers a
// chat that uses them verbatim (engine/sim's tests hold its phrases equal
// to these).
const (
	NeedleKeyIntro = "The secret key is "
	NeedleQuestion = "What is the secret key? Answer with its six digits only."
)

// needleStream separates the needle's draws from other users of a seed.
const needleStream = 0x6e656564 // "need"

// maxNeedleCounts is the most times NewNeedleTrial counts a prompt's tokens.
const maxNeedleCounts = 16

// maxBytesPerToken bounds the haystack NewNeedleTrial builds: no
// tokenizer spends more bytes of natural text on a token.
const maxBytesPerToken = 32

// needleSlack is how far under the target a prompt may stop, as a share
// of it (or 8 tokens, whichever is more).
const needleSlack = 0.01

// ErrNoText and ErrTooShort are a needle trial that cannot be built: no
// text to make a haystack of, or a context too short for the needle and
// the question alone.
var (
	ErrNoText   = errors.New("no haystack text")
	ErrTooShort = errors.New("the context is too short for the needle and the question")
)

// TokenCounter is the caller's measure of a prompt's length in tokens:
// the server's tokenizer, as the prompt will be sent (a chat prompt with
// its template).
type TokenCounter func(text string) (int, error)

// NeedleTrial is one needle-retrieval trial: a key hidden in a haystack,
// and the prompt that asks for it.
type NeedleTrial struct {
	// Key is the secret number, 6 digits, 100000–999999.
	Key string
	// Depth is where the needle sits, as the share of the haystack's
	// bytes before it: 0 at the start, 1 at the end.
	Depth float64
	// Prompt is the haystack with the needle, a blank line, and
	// NeedleQuestion.
	Prompt string
	// Tokens is the prompt's length by the caller's counter.
	Tokens int
}

// NeedleSentence is the needle that hides key.
func NeedleSentence(key string) string { return NeedleKeyIntro + key + "." }

// NewNeedleTrial builds a trial from seed: a key drawn from 100000–999999,
// a depth drawn from [0, 1), and a haystack of text (natural text,
// repeated when it is shorter than needed) starting at a drawn word,
// filled until the whole prompt is at most contextTokens by count and
// within 1 % (or 8 tokens) of it, or as near as 16 counts find. The needle
// goes at the start of the sentence nearest before its depth (else the
// first after it). The same seed, text and counter give the same trial, so
// that two runs of the same trials pair (McNemar). count's error is
// returned wrapped.
func NewNeedleTrial(text string, contextTokens int, count TokenCounter, seed uint64) (NeedleTrial, error) {
	if strings.TrimSpace(text) == "" {
		return NeedleTrial{}, ErrNoText
	}
	rng := rand.New(rand.NewPCG(seed, needleStream))
	key := strconv.Itoa(100000 + rng.IntN(900000))
	depth := rng.Float64()
	source := rotate(text, rng.IntN(len(text)))
	build := func(bytes int) (NeedleTrial, error) {
		hay := haystack(source, bytes)
		at := needleAt(hay, depth)
		prompt := hay[:at] + NeedleSentence(key) + " " + hay[at:] + "\n\n" + NeedleQuestion
		n, err := count(prompt)
		if err != nil {
			return NeedleTrial{}, fmt.Errorf("count tokens: %w", err)
		}
		d := 0.0
		if len(hay) > 0 {
			d = float64(at) / float64(len(hay))
		}
		return NeedleTrial{Key: key, Depth: d, Prompt: prompt, Tokens: n}, nil
	}
	return fit(build, contextTokens)
}

// fit searches the haystack's length in bytes for the longest prompt
// within target tokens: a secant step between the longest try that fits
// and the shortest that does not (or, before one does not, the bytes per
// token so far), aimed half the slack under the target, bisecting when a
// step falls outside them.
func fit(build func(bytes int) (NeedleTrial, error), target int) (NeedleTrial, error) {
	best, err := build(0)
	if err != nil {
		return NeedleTrial{}, err
	}
	if best.Tokens > target {
		return NeedleTrial{}, fmt.Errorf("%d tokens with no haystack, %d allowed: %w", best.Tokens, target, ErrTooShort)
	}
	slack := max(8, int(needleSlack*float64(target)))
	aim := float64(target - slack/2)
	overhead := best.Tokens
	lo, loTokens := 0, overhead
	hi, hiTokens := -1, 0 // the shortest try that does not fit (-1: none yet)
	guess := 4 * (target - overhead)
	for range maxNeedleCounts - 1 {
		if target-loTokens <= slack || (hi >= 0 && hi-lo <= 1) {
			break
		}
		t, err := build(guess)
		if err != nil {
			return NeedleTrial{}, err
		}
		if t.Tokens <= target {
			lo, loTokens, best = guess, t.Tokens, t
		} else {
			hi, hiTokens = guess, t.Tokens
		}
		// a secant through the two tries that bracket the target, or
		// through no haystack and the longest that fits
		x0, y0, x1, y1 := lo, loTokens, hi, hiTokens
		if hi < 0 {
			x0, y0, x1, y1 = 0, overhead, lo, loTokens
		}
		guess = lo + 1
		if y1 > y0 {
			guess = x0 + int((aim-float64(y0))*float64(x1-x0)/float64(y1-y0))
		}
		longest := maxBytesPerToken * target // a counter that hardly grows is asked no more
		guess = min(guess, longest)
		switch {
		case hi < 0 && guess <= lo:
			guess = min(2*lo+1, longest)
		case hi >= 0 && (guess <= lo || guess >= hi):
			guess = lo + (hi-lo)/2
		}
		if guess <= lo {
			break
		}
	}
	return best, nil
}

// rotate is text read from byte offset at, wrapping round, starting at
// the next word so that no word is cut.
func rotate(text string, at int) string {
	if i := strings.IndexAny(text[at:], " \n\t"); i >= 0 {
		at += i + 1
	} else {
		at = 0
	}
	return text[at:] + "\n\n" + text[:at]
}

// haystack is source repeated to at most n bytes, cut at the last white
// space within them (or at a rune's start when there is none).
func haystack(source string, n int) string {
	if n <= 0 {
		return ""
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(source)
		b.WriteString("\n\n")
	}
	s := b.String()[:n]
	if i := strings.LastIndexAny(s, " \n\t"); i > 0 {
		return strings.TrimRight(s[:i], " \n\t") + " "
	}
	for len(s) > 0 { // drop a rune the cut split
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size > 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}

// sentenceEnds end a sentence: the needle goes after one.
var sentenceEnds = []string{". ", "! ", "? ", "\n", "。", "！", "？"}

// needleAt is where in hay the needle goes: the start of the sentence
// nearest before depth (after ". ", "! ", "? ", a line break, or "。",
// "！", "？"), else of the first sentence after it, else of the word
// before it, else the start.
func needleAt(hay string, depth float64) int {
	at := int(depth * float64(len(hay)))
	best := -1
	for _, end := range sentenceEnds {
		if i := strings.LastIndex(hay[:at], end); i >= 0 {
			best = max(best, i+len(end))
		}
	}
	if best >= 0 {
		return best
	}
	best = len(hay)
	for _, end := range sentenceEnds {
		if i := strings.Index(hay[at:], end); i >= 0 && at+i+len(end) < len(hay) {
			best = min(best, at+i+len(end))
		}
	}
	if best < len(hay) {
		return best
	}
	return strings.LastIndexAny(hay[:at], " \t") + 1
}

// CheckNeedle reports whether a model's answer gives back key exactly: the
// last run of ASCII digits in the answer is the key, so "482913",
// "The secret key is 482913." and "**482913**" pass, "48291",
// "4829135" and "482,913" do not.
func CheckNeedle(answer, key string) bool {
	end := len(answer)
	for end > 0 && !isDigit(answer[end-1]) {
		end--
	}
	start := end
	for start > 0 && isDigit(answer[start-1]) {
		start--
	}
	return end > start && answer[start:end] == key
}

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
