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
	m.preset.SetSelected(app.PresetStandard)
	p, err := m.plan()
	if err != nil {
		t.Fatal(err)
	}
	if want := engine.DefaultPlan(); !reflect.DeepEqual(p, want) {
		t.Errorf("Standard plan = %+v, want the reference reports' matrix %+v", p, want)
	}
	m.preset.SetSelected(app.PresetQuick)
	if got := m.prefill.Text; got != "1K, 2K, 4K" {
		t.Errorf("Quick prefill contexts for the tiny simulator = %q, want 1K, 2K, 4K", got)
	}
	p, _ = m.plan()
	if total := measure.Estimate(p, m.capacity()); total > 2*time.Minute {
		t.Errorf("Quick plan for tiny is estimated at %v, want about a minute", total)
	}
	u.server.profile.SetSelected("big")
	if got := m.prefill.Text; got != "8K, 32K" {
		t.Errorf("Quick prefill contexts for a 128K model = %q, want 8K, 32K", got)
	}
	m.applying = true // as if a preset had filled the field
	m.durationS.SetText("")
	m.applying = false
	test.Type(m.durationS, "5")
	if m.preset.Selected != app.PresetCustom {
		t.Errorf("preset after an edit = %q, want Custom", m.preset.Selected)
	}
	if p, _ := m.plan(); p.Duration != 5*time.Second {
		t.Errorf("duration after typing 5 = %v, want 5 s", p.Duration)
	}
}

func TestMatrixGreysOverCapacityCells(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
	m := u.matrix
	m.preset.SetSelected(app.PresetStandard)
	// tiny: max model length 8,192, so every context is measured at
	// 8,192 − 4,096 output − 256 = 3,840 tokens ("3.75K"), and 65,536 KV
	// tokens: 16 × (3,840 + 4,096) = 126,976 does not fit; 1 × 7,936 does.
	if len(m.preview.Contexts) != 1 || m.shrunk.Hidden || !strings.Contains(m.shrunk.Text, "holds 8,192 tokens") || !strings.Contains(m.shrunk.Text, "measures decode at 3.75K") {
		t.Errorf("preview rows %v, shrink note %q (hidden %v); want the one fitted 3.75K row explained", m.preview.Contexts, m.shrunk.Text, m.shrunk.Hidden)
	}
	over, fits := m.preview.Cell(3840, 16), m.preview.Cell(3840, 1)
	if over == nil || fits == nil {
		t.Fatal("preview has no 3.75K row")
	}
	if over.Status != engine.StatusOverCapacity || over.Label() != "Over capacity" {
		t.Errorf("8K × 16 shows %q (%s), want Over capacity", over.Label(), over.Status)
	}
	if fits.Status != "" {
		t.Errorf("8K × 1 is %q before the run, want waiting", fits.Status)
	}
	if !strings.Contains(m.estimate.Text, "over capacity") {
		t.Errorf("estimate %q does not count the over-capacity cells", m.estimate.Text)
	}
	// The grey cells say why: what the first of them needs of the KV cache.
	if want := "Grey cells will not run: their requests need more KV cache than the server's 65,536 tokens (at 3.75K, 16 requests × (3,840 context + 4,096 output) = 126,976)."; m.overLine.Text != want || !m.overLine.Visible() {
		t.Errorf("under the grid %q, want %q", m.overLine.Text, want)
	}
	m.decode.SetText("1K") // 8 × (1,024 + 4,096) fits 65,536 tokens
	m.concurrency.SetText("1, 8")
	if m.overLine.Visible() {
		t.Errorf("no cell is grey, yet the grid says %q", m.overLine.Text)
	}
}

// TestMatrixQuickDoesNotWarnAgainstItself: the Quick preset's short
// windows are its point (its hint says so); the same window in a Custom
// plan is warned about.
func TestMatrixQuickDoesNotWarnAgainstItself(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
	m := u.matrix
	m.usePreset(app.PresetQuick)
	if m.durationS.Text != "2" || !m.warnings.Hidden {
		t.Errorf("Quick (%s s) warns: %q", m.durationS.Text, m.warnings.Text)
	}
	m.maxOut.SetText("200") // an edit: Custom
	if m.preset.Selected != app.PresetCustom || !strings.Contains(m.warnings.Text, "Seconds per cell: a 2s window") {
		t.Errorf("a Custom plan of 2 s windows (preset %s) warns %q", m.preset.Selected, m.warnings.Text)
	}
}

func TestMatrixRejectsBadInput(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	m := u.matrix
	m.concurrency.SetText("1, two")
	if _, err := m.plan(); err == nil || !strings.Contains(err.Error(), "two") {
		t.Errorf("plan error = %v, want one naming the bad value", err)
	}
	if n := m.banner.Current; !m.banner.Visible() || !strings.Contains(n.Message, "Requests at once") {
		t.Errorf("Matrix banner = %+v", n)
	}
	u.run.onStart()
	if u.run.running() {
		t.Error("a run started with a broken matrix")
	}
	if n := u.run.banner.Current; !u.run.banner.Visible() || !strings.Contains(n.Message, "requests at once") || n.Button != "Open Matrix screen" {
		t.Errorf("Run screen banner = %+v, want why it cannot start and a way to the Matrix screen", n)
	}
	m.concurrency.SetText("1, 2")
	if u.run.banner.Visible() {
		t.Errorf("the banner still says %q after the matrix was fixed", u.run.banner.Current.Message)
	}
}

// TestMatrixRefusesWhatTheRunRefuses: the Matrix screen checks the plan as
// the run does (engine.ValidatePlan), with the target's model length: the
// field's problem shows, and Start is refused.
func TestMatrixRefusesWhatTheRunRefuses(t *testing.T) {
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
		{m.maxOut, "99999999999", "Max output tokens: 99999999999 tokens are more than any model's context: use at most 10485760."},
		{m.maxOut, strconv.Itoa(maxLen), fmt.Sprintf("Max output tokens: %d tokens do not fit the model's max_model_len %d with a prompt: use at most %d.", maxLen, maxLen, maxLen-257)},
		{m.prefill, "0, 1K", "Prefill contexts: a context of 0 tokens has no prompt to measure: use 1 token or more (K = 1,024 tokens)."},
		{m.decode, "20000K", "Decode contexts: 20000K is longer than any model's context: use at most 10240K."},
		{m.concurrency, "1, 5000", "Requests at once: 5000 requests at once are more than any server runs: use at most 4096."},
		{m.durationS, "1e300", "Seconds per cell: 2562047h47m16.854775807s is longer than a cell needs: use at most 1 hour."},
		{m.durationS, "0", "Seconds per cell: must be positive."},
	} {
		m.usePreset(app.PresetQuick)
		tc.field.SetText(tc.text)
		if n := m.banner.Current; !m.banner.Visible() || n.Message != tc.msg || m.estimate.Text != "" {
			t.Errorf("%q: banner %q (visible %v), estimate %q; want %q and no estimate", tc.text, n.Message, m.banner.Visible(), m.estimate.Text, tc.msg)
		}
		if p, _ := m.Read(); engine.ValidatePlan(p, u.State.Target.Capacity) == nil {
			t.Errorf("%q: the run would take the plan the screen refuses", tc.text)
		}
		u.run.onStart()
		if u.run.running() || !strings.HasPrefix(u.run.banner.Current.Message, "The matrix has a problem: "+strings.TrimSuffix(tc.msg, ".")) {
			t.Errorf("%q: Start was not refused with the field's problem: %q", tc.text, u.run.banner.Current.Message)
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
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:big"}) // max_num_seqs 256
	m := u.matrix
	m.preset.SetSelected(app.PresetStandard)
	if !m.warnings.Hidden {
		t.Errorf("the Standard plan warns: %q", m.warnings.Text)
	}
	u.server.profile.SetSelected("tiny") // max_num_seqs 64
	m.decode.SetText("128, 1K")
	m.concurrency.SetText("1, 128")
	m.durationS.SetText("2")
	for _, want := range []string{"Decode contexts: contexts under 256 tokens (128)", "Requests at once: the server runs at most 64 sequences at once (max_num_seqs): 128 requests", "Seconds per cell: a 2s window"} {
		if !strings.Contains(m.warnings.Text, want) || m.warnings.Hidden {
			t.Errorf("warnings %q miss %q", m.warnings.Text, want)
		}
	}
	if got := m.preview.Concurrency; len(got) != 2 || got[1] != 128 {
		t.Errorf("the grid did not follow the typing: columns %v", got)
	}
	if _, err := m.plan(); err != nil {
		t.Errorf("a warned plan does not run: %v", err)
	}
}

// TestMatrixLearnsTheEndpointsCapacity: Detect lists an endpoint's model
// and length, not its KV cache; the Matrix screen says a run asks for it,
// and once a run has, it shows the KV cache and greys the cells over it.
func TestMatrixLearnsTheEndpointsCapacity(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents(), server: engine.Limits{KVCacheTokens: 98304, MaxNumSeqs: 64, MaxModelLen: 32768}}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "http://127.0.0.1:8000"})
	u.server.onDetect()
	waitFor(t, u.server.detected, "model detection")
	m := u.matrix
	if want := "KV capacity unknown until a run asks the server for it: the run checks it before each cell."; m.capacityLine.Text != want {
		t.Errorf("after Detect: %q, want %q", m.capacityLine.Text, want)
	}
	u.run.onStart()
	waitFor(t, u.run.uiDone, "the run")
	if want := "KV cache: 98,304 tokens · at most 64 sequences at once."; m.capacityLine.Text != want {
		t.Errorf("after a run: %q, want %q", m.capacityLine.Text, want)
	}
	if c := u.State.Target.Capacity; c.KVCacheTokens != 98304 || c.MaxNumSeqs != 64 || c.MaxModelLen != 32768 {
		t.Errorf("endpoint capacity %+v", c)
	}
	u.server.url.SetText("http://127.0.0.1:8001") // another server
	if c := u.State.Target.Capacity; c != (app.Capacity{}) || !strings.HasPrefix(m.capacityLine.Text, "KV capacity unknown") {
		t.Errorf("another address keeps capacity %+v (%q)", c, m.capacityLine.Text)
	}
}
