package shell

import (
	"strings"
	"testing"

	"speedmatrix/app"
)

// TestFieldsSayTooLarge: a number of 20 digits is too large, and the
// error gives the most the field takes ("write a whole number of tokens"
// was wrong: it is one).
func TestFieldsSayTooLarge(t *testing.T) {
	const huge = "99999999999999999999"
	for _, c := range []struct {
		name string
		set  func(m *matrixTab)
		said func(m *matrixTab) string
		want string
	}{
		{"max output", func(m *matrixTab) { m.maxOut.SetText(huge) }, func(m *matrixTab) string { return m.banner.Current.Message },
			"Max output tokens: too large: write at most 10,485,760 tokens."},
		{"prefill repeats", func(m *matrixTab) { m.repeats.SetText(huge) }, func(m *matrixTab) string { return m.banner.Current.Message },
			"Prefill repeats: too large: write at most 20 requests."},
		{"requests per rate", func(m *matrixTab) { m.load.kind.SetSelected(kindLoad); m.load.requests.SetText(huge) },
			func(m *matrixTab) string { return m.load.banner.Current.Message }, "Requests per rate: too large: write at most "},
		{"burst", func(m *matrixTab) { m.load.kind.SetSelected(kindLoad); m.load.burst.SetText(huge) },
			func(m *matrixTab) string { return m.load.banner.Current.Message }, "Burst: too large: write at most "},
		{"max concurrency", func(m *matrixTab) { m.load.kind.SetSelected(kindLoad); m.load.maxConc.SetText(huge) },
			func(m *matrixTab) string { return m.load.banner.Current.Message }, "Max concurrency: too large: write at most "},
		{"seed", func(m *matrixTab) { m.load.kind.SetSelected(kindLoad); m.load.seed.SetText(huge) },
			func(m *matrixTab) string { return m.load.banner.Current.Message }, "Seed: too large: write a whole number of at most 18 digits"},
		{"not a number", func(m *matrixTab) { m.maxOut.SetText("4k") }, func(m *matrixTab) string { return m.banner.Current.Message },
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
	u.run.onStart()
	if got := u.quitStops(); got != "Quitting cancels the run." {
		t.Errorf("during a run on the simulator: %q", got)
	}
	u.run.onCancel()
	waitFor(t, eng.cancelled, "the engine to see the cancellation")
}
