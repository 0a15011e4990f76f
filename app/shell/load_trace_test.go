package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/app"
	"speedmatrix/app/matrix"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
)

// writeAppTrace writes a Mooncake trace of 12 requests 20 ms apart, each
// sharing its first two 512-token blocks with the others.
func writeAppTrace(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": 8, "hash_ids": [1, 2, %d]}`+"\n", 20*i, 1100+i, 100+i)
	}
	path := filepath.Join(t.TempDir(), "chat-trace.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeAppConversations writes n ShareGPT conversations of three user
// turns each.
func writeAppConversations(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"conversations": [{"from": "human", "value": "Question %d: what is a KV cache?"}, {"from": "gpt", "value": "A cache."}, `+
			`{"from": "human", "value": "And a prefix cache?"}, {"from": "gpt", "value": "Shared starts."}, {"from": "human", "value": "Thanks."}]}`+"\n", i)
	}
	path := filepath.Join(t.TempDir(), "chats.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// simLoadForm is the app on the real simulator's tiny profile, with the
// real load test runner, and its Matrix screen set to a load test.
func simLoadForm(t *testing.T) (*ui, *matrix.LoadForm) {
	t.Helper()
	d := testDeps(t, &fakeEngine{})
	d.Sim, d.Load = simulator{}, app.LoadFunc(measure.RunLoad)
	u := newTestUI(t, d, app.Options{Target: "sim:tiny"})
	f := u.matrix.Load
	f.Kind.SetSelected(matrix.KindLoad)
	return u, f
}

// TestLoadFormReplaysATrace: a trace chosen in the load form is read at
// once and summed up (requests, span, implied hit rate), the rate fields
// it replaces are off, and Run replays it on the real simulator: the Run
// table fills in its one row, and Results' Prefix cache view shows the
// server's hit rate beside the one the trace implies.
func TestLoadFormReplaysATrace(t *testing.T) {
	u, f := simLoadForm(t)
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"timestamp": 0, "input_length": -3, "output_length": 8}`+"\n"), 0o644)
	f.SetTrace(bad)
	if !u.matrix.Load.Banner.Visible() || !strings.Contains(f.Banner.Current.Message, "Trace: bad.jsonl line 1: input_length -3") || u.State.Load.Err == nil {
		t.Errorf("a bad trace: banner %q, plan error %v", f.Banner.Current.Message, u.State.Load.Err)
	}
	f.SetDataset(bad) // not a dataset: ignored while a trace is chosen
	f.SetTrace(writeAppTrace(t))
	if !strings.Contains(f.TraceLine.Text, "Trace chat-trace.jsonl: 12 requests over 0.2 s") || !strings.Contains(f.TraceLine.Text, "imply a prefix-cache hit rate of 84.9 %") {
		t.Errorf("trace line %q", f.TraceLine.Text)
	}
	if !f.Rates.Disabled() || !f.Input.Disabled() || !f.Burst.Disabled() || f.TimeScale.Disabled() {
		t.Error("with a trace the rate fields are on, or its time scale is off")
	}
	f.TimeScale.SetText("2")
	p := u.State.Load.Plan
	if u.State.Load.Err != nil || p.Trace == nil || p.Trace.TimeScale != 2 || p.Arrivals != engine.ArrivalsTrace || p.Requests != 12 {
		t.Fatalf("plan %+v (trace %+v), err %v", p, p.Trace, u.State.Load.Err)
	}
	if cells := u.run.LoadView().Cells; len(cells) != 1 || cells[0][0] != "trace" || cells[0][1] != "will run" {
		t.Errorf("Run screen's planned rows %q", cells)
	}
	u.run.OnStart()
	if u.run.UiDone == nil {
		t.Fatalf("the replay did not start: %s", u.run.ProgressLine.Text)
	}
	waitFor(t, u.run.UiDone, "the replay to finish")
	cells := u.run.LoadView().Cells
	if len(cells) != 1 || !strings.HasPrefix(cells[0][0], "trace, ") || !strings.HasPrefix(cells[0][1], "Valid") || cells[0][2] != "12 / 0" {
		t.Errorf("Run table after the replay %q", cells)
	}
	l := u.results.Load
	if len(l.CacheRows) != 1 || !strings.HasSuffix(l.CacheRows[0][2], " %") || l.CacheRows[0][1] == report.Dash || !strings.HasPrefix(l.CacheText.Text, "Trace chat-trace.jsonl") || len(l.TurnRows) != 0 {
		t.Errorf("Results' prefix cache: %q, rows %q", l.CacheText.Text, l.CacheRows)
	}
}

// TestLoadFormReplaysConversations: a dataset of conversations replayed
// from the load form, two at once, on the real simulator: the form says
// how many conversations and turns the file holds, the rate fields are
// off, Run fills in the replay's row, and Results shows TTFT by turn.
func TestLoadFormReplaysConversations(t *testing.T) {
	u, f := simLoadForm(t)
	f.SetDataset(writeAppConversations(t, 3))
	f.Output.SetText("16")
	f.Convs.SetText("2")
	f.ThinkTime.SetText("exp:10ms")
	if !strings.HasSuffix(f.DatasetText(), "chats.jsonl: 3 conversations, 9 turns") {
		t.Errorf("dataset line %q", f.DatasetText())
	}
	p := u.State.Load.Plan
	if u.State.Load.Err != nil || p.Conversations == nil || p.Conversations.Open != 2 || !p.Conversations.ThinkExp || !f.Rates.Disabled() || !f.MaxConc.Disabled() {
		t.Fatalf("plan %+v, err %v, rates off %v", p, u.State.Load.Err, f.Rates.Disabled())
	}
	f.ThinkTime.SetText("soon")
	if u.State.Load.Err == nil || !strings.Contains(f.Banner.Current.Message, "Think time:") {
		t.Errorf("a bad think time: %q", f.Banner.Current.Message)
	}
	f.ThinkTime.SetText("")
	u.run.OnStart()
	if u.run.UiDone == nil {
		t.Fatalf("the replay did not start: %s", u.run.ProgressLine.Text)
	}
	waitFor(t, u.run.UiDone, "the replay to finish")
	if cells := u.run.LoadView().Cells; len(cells) != 1 || cells[0][0] != "conversations" || !strings.HasPrefix(cells[0][1], "Valid") || cells[0][2] != "9 / 0" {
		t.Errorf("Run table after the replay %q", cells)
	}
	l := u.results.Load
	if len(l.TurnRows) != 3 || l.TurnRows[2][0] != "3" || l.TurnRows[2][1] != "3" || !strings.HasPrefix(l.CacheText.Text, "Conversations: 3 conversations of chats.jsonl") {
		t.Errorf("Results: %q, turns %q", l.CacheText.Text, l.TurnRows)
	}
}
