package quality

import (
	"bytes"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// TestReadReport: a quality.json is read back within its bounds; a huge,
// malformed or over-counted one is refused with what is wrong.
func TestReadReport(t *testing.T) {
	good := `{"reference": {"model": "` + strings.Repeat("m", 5000) + `"}, "contexts": [{"context_tokens": 512, "positions": 96}]}`
	rep, err := ReadReport(strings.NewReader(good))
	if err != nil || len(rep.Contexts) != 1 || len([]rune(rep.Reference.Model)) > engine.MaxNameRunes {
		t.Fatalf("a good quality.json: %v, %d contexts, a model of %d runes", err, len(rep.Contexts), len([]rune(rep.Reference.Model)))
	}
	many := `{"contexts": [` + strings.TrimSuffix(strings.Repeat(`{"context_tokens": 1},`, engine.MaxLevels+1), ",") + `]}`
	huge := bytes.Repeat([]byte(" "), MaxReportBytes+1)
	for name, in := range map[string]string{"not JSON": "{", "an array": "[]", "too many contexts": many, "huge": string(huge)} {
		if _, err := ReadReport(strings.NewReader(in)); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}
