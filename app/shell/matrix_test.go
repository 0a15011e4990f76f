package shell

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
)

func TestMatrixPresets(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
	m := u.matrix
	m.Preset.SetSelected(app.PresetStandard)
	p, err := m.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if want := engine.DefaultPlan(); !reflect.DeepEqual(p, want) {
		t.Errorf("Standard plan = %+v, want the reference reports' matrix %+v", p, want)
	}
	m.Preset.SetSelected(app.PresetQuick)
	if got := m.Prefill.Text; got != "1K, 2K, 4K" {
		t.Errorf("Quick prefill contexts for the tiny simulator = %q, want 1K, 2K, 4K", got)
	}
	p, _ = m.Plan()
	if total := measure.Estimate(p, m.Capacity()); total > 2*time.Minute {
		t.Errorf("Quick plan for tiny is estimated at %v, want about a minute", total)
	}
	u.server.Profile.SetSelected("big")
	if got := m.Prefill.Text; got != "8K, 32K" {
		t.Errorf("Quick prefill contexts for a 128K model = %q, want 8K, 32K", got)
	}
	m.Applying = true // as if a preset had filled the field
	m.DurationS.SetText("")
	m.Applying = false
	test.Type(m.DurationS, "5")
	if m.Preset.Selected != app.PresetCustom {
		t.Errorf("preset after an edit = %q, want Custom", m.Preset.Selected)
	}
	if p, _ := m.Plan(); p.Duration != 5*time.Second {
		t.Errorf("duration after typing 5 = %v, want 5 s", p.Duration)
	}
}

func TestMatrixGreysOverCapacityCells(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
	m := u.matrix
	m.Preset.SetSelected(app.PresetStandard)
	// tiny: max model length 8,192, so every context is measured at
	// 8,192 − 4,096 output − 256 = 3,840 tokens ("3.75K"), and 65,536 KV
	// tokens: 16 × (3,840 + 4,096) = 126,976 does not fit; 1 × 7,936 does.
	if len(m.Preview.Contexts) != 1 || m.Shrunk.Hidden || !strings.Contains(m.Shrunk.Text, "holds 8,192 tokens") || !strings.Contains(m.Shrunk.Text, "measures decode at 3.75K") {
		t.Errorf("preview rows %v, shrink note %q (hidden %v); want the one fitted 3.75K row explained", m.Preview.Contexts, m.Shrunk.Text, m.Shrunk.Hidden)
	}
	over, fits := m.Preview.Cell(3840, 16), m.Preview.Cell(3840, 1)
	if over == nil || fits == nil {
		t.Fatal("preview has no 3.75K row")
	}
	if over.Status != engine.StatusOverCapacity || over.Label() != "Over capacity" {
		t.Errorf("8K × 16 shows %q (%s), want Over capacity", over.Label(), over.Status)
	}
	if fits.Status != "" {
		t.Errorf("8K × 1 is %q before the run, want waiting", fits.Status)
	}
	if !strings.Contains(m.Estimate.Text, "over capacity") {
		t.Errorf("estimate %q does not count the over-capacity cells", m.Estimate.Text)
	}
	// The grey cells say why: what the first of them needs of the KV cache.
	if want := "Grey cells will not run: their requests need more KV cache than the server's 65,536 tokens (at 3.75K, 16 requests × (3,840 context + 4,096 output) = 126,976)."; m.OverLine.Text != want || !m.OverLine.Visible() {
		t.Errorf("under the grid %q, want %q", m.OverLine.Text, want)
	}
	m.Decode.SetText("1K") // 8 × (1,024 + 4,096) fits 65,536 tokens
	m.Concurrency.SetText("1, 8")
	if m.OverLine.Visible() {
		t.Errorf("no cell is grey, yet the grid says %q", m.OverLine.Text)
	}
}

// TestMatrixQuickDoesNotWarnAgainstItself: the Quick preset's short
// windows are its point (its hint says so); the same window in a Custom
// plan is warned about.
func TestMatrixQuickDoesNotWarnAgainstItself(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
	m := u.matrix
	m.UsePreset(app.PresetQuick)
	if m.DurationS.Text != "2" || !m.Warnings.Hidden {
		t.Errorf("Quick (%s s) warns: %q", m.DurationS.Text, m.Warnings.Text)
	}
	m.MaxOut.SetText("200") // an edit: Custom
	if m.Preset.Selected != app.PresetCustom || !strings.Contains(m.Warnings.Text, "Seconds per cell: a 2s window") {
		t.Errorf("a Custom plan of 2 s windows (preset %s) warns %q", m.Preset.Selected, m.Warnings.Text)
	}
}

func TestMatrixRejectsBadInput(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	m := u.matrix
	m.Concurrency.SetText("1, two")
	if _, err := m.Plan(); err == nil || !strings.Contains(err.Error(), "two") {
		t.Errorf("plan error = %v, want one naming the bad value", err)
	}
	if n := m.Banner.Current; !m.Banner.Visible() || !strings.Contains(n.Message, "Requests at once") {
		t.Errorf("Matrix banner = %+v", n)
	}
	u.run.OnStart()
	if u.run.Running() {
		t.Error("a run started with a broken matrix")
	}
	if n := u.run.Banner.Current; !u.run.Banner.Visible() || !strings.Contains(n.Message, "requests at once") || n.Button != "Open Matrix screen" {
		t.Errorf("Run screen banner = %+v, want why it cannot start and a way to the Matrix screen", n)
	}
	m.Concurrency.SetText("1, 2")
	if u.run.Banner.Visible() {
		t.Errorf("the banner still says %q after the matrix was fixed", u.run.Banner.Current.Message)
	}
}

// TestMatrixRefusesWhatTheRunRefuses: the Matrix screen checks the plan as
// the run does (engine.ValidatePlan), with the target's model length: the
// field's problem shows, and Start is refused.
func TestMatrixRefusesWhatTheRunRefuses(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
	m := u.matrix
	maxLen := u.State.Target.Capacity.MaxModelLen
	if maxLen == 0 {
		t.Fatal("the tiny simulator's model length is unknown")
	}
	for _, tc := range []struct {
		field     *widget.Entry
		text, msg string
	}{
		{m.MaxOut, "99999999999", "Max output tokens: 99999999999 tokens are more than any model's context: use at most 10485760."},
		{m.MaxOut, strconv.Itoa(maxLen), fmt.Sprintf("Max output tokens: %d tokens do not fit the model's max_model_len %d with a prompt: use at most %d.", maxLen, maxLen, maxLen-257)},
		{m.Prefill, "0, 1K", "Prefill contexts: a context of 0 tokens has no prompt to measure: use 1 token or more (K = 1,024 tokens)."},
		{m.Decode, "20000K", "Decode contexts: 20000K is longer than any model's context: use at most 10240K."},
		{m.Concurrency, "1, 5000", "Requests at once: 5000 requests at once are more than any server runs: use at most 4096."},
		{m.DurationS, "1e300", "Seconds per cell: 2562047h47m16.854775807s is longer than a cell needs: use at most 1 hour."},
		{m.DurationS, "0", "Seconds per cell: must be positive."},
	} {
		m.UsePreset(app.PresetQuick)
		tc.field.SetText(tc.text)
		if n := m.Banner.Current; !m.Banner.Visible() || n.Message != tc.msg || m.Estimate.Text != "" {
			t.Errorf("%q: banner %q (visible %v), estimate %q; want %q and no estimate", tc.text, n.Message, m.Banner.Visible(), m.Estimate.Text, tc.msg)
		}
		if p, _ := m.Read(); engine.ValidatePlan(p, u.State.Target.Capacity) == nil {
			t.Errorf("%q: the run would take the plan the screen refuses", tc.text)
		}
		u.run.OnStart()
		if u.run.Running() || !strings.HasPrefix(u.run.Banner.Current.Message, "The matrix has a problem: "+strings.TrimSuffix(tc.msg, ".")) {
			t.Errorf("%q: Start was not refused with the field's problem: %q", tc.text, u.run.Banner.Current.Message)
		}
	}
}

func TestCellCounts(t *testing.T) {
	p := engine.Plan{PrefillContexts: []int{1024}, DecodeContexts: []int{1024, 4096}, Concurrency: []int{1, 64},
		Duration: 10 * time.Second, MaxOutputTokens: 1024}
	run, over := app.CellCounts(p, app.Capacity{KVCacheTokens: 65536})
	// 64 × (1024+1024) = 131,072 and 64 × 5,120 exceed 65,536: two cells are skipped.
	if run != 2 || over != 2 {
		t.Errorf("run, over = %d, %d; want 2, 2", run, over)
	}
}

// TestMatrixWarns: settings that run but mislead are warned of, in the
// screen's words, and the grid follows the typing.
func TestMatrixWarns(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:big"}) // max_num_seqs 256
	m := u.matrix
	m.Preset.SetSelected(app.PresetStandard)
	if !m.Warnings.Hidden {
		t.Errorf("the Standard plan warns: %q", m.Warnings.Text)
	}
	u.server.Profile.SetSelected("tiny") // max_num_seqs 64
	m.Decode.SetText("128, 1K")
	m.Concurrency.SetText("1, 128")
	m.DurationS.SetText("2")
	for _, want := range []string{"Decode contexts: contexts under 256 tokens (128)", "Requests at once: the server runs at most 64 sequences at once (max_num_seqs): 128 requests", "Seconds per cell: a 2s window"} {
		if !strings.Contains(m.Warnings.Text, want) || m.Warnings.Hidden {
			t.Errorf("warnings %q miss %q", m.Warnings.Text, want)
		}
	}
	if got := m.Preview.Concurrency; len(got) != 2 || got[1] != 128 {
		t.Errorf("the grid did not follow the typing: columns %v", got)
	}
	if _, err := m.Plan(); err != nil {
		t.Errorf("a warned plan does not run: %v", err)
	}
}

// TestMatrixLearnsTheEndpointsCapacity: Detect lists an endpoint's model
// and length, not its KV cache; the Matrix screen says a run asks for it,
// and once a run has, it shows the KV cache and greys the cells over it.
func TestMatrixLearnsTheEndpointsCapacity(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents(), server: engine.Limits{KVCacheTokens: 98304, MaxNumSeqs: 64, MaxModelLen: 32768}}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "http://127.0.0.1:8000"})
	u.server.OnDetect()
	waitFor(t, u.server.Detected, "model detection")
	m := u.matrix
	if want := "KV capacity unknown until a run asks the server for it: the run checks it before each cell."; m.CapacityLine.Text != want {
		t.Errorf("after Detect: %q, want %q", m.CapacityLine.Text, want)
	}
	u.run.OnStart()
	waitFor(t, u.run.UiDone, "the run")
	if want := "KV cache: 98,304 tokens · at most 64 sequences at once."; m.CapacityLine.Text != want {
		t.Errorf("after a run: %q, want %q", m.CapacityLine.Text, want)
	}
	if c := u.State.Target.Capacity; c.KVCacheTokens != 98304 || c.MaxNumSeqs != 64 || c.MaxModelLen != 32768 {
		t.Errorf("endpoint capacity %+v", c)
	}
	u.server.Url.SetText("http://127.0.0.1:8001") // another server
	if c := u.State.Target.Capacity; c != (app.Capacity{}) || !strings.HasPrefix(m.CapacityLine.Text, "KV capacity unknown") {
		t.Errorf("another address keeps capacity %+v (%q)", c, m.CapacityLine.Text)
	}
}
