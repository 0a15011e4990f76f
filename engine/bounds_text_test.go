package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBoundText(t *testing.T) {
	long := strings.Repeat("é", 300)
	for _, c := range []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain ASCII is kept", "RedHatAI/gemma-4-E2B-it", 256, "RedHatAI/gemma-4-E2B-it"},
		{"tab and newline are kept", "a\tb\nc", 256, "a\tb\nc"},
		{"right-to-left override", "gemma\u202eti-B2E", 256, "gemmati-B2E"},
		{"every bidi control", "a\u202ab\u202bc\u202cd\u202de\u202ef\u2066g\u2067h\u2068i\u2069j\u200ek\u200fl\u061cm", 256, "abcdefghijklm"},
		{"terminal escape", "model\x1b]0;pwned\x07\x1b[31m", 256, "model]0;pwned[31m"},
		{"C1 control and DEL", "a\u0085b\x7fc", 256, "abc"},
		{"invalid UTF-8", "a\xffb", 256, "a\ufffdb"},
		{"cut with an ellipsis", "abcdef", 4, "abc…"},
		{"exactly the bound", "abcd", 4, "abcd"},
		{"runes, not bytes", long, 256, strings.Repeat("é", 255) + "…"},
		{"hidden runes don't count", "ab\u202ecd", 4, "abcd"},
		{"nothing allowed", "abc", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := BoundText(c.in, c.max); got != c.want {
				t.Errorf("BoundText(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
			}
		})
	}
}

func TestBoundNameIsOneLineOfAtMostMaxNameRunes(t *testing.T) {
	if got := BoundName("a\tb\nc"); got != "a b c" {
		t.Errorf("BoundName = %q, want %q", got, "a b c")
	}
	got := BoundName(strings.Repeat("m", 1<<20))
	if n := utf8.RuneCountInString(got); n != MaxNameRunes || !strings.HasSuffix(got, Ellipsis) {
		t.Errorf("a 1 MB name keeps %d runes (%q…), want %d ending in %q", n, got[:10], MaxNameRunes, Ellipsis)
	}
}

// TestBoundReportReachesEveryString: a report read from a file has every
// string bounded and cleaned, nested and in maps, and its names cut to
// MaxNameRunes.
func TestBoundReportReachesEveryString(t *testing.T) {
	huge := strings.Repeat("x", MaxTextRunes+10)
	rlo := "\u202e"
	r := Report{
		Run:           RunInfo{Model: strings.Repeat("m", 1<<20), ServedModel: "served" + rlo, Notes: []string{huge}, Imported: &Import{Tool: rlo + "tool"}},
		LaunchCommand: "vllm serve" + rlo,
		Hardware:      HardwareInfo{GPUs: []GPUInfo{{Name: "H100" + rlo}}},
		Diagnostics:   &Diagnostics{Env: map[string]string{"VLLM_" + rlo: "v" + rlo}},
		Results:       []Result{{Error: huge, Flags: []Flag{{Message: "flag" + rlo}}, Requests: []RequestSample{{FinishReason: rlo + "stop"}}}},
		Roofline:      &RooflineFacts{Model: RooflineModel{Name: strings.Repeat("n", 300), Sources: map[string]string{"k": rlo}}},
	}
	BoundReport(&r)
	checks := map[string]string{
		"run.served_model":  r.Run.ServedModel,
		"launch_command":    r.LaunchCommand,
		"gpu name":          r.Hardware.GPUs[0].Name,
		"imported tool":     r.Run.Imported.Tool,
		"flag":              r.Results[0].Flags[0].Message,
		"finish reason":     r.Results[0].Requests[0].FinishReason,
		"env value":         r.Diagnostics.Env["VLLM_"],
		"roofline source":   r.Roofline.Model.Sources["k"],
		"run.model":         r.Run.Model,
		"notes[0]":          r.Run.Notes[0],
		"results[0].error":  r.Results[0].Error,
		"roofline model":    r.Roofline.Model.Name,
		"env key (removed)": strings.Join(mapKeys(r.Diagnostics.Env), ","),
	}
	for field, s := range checks {
		if strings.Contains(s, rlo) {
			t.Errorf("%s keeps U+202E: %q", field, s)
		}
	}
	for field, c := range map[string]struct {
		s   string
		max int
	}{"run.model": {r.Run.Model, MaxNameRunes}, "roofline model": {r.Roofline.Model.Name, MaxNameRunes},
		"notes[0]": {r.Run.Notes[0], MaxTextRunes}, "results[0].error": {r.Results[0].Error, MaxTextRunes}} {
		if n := utf8.RuneCountInString(c.s); n != c.max || !strings.HasSuffix(c.s, Ellipsis) {
			t.Errorf("%s: %d runes, want %d ending in %q", field, n, c.max, Ellipsis)
		}
	}
}

func mapKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestBoundStringsWalksWhatHoldsStrings: strings behind pointers,
// interfaces holding pointers, arrays and nested maps are bounded; numbers
// and times are left alone.
func TestBoundStringsWalksWhatHoldsStrings(t *testing.T) {
	type inner struct{ S string }
	type outer struct {
		P      *inner
		Any    any
		Arr    [2]string
		M      map[string][]inner
		N      []float64
		hidden string
	}
	in := &inner{S: "b\u202e"}
	v := outer{P: &inner{S: "a\u202e"}, Any: in, Arr: [2]string{"c\u202e", "d"}, M: map[string][]inner{"k\u202e": {{S: "e\u202e"}}},
		N: []float64{1, 2}, hidden: "h\u202e"}
	BoundStrings(&v)
	if v.P.S != "a" || in.S != "b" || v.Arr[0] != "c" || len(v.M["k"]) != 1 || v.M["k"][0].S != "e" || v.N[1] != 2 || v.hidden != "h\u202e" {
		t.Errorf("BoundStrings = %+v (any → %+v)", v, in)
	}
}

// TestBoundReportQualityNames: a report.json's quality section names its
// reference file in one-line errors: a hostile name is one short line.
func TestBoundReportQualityNames(t *testing.T) {
	r := Report{Quality: &QualityReport{ReferenceFile: "ref\nrun rm -rf /" + strings.Repeat("x", 10_000), ReferenceSHA256: "ab\rcd"}}
	BoundReport(&r)
	for _, s := range []string{r.Quality.ReferenceFile, r.Quality.ReferenceSHA256} {
		if strings.ContainsAny(s, "\n\r") || len([]rune(s)) > MaxNameRunes+1 {
			t.Errorf("bounded to %q", s)
		}
	}
}
