package sim

import (
	"bytes"
	"strings"
)

// The needle task: a chat prompt hides a key in a long text and asks for
// it back. The simulator recognises it by two fixed phrases, which a
// client's needle task must use verbatim:
//
//   - somewhere in the messages, NeedleKeyIntro followed by the key, six
//     ASCII digits ("The secret key is 482913."); the last such key counts;
//   - the last message ends with NeedleQuestion (white space may follow).
//
// The answer is the key's six digits and nothing else (then the answer
// stops, unless ignore_eos). With a lossy KV cache one digit is wrong with
// a chance that grows with the prompt's length (needleErrorP, drift.go);
// the draw is the prompt's, so the same trial fails on every server whose
// chance is at least as high, and never on the reference.
const (
	NeedleKeyIntro = "The secret key is "
	NeedleQuestion = "What is the secret key? Answer with its six digits only."
	needleDigits   = 6
)

// needleQuestionSlack is how far from the end of the last message's JSON
// text the question may end: room for trailing white space and escapes.
const needleQuestionSlack = 64

// findNeedle returns the key of a needle question in msgs, or "". Only the
// end of the last message is searched unless it asks the question, so an
// ordinary request pays for a few dozen bytes.
func findNeedle(msgs []chatMessage) string {
	if len(msgs) == 0 {
		return ""
	}
	last := msgs[len(msgs)-1].Content
	tail := last[max(0, len(last)-len(NeedleQuestion)-needleQuestionSlack):]
	if !bytes.Contains(tail, []byte(NeedleQuestion)) {
		return ""
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		text, err := messageText(msgs[i].Content)
		if err != nil {
			return ""
		}
		for rest := text; ; {
			at := strings.LastIndex(rest, NeedleKeyIntro)
			if at < 0 {
				break
			}
			if key := rest[at+len(NeedleKeyIntro):]; len(key) >= needleDigits && allDigits(key[:needleDigits]) &&
				(len(key) == needleDigits || !isDigit(key[needleDigits])) {
				return strings.Clone(key[:needleDigits]) // not the whole message's text
			}
			rest = rest[:at]
		}
	}
	return ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// needleAnswer is what the model answers for key after a prompt whose
// pseudo-model hash is h and length promptLen: the key, or the key with one
// digit wrong.
func (m *pseudoModel) needleAnswer(key string, h uint64, promptLen int) string {
	if unit(mix64(h^0x6e656564)) >= m.needleErrorP(promptLen) {
		return key
	}
	b := []byte(key)
	j := mix64(h^0x1e) % needleDigits
	b[j] = '0' + byte((uint64(b[j]-'0')+1+mix64(h^0x2e)%9)%10)
	return string(b)
}
