package shell

import (
	"strings"
	"testing"

	"speedmatrix/app"
	"speedmatrix/app/apptest"

	"fyne.io/fyne/v2/test"
)

func TestSettingsRememberedBetweenLaunches(t *testing.T) {
	uiOnly(t)
	a := apptest.NewTempApp(t)
	d := testDeps(t, &fakeEngine{})
	first := newUI(a, test.NewTempWindow(t, nil), d, app.Options{})
	first.server.SelectKind(app.TargetEndpoint)
	first.server.Url.SetText("http://127.0.0.1:9000")
	first.server.ApiKey.SetText("endpoint-secret")
	first.server.Form.Model.SetText("Qwen/Qwen3-0.6B")
	first.server.Form.ApiKey.SetText("server-secret")
	first.matrix.Concurrency.SetText("1, 4")
	first.shutdown()

	for _, key := range []string{app.PrefTarget, app.PrefPlan, app.PrefServer} {
		if v := a.Preferences().String(key); strings.Contains(v, "secret") {
			t.Errorf("preference %s stores an API key: %s", key, v)
		}
	}
	second := newUI(a, test.NewTempWindow(t, nil), d, app.Options{})
	defer second.shutdown()
	if second.server.Kind.Selected != app.TargetEndpoint || second.server.Url.Text != "http://127.0.0.1:9000" {
		t.Errorf("target after relaunch: %q %q", second.server.Kind.Selected, second.server.Url.Text)
	}
	if second.server.Form.Model.Text != "Qwen/Qwen3-0.6B" {
		t.Errorf("server form model after relaunch: %q", second.server.Form.Model.Text)
	}
	if p, _ := second.matrix.Plan(); len(p.Concurrency) != 2 || p.Concurrency[1] != 4 || second.matrix.Preset.Selected != app.PresetCustom {
		t.Errorf("plan after relaunch: %v (%s)", p.Concurrency, second.matrix.Preset.Selected)
	}
}

// TestFlushWritesOnce guards the preferences file: a flush is one change
// (one write of the file) and an unchanged flush writes nothing.
func TestFlushWritesOnce(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	changes := 0
	u.App.Preferences().AddChangeListener(func() { changes++ })
	u.matrix.Concurrency.SetText("1, 4")
	u.server.Url.SetText("http://127.0.0.1:9001")
	u.FlushPrefs()
	if changes != 1 {
		t.Errorf("flush of two changed settings made %d changes, want 1", changes)
	}
	u.FlushPrefs()
	if changes != 1 {
		t.Errorf("flush of unchanged settings made %d more changes, want none", changes-1)
	}
	if !strings.Contains(u.App.Preferences().String(app.PrefTarget), "9001") {
		t.Errorf("target preference = %q, want the new URL", u.App.Preferences().String(app.PrefTarget))
	}
}
