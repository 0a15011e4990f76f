package shell

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/engine"
)

// TestMatrixPrefillRepeats: the Standard preset shows 3 repeats with one
// from 64K, as engine.DefaultPlan; Quick measures each context once; a
// count typed in applies to every context and makes the plan Custom; a
// count out of range is refused in the field's words.
func TestMatrixPrefillRepeats(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
	m := u.matrix
	for _, tc := range []struct {
		name         string
		do           func()
		at32K, at64K int
		hint         string
	}{
		{"standard", func() { m.UsePreset(app.PresetStandard) }, 3, 1, "; 1 from 64K"},
		{"quick", func() { m.UsePreset(app.PresetQuick) }, 1, 1, "median of cold requests"},
		{"typed", func() { m.UsePreset(app.PresetStandard); m.Repeats.SetText(""); test.Type(m.Repeats, "5") }, 5, 5, "median of cold requests"},
	} {
		tc.do()
		p, err := m.Plan()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got32, got64 := p.PrefillRepeatsAt(32*engine.K), p.PrefillRepeatsAt(64*engine.K); got32 != tc.at32K || got64 != tc.at64K {
			t.Errorf("%s: %d repeats at 32K, %d at 64K; want %d and %d", tc.name, got32, got64, tc.at32K, tc.at64K)
		}
		if !strings.HasSuffix(m.RepeatsItem.HintText, tc.hint) {
			t.Errorf("%s: hint %q, want it to end %q", tc.name, m.RepeatsItem.HintText, tc.hint)
		}
	}
	if m.Preset.Selected != app.PresetCustom {
		t.Errorf("preset after typing a count = %q, want Custom", m.Preset.Selected)
	}
	for _, text := range []string{"0", "21", "three"} {
		m.Repeats.SetText(text)
		if _, err := m.Plan(); err == nil || !strings.HasPrefix(err.Error(), "prefill repeats: ") {
			t.Errorf("%q: %v, want an error naming Prefill repeats", text, err)
		}
	}
}
