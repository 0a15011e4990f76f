package shell

import (
	"strings"
	"testing"

	"speedmatrix/app"
	"speedmatrix/app/matrix"
)

// TestFieldsSayTooLarge: a number of 20 digits is too large, and the
// error gives the most the field takes ("write a whole number of tokens"
// was wrong: it is one).
func TestFieldsSayTooLarge(t *testing.T) {
	uiOnly(t)
	const huge = "99999999999999999999"
	for _, c := range []struct {
		name string
		set  func(m *matrix.Tab)
		said func(m *matrix.Tab) string
		want string
	}{
		{"max output", func(m *matrix.Tab) { m.MaxOut.SetText(huge) }, func(m *matrix.Tab) string { return m.Banner.Current.Message },
			"Max output tokens: too large: write at most 10,485,760 tokens."},
		{"prefill repeats", func(m *matrix.Tab) { m.Repeats.SetText(huge) }, func(m *matrix.Tab) string { return m.Banner.Current.Message },
			"Prefill repeats: too large: write at most 20 requests."},
		{"requests per rate", func(m *matrix.Tab) { m.Load.Kind.SetSelected(matrix.KindLoad); m.Load.Requests.SetText(huge) },
			func(m *matrix.Tab) string { return m.Load.Banner.Current.Message }, "Requests per rate: too large: write at most "},
		{"burst", func(m *matrix.Tab) { m.Load.Kind.SetSelected(matrix.KindLoad); m.Load.Burst.SetText(huge) },
			func(m *matrix.Tab) string { return m.Load.Banner.Current.Message }, "Burst: too large: write at most "},
		{"max concurrency", func(m *matrix.Tab) { m.Load.Kind.SetSelected(matrix.KindLoad); m.Load.MaxConc.SetText(huge) },
			func(m *matrix.Tab) string { return m.Load.Banner.Current.Message }, "Max concurrency: too large: write at most "},
		{"seed", func(m *matrix.Tab) { m.Load.Kind.SetSelected(matrix.KindLoad); m.Load.Seed.SetText(huge) },
			func(m *matrix.Tab) string { return m.Load.Banner.Current.Message }, "Seed: too large: write a whole number of at most 18 digits"},
		{"not a number", func(m *matrix.Tab) { m.MaxOut.SetText("4k") }, func(m *matrix.Tab) string { return m.Banner.Current.Message },
			"Max output tokens: write a whole number of tokens, e.g. 4096."},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:tiny"})
			c.set(u.matrix)
			if got := c.said(u.matrix); !strings.HasPrefix(got, c.want) {
				t.Errorf("the form says %q, want %q", got, c.want)
			}
		})
	}
}

// TestQuitSaysWhatItStops: the Quit dialog frees GPU memory only where a
// server started here holds some (it said so of the simulator).
func TestQuitSaysWhatItStops(t *testing.T) {
	for _, c := range []struct {
		name                          string
		sweep, running, server, onGPU bool
		want                          string
	}{
		{"a run on the simulator", false, true, false, false, "Quitting cancels the run."},
		{"a run on a launched server", false, true, true, true, "Quitting cancels the run and stops the server (its GPU memory is freed)."},
		{"a launched CPU build", false, false, true, false, "Quitting stops the server."},
		{"a launched server", false, false, true, true, "Quitting stops the server (its GPU memory is freed)."},
		{"a sweep", true, true, true, true, "Quitting cancels the sweep and stops its server."},
	} {
		if got := quitText(c.sweep, c.running, c.server, c.onGPU); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	eng := &fakeEngine{events: cannedEvents()[:3], hold: true}
	u := newTestUI(t, testDeps(t, eng), app.Options{Target: "sim:tiny"})
	u.run.OnStart()
	if got := u.quitStops(); got != "Quitting cancels the run." {
		t.Errorf("during a run on the simulator: %q", got)
	}
	u.run.OnCancel()
	waitFor(t, eng.cancelled, "the engine to see the cancellation")
}
