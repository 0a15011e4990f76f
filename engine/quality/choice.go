package quality

import (
	"regexp"
	"strings"
)

// The patterns ChoiceLetter tries, in its order. Letters are upper case
// A–J only, so that "a" and "I" in prose are not read as choices where
// they cannot be (I is a choice only in ten-option tasks).
var (
	// "answer is (B)", "Answer: B", "the correct answer is B." — the last one.
	choiceAnswerRE = regexp.MustCompile(`(?i:answer)(?:\s+(?i:is))?\s*[:：]?\s*[(\[*]*([A-J])(?:[)\].,:;*\s]|$)`)
	// the whole response a letter: "B", "(B)", "**B**", "B."
	choiceAloneRE = regexp.MustCompile(`^\s*[(\[*]*([A-J])[)\].*]*\s*$`)
	// the response opening with a marked letter: "B) Paris", "(B) Paris", "B. Paris", "B: Paris"
	choiceLeadRE = regexp.MustCompile(`^\s*(?:\(([A-J])\)|([A-J])[).:])(?:\s|$)`)
	// a letter in parentheses anywhere: "… so (C)" — the last one.
	choiceParenRE = regexp.MustCompile(`\(([A-J])\)`)
)

// ChoiceLetter is the choice a response names, 'A'–'J', or 0 when it
// names none. It tries, in order: the last "answer is X" / "answer: X"
// (the word "answer" in any case, X maybe in parentheses, brackets or
// bold); the whole response being one letter ("B", "(B)", "**B**",
// "B."); the response opening with "B)", "(B)", "B." or "B:" and a
// space; and the last letter in parentheses anywhere, "(C)".
func ChoiceLetter(response string) byte {
	if all := choiceAnswerRE.FindAllStringSubmatch(response, -1); len(all) > 0 {
		return all[len(all)-1][1][0]
	}
	if m := choiceAloneRE.FindStringSubmatch(response); m != nil {
		return m[1][0]
	}
	if m := choiceLeadRE.FindStringSubmatch(response); m != nil {
		return (m[1] + m[2])[0]
	}
	if all := choiceParenRE.FindAllStringSubmatch(response, -1); len(all) > 0 {
		return all[len(all)-1][1][0]
	}
	return 0
}

// choiceAnswer is the letter a choice task's answer names: one letter
// A–J in either case, maybe in parentheses or brackets, maybe with a
// trailing "." or ")"; 0 when it is anything else.
func choiceAnswer(answer string) byte {
	s := strings.TrimSpace(answer)
	s = strings.TrimLeft(s, "([")
	s = strings.TrimRight(s, ").]")
	if len(s) != 1 {
		return 0
	}
	c := strings.ToUpper(s)[0]
	if c < 'A' || c > 'J' {
		return 0
	}
	return c
}
