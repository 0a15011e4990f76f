package sim

import (
	"encoding/json"
	"regexp"
	"slices"
	"testing"
)

// intArrayCases are the fast path's table: what it returns, and whether
// it takes the input (ok) or leaves it to encoding/json.
var intArrayCases = []struct {
	in   string
	want []int64 // when ok
	ok   bool
}{
	{`[1,2,3]`, []int64{1, 2, 3}, true},
	{` [ 1 , -2 ,3 ] `, []int64{1, -2, 3}, true},
	{`[]`, []int64{}, true},
	{`[0]`, []int64{0}, true},
	{`[-0]`, []int64{0}, true},
	{`[123456789012345678]`, []int64{123456789012345678}, true},
	{`[1,]`, nil, false},
	{`[,1]`, nil, false},
	{`[1 2]`, nil, false},
	{`[1.5]`, nil, false},
	{`[01]`, nil, false},
	{`"text"`, nil, false},
	{`[[1,2]]`, nil, false},
	{`[1]x`, nil, false},
	{`[`, nil, false},
	{``, nil, false},
	// More than 18 digits: left to encoding/json (which takes 19 digits
	// that fit an int64 and rejects the rest).
	{`[1234567890123456789]`, nil, false},
	{`[123456789012345678901]`, nil, false},
}

// TestParseIntArray checks both outcomes of the fast path from the table,
// and that it agrees with encoding/json.
func TestParseIntArray(t *testing.T) {
	for _, tc := range intArrayCases {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := parseIntArray([]byte(tc.in))
			if ok != tc.ok || ok && (got == nil || !slices.Equal(got, tc.want)) {
				t.Errorf("parseIntArray(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
			}
			checkIntArray(t, tc.in)
		})
	}
}

func FuzzParseIntArray(f *testing.F) {
	for _, tc := range intArrayCases {
		f.Add(tc.in)
	}
	f.Fuzz(checkIntArray)
}

// longNumber is a run of more than 18 digits, which the fast path leaves to
// encoding/json.
var longNumber = regexp.MustCompile(`[0-9]{19,}`)

// checkIntArray: the fast path takes exactly the flat integer arrays json
// takes (except those with a number over 18 digits), with the same values.
func checkIntArray(t *testing.T, in string) {
	got, ok := parseIntArray([]byte(in))
	var want []int64
	jsonOK := json.Unmarshal([]byte(in), &want) == nil && want != nil
	switch {
	case ok && (!jsonOK || !slices.Equal(got, want)):
		t.Errorf("parseIntArray(%q) = %v, json says %v (ok %v)", in, got, want, jsonOK)
	case !ok && jsonOK && !longNumber.MatchString(in):
		t.Errorf("parseIntArray(%q) refused what json reads as %v", in, want)
	}
}

// TestChatIDsPiecewise: tokenising the chat template piece by piece gives
// the ids of the joined text, also for contents that end or start with
// what could merge with the template's tokens.
func TestChatIDsPiecewise(t *testing.T) {
	s, err := New(Options{Profile: tinyProfile()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, content := range []string{"", "Hello world", " leading space", "ends with <", "<end_of_turn", "bos> x <bos", "line\n\n", "Zqxv brab <start_of_turn>user\n"} {
		raw, _ := json.Marshal(content)
		msgs := []chatMessage{{Role: "system", Content: rawJSON(`"Be brief."`)}, {Role: "user", Content: rawJSON(raw)}, {Role: "assistant", Content: rawJSON(`null`)}}
		got, err := s.chatIDs(msgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		joined := "<bos><start_of_turn>system\nBe brief.<end_of_turn>\n<start_of_turn>user\n" + content + "<end_of_turn>\n<start_of_turn>model\n<end_of_turn>\n<start_of_turn>model\n"
		if want := s.tok.encode(nil, joined); !slices.Equal(got, want) {
			t.Errorf("content %q: piecewise ids %v, joined %v", content, got, want)
		}
	}
}

// TestChatIDsHistoryFirst: a conversation's next turn renders the turn
// before it, generation prompt included, as its prefix, the same ids, as a
// real chat template does: nothing of a request's own comes first, so the
// prefix cache can hold a conversation's history from turn to turn.
func TestChatIDsHistoryFirst(t *testing.T) {
	s, err := New(Options{Profile: tinyProfile()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msg := func(role, text string) chatMessage {
		raw, _ := json.Marshal(text)
		return chatMessage{Role: role, Content: rawJSON(raw)}
	}
	turn1 := []chatMessage{msg("system", "Be brief."), msg("user", "What does a prefix cache hold?")}
	turn2 := append(slices.Clone(turn1), msg("assistant", "Blocks of earlier prompts, by hash."), msg("user", "And across turns?"))
	a, err := s.chatIDs(turn1, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.chatIDs(turn2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) <= len(a) || !slices.Equal(b[:len(a)], a) {
		t.Fatalf("turn 2's ids %v do not start with turn 1's %v", b, a)
	}
	if ha, hb := blockHashes(a, 4), blockHashes(b, 4); !slices.Equal(hb[:len(ha)], ha) {
		t.Errorf("turn 2's block hashes %v do not start with turn 1's %v", hb, ha)
	}
}
