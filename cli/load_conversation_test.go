package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// writeChats writes a dataset of three conversations of three turns.
func writeChats(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for i := range 3 {
		b.WriteString(`{"messages": [`)
		for k := range 3 {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString(`{"role": "user", "content": "conversation ` + string(rune('a'+i)) + ` turn ` + string(rune('1'+k)) +
				strings.Repeat(" tell me more about the prefix cache", 8) + `"}, {"role": "assistant", "content": "it holds the history"}`)
		}
		b.WriteString("]}\n")
	}
	path := filepath.Join(t.TempDir(), "chats.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadConversations replays a dataset's conversations with `speedmatrix
// load --conversations`: one line for the replay with the prefix cache,
// what was replayed, the TTFT by turn, and the report saved with them.
func TestLoadConversations(t *testing.T) {
	t.Parallel()
	fastSim(t)
	noCharts(t)
	dir := filepath.Join(t.TempDir(), "out")
	out, err := loadCLI(t, t.Context(), "--sim", "tiny", "--dataset", writeChats(t), "--conversations", "2", "--answers", "dataset",
		"--think-time", "exp:10ms", "--output-tokens", "16", "--seed", "4", "--out", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"conversations (simulated): 9/9 completed", ", Prefix cache: ",
		"    Conversations: 3 conversations of chats.jsonl (9 turns), 2 at once, the dataset's answers in the history, think time exp:10ms\n",
		"    TTFT p50 by turn (mean prompt tokens): 1: ", " · 3: ", "done: 1 rate",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	rep, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := rep.Load
	if c := l.Plan.Conversations; c == nil || c.Open != 2 || !c.ThinkExp || c.Answers != engine.AnswersDataset || l.Plan.Requests != 9 {
		t.Errorf("saved plan %+v", l.Plan)
	}
	if l.Conversations == nil || l.Conversations.Turns != 9 || len(l.Results) != 1 || len(l.Results[0].Turns) != 3 {
		t.Errorf("saved replay: %+v, results %+v", l.Conversations, l.Results)
	}
}

// TestLoadConversationFlagErrors: each flag a replay can't take, or a bad
// value, is one line naming the flag, before anything is measured.
func TestLoadConversationFlagErrors(t *testing.T) {
	t.Parallel()
	chats := writeChats(t)
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"prompt": "a"}`+"\n"+`{"conversations": [{"from": "gpt", "value": "a"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	replay := []string{"--dataset", chats, "--conversations", "2"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--conversations", "2"}, "load: --conversations replays a dataset: give --dataset FILE.jsonl of conversations"},
		{[]string{"--rates", "1", "--think-time", "2s"}, "load: --think-time goes with --conversations N"},
		{[]string{"--rates", "1", "--answers", "dataset"}, "load: --answers goes with --conversations N"},
		{append([]string{"--rates", "1"}, replay...), "load: --rates and --conversations: a replay sends each conversation's turns one after the other"},
		{append([]string{"--burst", "4"}, replay...), "load: --burst and --conversations"},
		{append([]string{"--requests", "4"}, replay...), "load: --requests and --conversations"},
		{append([]string{"--arrivals", "constant"}, replay...), "load: --arrivals and --conversations"},
		{append([]string{"--input-tokens", "64"}, replay...), "load: --input-tokens and --conversations"},
		{append([]string{"--max-concurrency", "4"}, replay...), "load: --max-concurrency and --conversations"},
		{append([]string{"--api", "completions"}, replay...), "load: --api completions and --conversations: a conversation is sent as chat messages"},
		{append([]string{"--think-time", "-1s"}, replay...), `load: --think-time: "-1s" is not a think time`},
		{append([]string{"--answers", "oracle"}, replay...), `load: --answers: "oracle" is not what a history holds: use model or dataset`},
		{[]string{"--dataset", chats, "--conversations", "5000"}, "load: --conversations: 5000 conversations at once: use 1 to 4096"},
		{[]string{"--dataset", bad, "--conversations", "1"}, "load: --dataset: bad.jsonl line 2: no user turn"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := loadCLI(t, t.Context(), append(append([]string{"--sim", "tiny"}, tc.args...), "--out", filepath.Join(out, "x"))...)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err %v, want one line starting %q", err, tc.want)
			}
		})
	}
}
