package shell

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
)

// gcPercent is the desktop app's GOGC. The app's heap holds more than the
// headless run's (fonts, widgets, and the simulator when it serves one) and
// Go's default lets the heap grow to twice what is live: over a Standard run
// against the simulator the default let the app's memory rise by up to 125 MB
// in the cells with the longest prompts, 50 by up to 77 MB, for under 1 % more
// CPU per token (BENCHMARKS.md, "App memory over a Standard run").
const gcPercent = 50

// drawCacheLifetime is how long Fyne keeps what it drew for a text or an
// image that is no longer on screen (its FYNE_CACHE, one minute by
// default). During a run the Run screen redraws its figures, the output
// and the log several times a second, and a minute of their old textures
// held 35–40 MB outside the Go heap (with 5 s: under 5 MB; 10 s keeps
// about a sixth of a minute's).
// A screen not seen for longer draws its texts again when shown, in a few
// milliseconds.
const drawCacheLifetime = "10s"

// tuneMemory sets the app's GOGC unless the environment sets one.
func tuneMemory() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

// withDrawCacheLifetime starts the app again with FYNE_CACHE set, when it
// is not: Fyne reads it once, as its packages initialise, before any code
// of ours runs. The new process image keeps this process's id, arguments
// and files. Where that cannot be done the app goes on with Fyne's default.
func withDrawCacheLifetime() {
	env, again := drawCacheEnv(os.Environ())
	if !again {
		return
	}
	if exe, err := os.Executable(); err == nil {
		reexec(exe, os.Args, env)
	}
}

// drawCacheEnv is environ with FYNE_CACHE added, and whether it lacked it
// (a FYNE_CACHE of the user's own is kept).
func drawCacheEnv(environ []string) ([]string, bool) {
	for _, kv := range environ {
		if strings.HasPrefix(kv, "FYNE_CACHE=") {
			return environ, false
		}
	}
	return append(slices.Clip(environ), "FYNE_CACHE="+drawCacheLifetime), true
}

// runMemoryHeadroom is how much the Go runtime's memory may grow over what
// it held when a run started before its collector works harder to stay
// within it (a soft limit: debug.SetMemoryLimit). GOGC alone sizes the heap
// from the live heap, and in the bursts of a cell's first requests that
// let the app grow by 30–60 MB more than it kept.
const runMemoryHeadroom = 40 << 20

// limitRunMemory sets the soft memory limit for a run that starts now, and
// returns what lifts it again once the run ends: at rest the app may keep
// more (History's pictures) without its collector running all the time.
// A GOMEMLIMIT of the user's own is left alone.
func limitRunMemory() (lift func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(samples)
	held := samples[0].Value.Uint64() - samples[1].Value.Uint64()
	debug.SetMemoryLimit(int64(held) + runMemoryHeadroom)
	return func() { debug.SetMemoryLimit(math.MaxInt64) }
}
