package engine

import (
	"strings"
	"testing"
	"time"
)

func TestParseThinkTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		exp  bool
		err  bool
	}{
		{"0", 0, false, false}, {"2s", 2 * time.Second, false, false}, {" 500ms ", 500 * time.Millisecond, false, false},
		{"exp:2s", 2 * time.Second, true, false}, {"EXP: 1.5s", 1500 * time.Millisecond, true, false}, {"exp:0", 0, true, false},
		{"-1s", 0, false, true}, {"2", 0, false, true}, {"2h", 0, false, true}, {"exp:", 0, false, true}, {"soon", 0, false, true},
	} {
		d, exp, err := ParseThinkTime(tc.in)
		if (err != nil) != tc.err || d != tc.want || exp != tc.exp {
			t.Errorf("ParseThinkTime(%q) = %v, %v, %v; want %v, %v, error %v", tc.in, d, exp, err, tc.want, tc.exp, tc.err)
		}
		if err == nil {
			// What a plan writes reads back the same.
			back, backExp, _ := ParseThinkTime(ConversationPlan{ThinkTime: d, ThinkExp: exp}.ThinkTimeText())
			if back != d || backExp != exp {
				t.Errorf("%q wrote back as %v, %v", tc.in, back, backExp)
			}
		}
	}
}

// TestValidateConversationPlan: a replay is one mode of a load plan, needs
// its dataset and the chat API, and bounds its settings.
func TestValidateConversationPlan(t *testing.T) {
	good := LoadPlan{Dataset: "chats.jsonl", Conversations: &ConversationPlan{Open: 4, Answers: AnswersModel}, Arrivals: ArrivalsConversations,
		OutputTokens: TokenRange{64, 64}, API: APIChat}
	with := func(f func(*LoadPlan, *ConversationPlan)) LoadPlan {
		p, c := good, *good.Conversations
		f(&p, &c)
		p.Conversations = &c
		return p
	}
	for _, tc := range []struct {
		name  string
		plan  LoadPlan
		lim   Limits
		field PlanField
		want  string
	}{
		{"good", good, Limits{MaxModelLen: 4096}, "", ""},
		{"with rates", with(func(p *LoadPlan, _ *ConversationPlan) { p.RatesRPS = []float64{1} }), Limits{}, FieldRates, "give one of"},
		{"no dataset", with(func(p *LoadPlan, _ *ConversationPlan) { p.Dataset = " " }), Limits{}, FieldDataset, "needs a JSONL dataset"},
		{"none at once", with(func(_ *LoadPlan, c *ConversationPlan) { c.Open = 0 }), Limits{}, FieldConversations, "use 1 to 4096"},
		{"negative think", with(func(_ *LoadPlan, c *ConversationPlan) { c.ThinkTime = -time.Second }), Limits{}, FieldThinkTime, "use 0 to an hour"},
		{"answers", with(func(_ *LoadPlan, c *ConversationPlan) { c.Answers = "" }), Limits{}, FieldAnswers, "use model or dataset"},
		{"cap", with(func(p *LoadPlan, _ *ConversationPlan) { p.MaxConcurrency = 8 }), Limits{}, FieldMaxConcurrency, "drop the cap"},
		{"completions", with(func(p *LoadPlan, _ *ConversationPlan) { p.API = APICompletions }), Limits{}, FieldAPI, "use chat"},
		{"output", with(func(p *LoadPlan, _ *ConversationPlan) { p.OutputTokens = TokenRange{0, 0} }), Limits{}, FieldOutputTokens, "use at least 1"},
		{"output past the context", good, Limits{MaxModelLen: 64}, FieldOutputTokens, "leave no room for a prompt in the model's max_model_len 64"},
		{"turns", with(func(p *LoadPlan, _ *ConversationPlan) { p.Requests = 250_000 }), Limits{}, "", ""},
		{"too many tokens", with(func(p *LoadPlan, _ *ConversationPlan) { p.Requests, p.OutputTokens = 250_000, TokenRange{64, 512} }), Limits{}, FieldOutputTokens,
			"250000 turns of up to 512 output tokens are more tokens than a replay keeps (64 million)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateLoadPlan(tc.plan, tc.lim)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("%v, want none", err)
				}
				return
			}
			pe, ok := err.(*PlanError)
			if !ok || pe.Problems[0].Field != tc.field || !strings.Contains(pe.Problems[0].Problem, tc.want) {
				t.Errorf("%v, want %s: …%s…", err, tc.field, tc.want)
			}
		})
	}
	if r := good.Rates(); len(r) != 1 || r[0] != 0 {
		t.Errorf("a replay's rates are %v, want its one row", r)
	}
}
