package quality

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"unicode"
)

// Match is how a task's answer is checked against the model's response.
type Match string

// The matchers a task file may name.
const (
	// MatchExact: the response equals the answer, both trimmed of white
	// space and of one trailing ".", "!" or "?", runs of white space
	// read as one space, letter case ignored (Unicode simple folding).
	MatchExact Match = "exact"
	// MatchNumber: the response's number equals the answer's, exactly as
	// decimals (1,234.50 = 1234.5); see FinalNumber.
	MatchNumber Match = "number"
	// MatchChoice: the response's choice letter equals the answer's, A–J
	// (MMLU-Pro has ten options); see ChoiceLetter.
	MatchChoice Match = "choice"
	// MatchRegex: the answer is an RE2 pattern (Go's regexp syntax) of at
	// most MaxPatternBytes that must match somewhere in the response;
	// anchor it (^…$) to demand the whole, add (?i) to ignore case.
	MatchRegex Match = "regex"
)

// Matches are the matchers, in the order the docs list them.
var Matches = []Match{MatchExact, MatchNumber, MatchChoice, MatchRegex}

// MaxPatternBytes is the longest regex a task may give. Go's regexp is
// RE2: it runs in time linear in the response, whatever the pattern.
const MaxPatternBytes = 1024

// maxNumberRunes is the longest run of digits FinalNumber reads as a
// number: a longer one is no answer, and big.Rat's cost grows with it.
const maxNumberRunes = 64

// ErrNoNumber and ErrNoChoice are answers a number or choice task cannot
// check against.
var (
	ErrNoNumber = errors.New("the answer has no number")
	ErrNoChoice = errors.New("the answer is not a choice letter A–J")
)

// Task is one item of a task file: a prompt, its answer, and how the
// answer is checked. Make one with NewTask.
type Task struct {
	Line   int // its line in the file, from 1; 0 when not from a file
	Prompt string
	Answer string
	Match  Match
	re     *regexp.Regexp
	number *big.Rat
	choice byte
}

// NewTask is a task checked by m, its answer prepared once: a regex
// compiled, a number or choice letter read. Errors say what is wrong
// with the answer (ErrNoNumber, ErrNoChoice, a pattern too long or that
// does not compile) or with m.
func NewTask(prompt, answer string, m Match) (Task, error) {
	t := Task{Prompt: prompt, Answer: answer, Match: m}
	switch m {
	case MatchExact:
	case MatchNumber:
		if t.number = FinalNumber(answer); t.number == nil {
			return Task{}, ErrNoNumber
		}
	case MatchChoice:
		if t.choice = choiceAnswer(answer); t.choice == 0 {
			return Task{}, ErrNoChoice
		}
	case MatchRegex:
		if len(answer) > MaxPatternBytes {
			return Task{}, fmt.Errorf("the pattern has %d bytes, more than %d", len(answer), MaxPatternBytes)
		}
		re, err := regexp.Compile(answer)
		if err != nil {
			return Task{}, fmt.Errorf("the pattern does not compile: %w", err)
		}
		t.re = re
	default:
		return Task{}, fmt.Errorf("match %q is not one of exact, number, choice, regex", m)
	}
	return t, nil
}

// Correct reports whether response answers the task, by its matcher.
func (t Task) Correct(response string) bool {
	switch t.Match {
	case MatchExact:
		return strings.EqualFold(normalizeExact(response), normalizeExact(t.Answer))
	case MatchNumber:
		n := FinalNumber(response)
		return n != nil && t.number != nil && n.Cmp(t.number) == 0
	case MatchChoice:
		return t.choice != 0 && ChoiceLetter(response) == t.choice
	case MatchRegex:
		return t.re != nil && t.re.MatchString(response)
	}
	return false
}

// normalizeExact is s as MatchExact compares it, case aside.
func normalizeExact(s string) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	if n := len(s); n > 0 && strings.ContainsRune(".!?", rune(s[n-1])) {
		s = strings.TrimRightFunc(s[:n-1], unicode.IsSpace)
	}
	return s
}

// FinalNumber is the number a response ends on: after the last "####"
// (GSM8K's answer mark) the first number there, else the last number in
// the text; nil when there is none. A number is a run of ASCII digits,
// with "," between groups of exactly three ("1,234"), and an optional
// "." and digits ("3.5", or ".5" alone); a "-" or "−" just before it
// makes it negative unless a letter or digit precedes that sign ("5-3"
// holds 5 and 3), and a run that a letter precedes is no number ("H2O").
// "$1,234.50" reads 1234.5, "42%" 42. Runs longer than 64 characters are
// not numbers. Fractions and exponents are not read.
func FinalNumber(s string) *big.Rat {
	if i := strings.LastIndex(s, "####"); i >= 0 {
		nums := numbers(s[i+4:])
		if len(nums) > 0 {
			return nums[0]
		}
		return nil
	}
	nums := numbers(s)
	if len(nums) == 0 {
		return nil
	}
	return nums[len(nums)-1]
}

// numberRE finds FinalNumber's candidates; numbers checks what precedes.
var numberRE = regexp.MustCompile(`(-|−)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?`)

// numbers are the numbers in s, in order (FinalNumber).
func numbers(s string) []*big.Rat {
	var out []*big.Rat
	for _, m := range numberRE.FindAllStringSubmatchIndex(s, -1) {
		start, digits := m[0], m[4]
		if digits > 0 && isWordByte(s[digits-1]) && m[2] < 0 {
			continue // the tail of a word or a longer run: "x2", "a1,000"
		}
		neg := m[2] >= 0 && (start == 0 || !isWordByte(s[start-1]))
		text := strings.ReplaceAll(s[digits:m[1]], ",", "")
		if m[1]-digits > maxNumberRunes {
			continue
		}
		if m[2] < 0 && digits > 0 && s[digits-1] == '.' && !strings.Contains(text, ".") {
			text = "0." + text // ".5"
		}
		r, ok := new(big.Rat).SetString(text)
		if !ok {
			continue
		}
		if neg {
			r.Neg(r)
		}
		out = append(out, r)
	}
	return out
}

// isWordByte reports whether c is an ASCII letter or digit.
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
