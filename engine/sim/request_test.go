package sim

import (
	"encoding/json"
	"slices"
	"testing"
)

var intArrayCases = []string{
	`[1,2,3]`, ` [ 1 , -2 ,3 ] `, `[]`, `[0]`, `[1,]`, `[,1]`, `[1 2]`, `[1.5]`, `"text"`, `[[1,2]]`, `[1]x`, `[`,
	`[123456789012345678901]`,
}

// TestParseIntArray checks the fast path against encoding/json: it accepts
// exactly the flat integer arrays json accepts, with the same values.
func TestParseIntArray(t *testing.T) {
	for _, in := range intArrayCases {
		checkIntArray(t, in)
	}
}

func FuzzParseIntArray(f *testing.F) {
	for _, in := range intArrayCases {
		f.Add(in)
	}
	f.Fuzz(checkIntArray)
}

func checkIntArray(t *testing.T, in string) {
	got, ok := parseIntArray([]byte(in))
	var want []int64
	jsonOK := json.Unmarshal([]byte(in), &want) == nil
	if ok && (!jsonOK || !slices.Equal(got, want)) {
		t.Errorf("parseIntArray(%q) = %v, json says %v (ok %v)", in, got, want, jsonOK)
	}
}
