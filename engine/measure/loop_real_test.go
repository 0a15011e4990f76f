package measure

import (
	"os"
	"strings"
	"testing"
)

// TestLoopDetectorOnRealText feeds the detector the greedy text of a real
// vLLM 0.32.0 serving the rig's random-weight model (scripts/rig/
// make_model.py), recorded by scripts/real-vllm.sh --update-testdata: 1,500
// tokens with no periodic tail, which must not fire, even token by token.
// The same text with a real fragment of it repeated until it covers
// LoopMinChars must fire: a random-weight model at the usual init scale
// (0.02) fell into such a loop within 200 tokens on that server.
func TestLoopDetectorOnRealText(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/vllm-0.32.0-cpu-greedy-text.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if len(text) < 2*loopMinChars {
		t.Fatalf("the recorded text has %d bytes, too few to test the detector", len(text))
	}
	var d loopDetector
	for _, word := range strings.SplitAfter(text, " ") {
		if d.Write(word) {
			t.Fatalf("a real non-periodic greedy text fired the detector")
		}
	}
	if d.Flush() {
		t.Fatalf("a real non-periodic greedy text fired the detector at its end")
	}

	fragment := text[len(text)/2 : len(text)/2+23]
	var l loopDetector
	l.Write(text[:loopMinChars])
	fired := -1
	for i := 0; i < 4*loopMinChars/len(fragment) && fired < 0; i++ {
		if l.Write(fragment) {
			fired = i + 1
		}
	}
	if fired < 0 || !l.Flush() {
		t.Fatalf("a real fragment of %d bytes repeated %d times did not fire the detector", len(fragment), 4*loopMinChars/len(fragment))
	}
	if covered := fired * len(fragment); covered < loopMinChars {
		t.Errorf("fired after %d bytes of repetition, before covering LoopMinChars (%d)", covered, loopMinChars)
	}
}
