package engine

import (
	"strings"
	"testing"
)

// TestPrecisionWrittenForPeople: a target is written as people write it,
// in a field and in the error that refuses it ("0.00009999999999999999%"
// for 0.0001% was not), and reads back as the same target.
func TestPrecisionWrittenForPeople(t *testing.T) {
	for _, typed := range []string{"0.0001%", "0.1%", "0.3%", "1%", "0.5%", "2.5%", "50%", "70%"} {
		p, err := ParsePrecision(typed)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatPrecision(p); got != typed {
			t.Errorf("%s is written %q", typed, got)
		}
	}
	p, _ := ParsePrecision("0.0001%")
	if got := precisionProblem(p); !strings.HasPrefix(got, "0.0001% is outside") {
		t.Errorf("the problem with 0.0001%% says %q", got)
	}
}

// TestContextErrorQuotesTheItem: a context that is not one is quoted as
// written ("1.5K" was quoted as "1.5").
func TestContextErrorQuotesTheItem(t *testing.T) {
	for _, item := range []string{"1.5K", "8k!", "-1K", "lots"} {
		_, err := ParseContexts("8K, " + item)
		if err == nil || !strings.HasPrefix(err.Error(), `"`+item+`" is not a context length`) {
			t.Errorf("ParseContexts(%q): %v", item, err)
		}
	}
}
