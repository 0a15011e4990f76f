package quality

import (
	"errors"
	"strings"
	"testing"
)

// TestCorrect: each matcher on the answers models give.
func TestCorrect(t *testing.T) {
	for _, tc := range []struct {
		match    Match
		answer   string
		response string
		want     bool
	}{
		{MatchExact, "Paris", "Paris", true},
		{MatchExact, "Paris", "  paris.\n", true},
		{MatchExact, "New York", "new   York!", true},
		{MatchExact, "Paris", "The answer is Paris.", false},
		{MatchExact, "Paris", "Paris..", false},
		{MatchExact, "Ärger", "ärger", true},
		{MatchNumber, "42", "Natalia sold 48/2 = 24 clips in May.\n#### 42", true},
		{MatchNumber, "#### 72", "She sold 48+24 = 72 clips.\n#### 72", true},
		{MatchNumber, "72", "#### 72\nAnd then 5 more things.", true},
		{MatchNumber, "1234.5", "The total is $1,234.50.", true},
		{MatchNumber, "-3", "So x = -3", true},
		{MatchNumber, "-3", "So x = −3", true},
		{MatchNumber, "3", "5-3", true},
		{MatchNumber, "18", "She makes 9 * 2 = $18 every day.", true},
		{MatchNumber, "18", "18 dollars, minus 2 is 16", false},
		{MatchNumber, "42", "The answer is 42%", true},
		{MatchNumber, "42", "The answer is 42.0", true},
		{MatchNumber, "42", "H2O and 42", true},
		{MatchNumber, "2", "H2O", false},
		{MatchNumber, "1000000", "1,000,000", true},
		{MatchNumber, "42", "no number here", false},
		{MatchNumber, "42", "#### none", false},
		{MatchNumber, "1", strings.Repeat("1", 100), false},
		{MatchChoice, "B", "B", true},
		{MatchChoice, "(b)", "The answer is (B).", true},
		{MatchChoice, "C", "Let's think. A is wrong, B is wrong. The answer is C", true},
		{MatchChoice, "C", "answer: C\nAnswer: D", false},
		{MatchChoice, "D", "answer: C\nAnswer: D", true},
		{MatchChoice, "B", "**B**", true},
		{MatchChoice, "B", "B) Paris", true},
		{MatchChoice, "B", "(B) Paris", true},
		{MatchChoice, "A", "A fair coin is flipped twice.", false},
		{MatchChoice, "C", "A fair coin ... so (C)", true},
		{MatchChoice, "A", "The answer is Actually unclear", false},
		{MatchChoice, "J", "the correct answer is J.", true},
		{MatchChoice, "B", "", false},
		{MatchRegex, `^\s*(?i)paris\s*$`, " Paris ", true},
		{MatchRegex, `\b42\b`, "it is 42.", true},
		{MatchRegex, `\b42\b`, "it is 420.", false},
	} {
		task, err := NewTask("q", tc.answer, tc.match)
		if err != nil {
			t.Fatalf("NewTask(%q, %s): %v", tc.answer, tc.match, err)
		}
		if got := task.Correct(tc.response); got != tc.want {
			t.Errorf("%s %q against %q = %v, want %v", tc.match, tc.answer, tc.response, got, tc.want)
		}
	}
}

// TestNewTaskRefuses: answers a matcher cannot check against.
func TestNewTaskRefuses(t *testing.T) {
	for _, tc := range []struct {
		answer string
		match  Match
		want   string
		is     error
	}{
		{"forty-two", MatchNumber, "no number", ErrNoNumber},
		{"K", MatchChoice, "choice letter", ErrNoChoice},
		{"AB", MatchChoice, "choice letter", ErrNoChoice},
		{"(", MatchRegex, "does not compile", nil},
		{strings.Repeat("a", MaxPatternBytes+1), MatchRegex, "more than 1024", nil},
		{"x", Match("fuzzy"), "not one of exact, number, choice, regex", nil},
	} {
		_, err := NewTask("q", tc.answer, tc.match)
		if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("NewTask(%.20q, %s) = %v, want an error about %q", tc.answer, tc.match, err, tc.want)
		}
	}
}

// TestFinalNumber: which number a response ends on.
func TestFinalNumber(t *testing.T) {
	for in, want := range map[string]string{
		"#### 1,234":            "1234",
		"a 3.5 b 7":             "7",
		"#### -8 then 9":        "-8",
		"pi is 3.14159.":        "314159/100000",
		"about 1,000.":          "1000",
		"x2 y":                  "",
		"list 1,23":             "23",
		"costs $0.50, not $.5.": "1/2",
		"version 1.2.3":         "3/10",
	} {
		got := FinalNumber(in)
		if (want == "") != (got == nil) || (got != nil && got.RatString() != want) {
			t.Errorf("FinalNumber(%q) = %v, want %q", in, got, want)
		}
	}
}
